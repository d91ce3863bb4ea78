import { z } from 'zod';
import { chatNotificationOf, emailTextOf, subjectOf } from '../../../lambdas/core/findings/render-notification';
import { isDisruptive, isReadOnly } from '../../../lambdas/core/notice/command-kind';
import { detailParts, FALLBACK_RUN_NOW, FIRST_SCREEN_LINES } from '../../../lambdas/core/notice/text';
import { esc, renderHtml, renderMarkdown } from '../../../lambdas/core/findings/render-report';
import { shortTitleOf } from '../../../lambdas/core/notice/short-titles';
import { placeOf } from '../../../lambdas/core/notice/place';
import { ruleFindings } from '../../support/rule-findings';
import type { Finding } from '../../../lambdas/core/findings/finding';

/**
 * The Amazon Q Developer in chat applications custom notification, as documented ("Custom
 * notifications using Amazon Q Developer in chat applications": version, source, id, content with
 * textType/title/description/nextSteps/keywords, metadata with threadId/summary/eventType/
 * relatedResources/additionalContext).
 */
const CHAT_SCHEMA = z.strictObject({
  version: z.literal('1.0'),
  source: z.literal('custom'),
  id: z.string().min(1),
  content: z.strictObject({
    textType: z.literal('client-markdown'),
    title: z.string().min(1).max(250),
    description: z.string().max(8000),
    nextSteps: z.array(z.string()).optional(),
    keywords: z.array(z.string()).optional(),
  }),
  metadata: z
    .strictObject({
      threadId: z.string().optional(),
      summary: z.string().optional(),
      eventType: z.string().optional(),
      relatedResources: z.array(z.string().regex(/^arn:aws[a-z-]*:/)).optional(),
      additionalContext: z.record(z.string(), z.string()).optional(),
    })
    .optional(),
});

const INVISIBLE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/;

const cases = ruleFindings();

/** A subnet running low and a subnet out of IPs: one problem at two stages, one chat thread per cluster. */
const SUBNET_RULES: ReadonlySet<string> = new Set(['subnet-ip-headroom-low', 'subnet-ip-exhaustion']);

describe('the chat thread of a cluster’s subnets', () => {
  const threadOf = (rule: string, change: Partial<Finding> = {}) => {
    const [, finding] = cases.find(([, f]) => f.rule === rule)!;
    const chat = chatNotificationOf({ ...finding, ...change }) as z.infer<typeof CHAT_SCHEMA>;
    return chat.metadata?.threadId;
  };

  it('holds the headroom warning, the exhaustion and their resolution in one thread', () => {
    const warning = threadOf('subnet-ip-headroom-low', { findingId: 'aaaaaaaaaaaaaaaaaaaaaaaa' });
    expect(threadOf('subnet-ip-exhaustion', { findingId: 'bbbbbbbbbbbbbbbbbbbbbbbb' })).toBe(warning);
    expect(threadOf('subnet-ip-exhaustion', { status: 'resolved' })).toBe(warning);
  });

  it('keeps one thread per cluster and account, and every other finding its own', () => {
    const thread = threadOf('subnet-ip-exhaustion');
    expect(threadOf('subnet-ip-exhaustion', { cluster: 'staging' })).not.toBe(thread);
    expect(threadOf('subnet-ip-headroom-low', { account: '210987654321' })).not.toBe(thread);
    expect(threadOf('insufficient-instance-capacity', { findingId: 'cccccccccccccccccccccccc' })).toBe(
      'cccccccccccccccccccccccc',
    );
  });
});

const codeSpans = (text: string): string[] => [...text.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);

describe.each(cases)('the notices of %s', (_label, finding) => {
  const email = emailTextOf(finding);
  const chat = chatNotificationOf(finding) as z.infer<typeof CHAT_SCHEMA>;
  const subject = subjectOf(finding);

  it('has a subject of at most 60 characters with severity, cluster and place', () => {
    expect(subject.length).toBeLessThanOrEqual(60);
    expect(subject).toMatch(/^(CRITICAL|HIGH|MEDIUM|LOW) prod: /);
    // The place, or its start when cut; a what that fills the line (the controller's own pods) names it.
    const place = placeOf(finding);
    const what = subject.slice(0, subject.indexOf(': ') + 2).length + shortTitleOf(finding.rule).length;
    if (place && what <= 50) expect(subject).toContain(place.slice(0, 8));
  });

  it('shows impact, cause, where and exactly one read-only command in its first ten lines', () => {
    const first = email.split('\n').slice(0, FIRST_SCREEN_LINES);
    const commands = first.filter((l) => /^\s+(run now\s+)?\$ /.test(l)).map((l) => l.replace(/^.*?\$ /, ''));
    expect(commands).toHaveLength(1);
    expect(isReadOnly(commands[0]!)).toBe(true);
    expect(first.some((l) => isDisruptive(l.replace(/^.*?\$ /, '')))).toBe(false);
    for (const name of ['impact', 'cause', 'where', 'run now'])
      expect(first.join('\n')).toMatch(new RegExp(`^  ${name} `, 'm'));
  });

  it('says no internal word: no rule id, seed section or action id in prose', () => {
    const prose = [email, chat.content.title, chat.content.description, ...(chat.content.nextSteps ?? [])].join('\n');
    expect(prose).not.toMatch(/seed|§|\(action: /i);
    expect(prose).not.toContain(finding.rule);
  });

  it('is a valid Amazon Q Developer custom notification, threaded, with the finding ARNs', () => {
    expect(() => CHAT_SCHEMA.parse(chat)).not.toThrow();
    expect(chat.id).toBe(`${finding.findingId}-1`);
    if (!SUBNET_RULES.has(finding.rule)) expect(chat.metadata?.threadId).toBe(finding.findingId);
    expect(chat.metadata?.relatedResources).toContain('arn:aws:eks:us-west-2:123456789012:cluster/prod');
    expect(chat.content.nextSteps).toHaveLength(finding.remediation.length);
  });

  it('puts commands in chat code spans whole, without invisible or escaped characters', () => {
    const text = [chat.content.description, ...(chat.content.nextSteps ?? [])].join('\n');
    const all = [...finding.remediation.flatMap((s) => s.commands), FALLBACK_RUN_NOW];
    for (const span of codeSpans(text)) {
      expect(span).not.toMatch(INVISIBLE);
      expect(span).not.toMatch(/\\[()]/);
      expect(all.map((c) => c.replace(/`/g, "'"))).toContain(span);
    }
    expect(text.replace(/`[^`]*`/g, '')).not.toMatch(/\\[()]/);
  });
});

describe.each(
  cases.filter(([, f]) => f.remediation.some((s) => detailParts(s.detail).some((p) => p.kind === 'block'))),
)('the reports of %s', (_label, finding) => {
  const report = { findings: [finding], records: 1, malformed: 0, inputs: [] };
  const blocks = finding.remediation.flatMap((s) =>
    detailParts(s.detail)
      .filter((p) => p.kind === 'block')
      .map((p) => p.text),
  );

  it('keeps every multi-line block as a code block with its line breaks in markdown', () => {
    const markdown = renderMarkdown(report);
    for (const block of blocks) {
      const indented = block
        .split('\n')
        .map((line) => `   ${line}`)
        .join('\n');
      expect(markdown).toMatch(new RegExp(`\`\`\`(yaml|json)\\n${escapeRegExp(indented)}\\n   \`\`\``));
    }
  });

  it('keeps every multi-line block in a pre element in HTML', () => {
    const html = renderHtml(report);
    for (const block of blocks) expect(html).toContain(`<pre class="block"><code>${esc(block)}</code></pre>`);
  });
});

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
