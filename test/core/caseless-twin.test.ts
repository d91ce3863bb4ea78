import fc from 'fast-check';
import { caselessTwin } from '../../lambdas/core/classify';
import { logRules } from '../../lambdas/core/rules';

// A rule's pattern is written for the lower-cased text; on an ASCII text the classifier runs its
// caseless twin on the text as it is instead of lower-casing it. These hold the twin to the pattern.

const rulePatterns = logRules().flatMap(({ recognition }) => (recognition.patterns ?? []).map((p) => p.pattern));

/** ASCII texts, capitals included, of the pieces given and any printable character. */
const asciiText = (pieces: string[]) =>
  fc
    .array(
      fc.oneof(
        fc.constantFrom(...pieces),
        fc.constantFrom(...pieces).map((piece) => piece.toUpperCase()),
        fc.integer({ min: 32, max: 126 }).map((code) => String.fromCharCode(code)),
        fc.constantFrom('\t', '\n', '\r', '0', '7', ' '),
      ),
      { maxLength: 30 },
    )
    .map((parts) => parts.join(''));

describe('caselessTwin', () => {
  it('gives every rule pattern a twin (so that no ASCII text is lower-cased for them)', () => {
    expect(rulePatterns.length).toBeGreaterThan(0);
    for (const pattern of rulePatterns) expect(caselessTwin(pattern)).toBeInstanceOf(RegExp);
  });

  it('property: each rule pattern’s twin holds on an ASCII text exactly where the pattern holds on it lower-cased', () => {
    for (const pattern of rulePatterns) {
      const twin = caselessTwin(pattern)!;
      // The pattern's own words, so that it holds often.
      const pieces = pattern.source.match(/[a-z]{2,}/g) ?? [];
      fc.assert(
        fc.property(asciiText([...pieces, ' in [', ' 3 insufficient cpu', 'Insufficient', '/', '.']), (text) => {
          expect(twin.test(text)).toBe(pattern.test(text.toLowerCase()));
        }),
        { numRuns: 1000 },
      );
    }
  });

  it('property: on generated lower-case patterns, the twin holds on an ASCII text where the pattern holds on it lower-cased', () => {
    const atom = fc.constantFrom(
      'a',
      'b',
      'z',
      ' ',
      '-',
      '[a-c]',
      '[^a-b]',
      '[a-z0-9./-]',
      '\\d',
      '\\s',
      '\\w',
      '\\W',
      '.',
      '\\[',
      '\\n',
      '\\t',
      '[^a-z0-9.]',
      '(?:^|[^a-z0-9])',
      '(?:ab|z)',
    );
    const quantified = fc.tuple(atom, fc.constantFrom('', '', '+', '?', '*', '{1,2}')).map(([a, q]) => a + q);
    const pattern = fc
      .array(fc.oneof(quantified, fc.constantFrom('\\b', '\\B', '^', '$')), { minLength: 1, maxLength: 6 })
      .map((parts) => new RegExp(parts.join('')));
    fc.assert(
      fc.property(pattern, asciiText(['ab', 'AB', 'Z', 'a-b', 'a.b']), (re, text) => {
        expect(caselessTwin(re)!.test(text)).toBe(re.test(text.toLowerCase()));
      }),
      { numRuns: 5000 },
    );
  });

  it('has no twin for a pattern that writes a capital, escapes one, or already has flags that change matching', () => {
    for (const pattern of [/[A-Z]/, /Error/, /\x41/, /\u0041/, /\cA/, /(?<Name>a)\k<Name>/, /a/i, /a/u, /a/g, /a/y]) {
      expect(caselessTwin(pattern)).toBeUndefined();
    }
    expect(caselessTwin(/\bnot in [a-z0-9./-]+ in \[/)?.flags).toBe('i');
    expect(caselessTwin(/\\x41\D\S\W/)?.source).toBe('\\\\x41\\D\\S\\W');
  });
});
