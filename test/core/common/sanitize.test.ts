import fc from 'fast-check';
import { asciiOnly, escapeMarkdown, sanitizeLine, truncate } from '../../../lambdas/core/common/sanitize';

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

/** `sanitizeLine` as it was: the three replacements on every line, then trimmed and cut. */
function sanitizeLineByReplacing(text: string, max = 1000): string {
  const clean = text
    .replace(/\u001b\[[0-9;?]{0,32}[ -/]{0,4}[@-~]/g, '')
    .replace(/[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/g, ' ')
    .replace(/ {2,}/g, ' ')
    .trim();
  return truncateByArray(clean, max);
}

describe('sanitizeLine with nothing to replace', () => {
  it('property: cleans as the three replacements did, for text with and without anything to clean', () => {
    const part = fc.oneof(
      fc.constantFrom(' ', '  ', 'a', 'Z9', '\u001b[31m', '\u001b[0m', '\u001b', '\t', '\n', '\r\n', '\u0085'),
      fc.constantFrom('\u00a0', '\u200b', '\u202e', '\u2066', '\ufeff', '\u3000', '\u2028', 'é', '😀', '\ud83d'),
      fc.string({ maxLength: 8 }),
      fc.string({ unit: 'binary', maxLength: 4 }),
      // Each end of each range cleaned, and the characters just outside it.
      fc
        .constantFrom(0x00, 0x1f, 0x20, 0x7e, 0x7f, 0x9f, 0xa0, 0x200a, 0x200b, 0x200f, 0x2010, 0x2027, 0x2028)
        .map((code) => String.fromCharCode(code)),
      fc
        .constantFrom(0x202e, 0x202f, 0x205f, 0x2060, 0x2069, 0x206a, 0xfefe, 0xfeff, 0xff00)
        .map((code) => String.fromCharCode(code)),
    );
    const text = fc.array(part, { maxLength: 30 }).map((parts) => parts.join(''));
    fc.assert(
      fc.property(text, fc.constantFrom(5, 20, 1000), (text, max) => {
        expect(sanitizeLine(text, max)).toBe(sanitizeLineByReplacing(text, max));
      }),
      { numRuns: 20_000 },
    );
  });
});

/** `truncate` as it was: an array of the text's code points (the string iterator's), cut and joined. */
function truncateByArray(text: string, max: number): string {
  if (text.length <= max) return text;
  const chars = Array.from(text);
  if (chars.length <= max) return text;
  return `${chars.slice(0, Math.max(0, max - 1)).join('')}…`;
}

describe('truncate counted in place', () => {
  /** Text of ASCII, two-unit code points, and lone or reversed surrogates, which count one each. */
  const unit = fc.oneof(
    fc.constantFrom('a', ' ', 'é', '😀', '\ud83d', '\ude00', '\ude00\ud83d', '𝄞', '\u0000'),
    fc.string({ maxLength: 3 }),
  );
  const text = fc.array(unit, { maxLength: 40 }).map((parts) => parts.join(''));

  it('property: cuts where the array of code points cut, for any limit', () => {
    const max = fc.oneof(fc.integer({ min: -2, max: 45 }), fc.double({ min: -2, max: 45, noNaN: false }));
    fc.assert(
      fc.property(text, max, (text, max) => {
        expect(truncate(text, max)).toBe(truncateByArray(text, max));
      }),
      { numRuns: 20_000 },
    );
  });

  it('property: the same for long text cut at the evidence and message limits', () => {
    const long = fc.array(unit, { minLength: 150, maxLength: 1400 }).map((parts) => parts.join(''));
    fc.assert(
      fc.property(long, fc.constantFrom(200, 600, 1000, 1200), (text, max) => {
        expect(truncate(text, max)).toBe(truncateByArray(text, max));
      }),
      { numRuns: 300 },
    );
  });
});
