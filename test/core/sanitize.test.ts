import { asciiOnly, escapeMarkdown, sanitizeLine, truncate } from '../../lambdas/core/sanitize';

describe('sanitize', () => {
  it('removes control characters, ANSI escapes and bidi overrides, folding whitespace', () => {
    expect(sanitizeLine('a\r\nb\t\u001b[31mred\u001b[0m \u202eevil\u0000')).toBe('a b red evil');
  });

  it('truncates on code points with an ellipsis', () => {
    expect(truncate('😀😀😀😀', 3)).toBe('😀😀…');
    expect(sanitizeLine('x'.repeat(50), 10)).toHaveLength(10);
  });

  it('neutralises markdown, links and mentions', () => {
    const escaped = escapeMarkdown('[click](https://evil) @here <!channel> *bold*');
    expect(escaped).not.toMatch(/\[click\]\(/);
    expect(escaped).not.toContain('@here');
    expect(escaped).not.toContain('https://');
    expect(escaped).toContain('\\*bold\\*');
  });

  it('keeps subjects printable ASCII within the limit', () => {
    const subject = asciiOnly(`CRITICAL ✓ ${'x'.repeat(200)}\r\n`, 99);
    expect(subject).toMatch(/^[\x20-\x7e]{1,99}$/);
    expect(subject.endsWith('...')).toBe(true);
  });
});
