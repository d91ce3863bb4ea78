import { renderHtml, renderMarkdown, type Report } from '../../../lambdas/core/findings/render-report';

const unrecognised = {
  count: 7,
  top: [
    { message: 'failed to frobnicate <b>widget</b> `x`', count: 5 },
    { message: 'something else broke', count: 2 },
  ],
};
const report = (extra: Partial<Report> = {}): Report => ({
  findings: [],
  records: 10,
  malformed: 0,
  inputs: [],
  ...extra,
});

describe('the reports', () => {
  it('list the unrecognised error lines, most frequent first, in Markdown', () => {
    const markdown = renderMarkdown(report({ unrecognised }));
    expect(markdown).toMatch(
      /### 7 unrecognised error lines\n\n.*\n\n```text\n5× failed to frobnicate <b>widget<\/b> `x`\n2× something else broke\n```\n$/,
    );
  });

  it('list them escaped in HTML', () => {
    const html = renderHtml(report({ unrecognised }));
    expect(html).toContain('<h2>7 unrecognised error lines</h2>');
    expect(html).toContain(
      '<td class="count">5</td><td><code>failed to frobnicate &lt;b&gt;widget&lt;/b&gt; `x`</code>',
    );
    expect(html).not.toContain('<b>');
  });

  it('leave the section out when every failure-shaped line was recognised', () => {
    const none = { count: 0, top: [] };
    expect(renderMarkdown(report({ unrecognised: none }))).not.toContain('unrecognised');
    expect(renderHtml(report({ unrecognised: none }))).not.toContain('unrecognised error');
  });
});
