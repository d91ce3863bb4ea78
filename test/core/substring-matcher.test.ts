import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { fragments } from '../../lambdas/core/classify';
import { ENTITY_GATES } from '../../lambdas/core/entities';
import { SubstringMatcher } from '../../lambdas/core/substring-matcher';
import { loadSamples, ROOT } from '../helpers';
import { ReferenceSubstringMatcher } from '../support/substring-matcher-reference';

// `scan` (the patterns found as indexes, in WebAssembly where it is available, else in JavaScript)
// against the automaton as it was (test/support/substring-matcher-reference.ts): the same patterns,
// in the same order, which is the order the classifier adds its rules in.

/** What a scan found, in order, and every pattern's answer to `has` and `hasIndex`. */
function scanned(matcher: SubstringMatcher, text: string) {
  const found = matcher.scan(text);
  return {
    order: [...found],
    size: found.size,
    has: matcher.patterns.map((pattern) => found.has(pattern)),
    hasIndex: matcher.patterns.map((_, index) => found.hasIndex(index)),
  };
}

/** `scan` with and without WebAssembly, and `findAll`, against the reference on every text. */
function expectSameAsReference(patterns: string[], depth: number, texts: string[]): void {
  const reference = new ReferenceSubstringMatcher(patterns, depth);
  const native = new SubstringMatcher(patterns, depth);
  const loop = new SubstringMatcher(patterns, depth, false);
  for (const text of texts) {
    const expected = [...reference.findAll(text)];
    const expectedSet = new Set(expected);
    const wanted = {
      order: expected,
      size: expected.length,
      has: patterns.map((pattern) => expectedSet.has(pattern)),
      hasIndex: patterns.map((pattern) => expectedSet.has(pattern)),
    };
    expect(scanned(native, text)).toEqual(wanted);
    expect(scanned(loop, text)).toEqual(wanted);
    expect([...native.findAll(text)]).toEqual(expected);
  }
}

/** Flips the case of the letters where `flips` says so (cycled). */
const withCase = (text: string, flips: boolean[]) =>
  [...text]
    .map((char, i) =>
      flips[i % flips.length] ? (char === char.toLowerCase() ? char.toUpperCase() : char.toLowerCase()) : char,
    )
    .join('');

/**
 * Texts made of pieces: patterns (in any case, so nested and overlapping ones where they share
 * characters), pieces of patterns (which lead deep into the automaton and stop), filler from the
 * patterns' own alphabet, and characters outside ASCII (two-byte, three-byte, astral pairs, a lone
 * surrogate, NUL).
 */
const textOf = (patterns: string[], filler: fc.Arbitrary<string>) =>
  fc
    .array(
      fc.oneof(
        fc
          .tuple(fc.constantFrom(...patterns), fc.array(fc.boolean(), { minLength: 1, maxLength: 4 }))
          .map(([pattern, flips]) => withCase(pattern, flips)),
        fc
          .tuple(fc.constantFrom(...patterns), fc.nat(), fc.nat())
          .map(([pattern, a, b]) =>
            pattern.slice(Math.min(a, b) % pattern.length, Math.max(a, b) % (pattern.length + 1)),
          ),
        filler,
        fc.constantFrom('é', '\u0080', 'ÿ', '€', '😀', '\ud800', '\u0000', ' '),
      ),
      { maxLength: 40 },
    )
    .map((pieces) => pieces.join(''));

describe('SubstringMatcher.scan', () => {
  it.each([0, 1, 3, Infinity])(
    'property: finds what the reference findAll finds, in its order, on generated patterns and texts (complete rows to depth %s)',
    (depth) => {
      const alphabet = ['a', 'b', 'c', 'A', 'B', '-', ' ', ':'];
      fc.assert(
        fc.property(
          fc
            .array(
              fc.array(fc.constantFrom(...alphabet), { minLength: 1, maxLength: 6 }).map((chars) => chars.join('')),
              { minLength: 1, maxLength: 12 },
            )
            .chain((patterns) =>
              fc.tuple(
                fc.constant(patterns),
                fc.array(textOf(patterns, fc.constantFrom(...alphabet, 'x', 'Z')), { minLength: 1, maxLength: 4 }),
              ),
            ),
          ([patterns, texts]) => expectSameAsReference(patterns, depth, texts),
        ),
        { numRuns: 1500 },
      );
    },
  );

  it('property: finds what the reference findAll finds, in its order, with the classifier’s own patterns', () => {
    const patterns = [...new Set([...fragments(), ...ENTITY_GATES])];
    const reference = new ReferenceSubstringMatcher(patterns, 3);
    const native = new SubstringMatcher(patterns, 3);
    const loop = new SubstringMatcher(patterns, 3, false);
    const words = fc.constantFrom(
      'node',
      'nodeclaim',
      'failed',
      'the',
      'subnet-0abc',
      'i-0123',
      'us-west-2a',
      '"',
      '\\',
      '{',
    );
    fc.assert(
      fc.property(textOf(patterns, words), (text) => {
        const expected = [...reference.findAll(text)];
        expect([...native.scan(text)]).toEqual(expected);
        expect([...loop.scan(text)]).toEqual(expected);
      }),
      { numRuns: 3000 },
    );
  });

  it('finds what the reference findAll finds on every line of the examples and the shared samples', () => {
    const patterns = [...new Set([...fragments(), ...ENTITY_GATES])];
    const lines = [
      ...['karpenter-controller.log', 'kubernetes-events.jsonl'].flatMap((file) =>
        readFileSync(join(ROOT, 'examples', file), 'utf8').split('\n'),
      ),
      ...loadSamples().samples.map((sample) => sample.raw),
    ];
    expect(lines.length).toBeGreaterThan(100);
    const reference = new ReferenceSubstringMatcher(patterns, 3);
    const native = new SubstringMatcher(patterns, 3);
    const loop = new SubstringMatcher(patterns, 3, false);
    for (const line of lines) {
      const expected = [...reference.findAll(line)];
      expect([...native.scan(line)]).toEqual(expected);
      expect([...loop.scan(line)]).toEqual(expected);
    }
  });

  it('reuses one object: a scan answers for its own text only', () => {
    const matcher = new SubstringMatcher(['he', 'she', 'his', 'hers']);
    expect([...matcher.scan('uSHErs')]).toEqual(['she', 'he', 'hers']);
    const found = matcher.scan('this');
    expect([...found]).toEqual(['his']);
    expect(found.has('she')).toBe(false);
    expect(found.hasIndex(0)).toBe(false);
    expect(found.hasIndex(2)).toBe(true);
    expect(found.size).toBe(1);
    expect(matcher.scan('')).toHaveProperty('size', 0);
  });

  it('lists a pattern given twice once, as a set would, and finds it under both indexes', () => {
    const matcher = new SubstringMatcher(['ab', 'AB', 'ab', 'b']);
    const found = matcher.scan('xaB');
    expect([...found]).toEqual(['ab', 'AB', 'b']);
    expect(found.size).toBe(3);
    expect([0, 1, 2, 3].map((index) => found.hasIndex(index))).toEqual([true, true, true, true]);
    expect([...matcher.findAll('xaB')]).toEqual([
      ...new ReferenceSubstringMatcher(['ab', 'AB', 'ab', 'b']).findAll('xaB'),
    ]);
  });

  it('starts its marks again when the number of scans would overflow, and still lists every pattern', () => {
    const patterns = ['he', 'she', 'his', 'hers'];
    const reference = new ReferenceSubstringMatcher(patterns);
    for (const native of [true, false]) {
      const matcher = new SubstringMatcher(patterns, Infinity, native);
      // The first scan marks what it finds with 1, the number the scans start again from.
      matcher.scan('this');
      // The scans' numbers at their last value before they wrap (the finder's is a private field).
      const finder = (matcher as unknown as { nativeFind: { generation: number } | null }).nativeFind;
      expect(finder === null).toBe(!native);
      matcher.scan('').generation = 0x7ffffffe;
      if (finder) finder.generation = 0x7ffffffe;
      for (const text of ['this', 'ushers', 'this']) {
        expect([...matcher.scan(text)]).toEqual([...reference.findAll(text)]);
      }
    }
  });

  it('reads texts longer than its first memory, and leaves the longest to the loop', () => {
    const patterns = ['insufficient capacity', 'subnet-', 'i-'];
    const reference = new ReferenceSubstringMatcher(patterns);
    const native = new SubstringMatcher(patterns);
    const healthy = 'reconciled nodeclaim ok; '.repeat(4_000);
    // About 100 KB (past the first memory), then about 1.6 MB (past what the WebAssembly pass takes).
    for (const filler of [healthy, healthy.repeat(16)]) {
      for (const text of [filler, `${filler}Insufficient Capacity`, `subnet-1 ${filler}i-`]) {
        expect([...native.scan(text)]).toEqual([...reference.findAll(text)]);
      }
    }
    expect([...native.scan(`${healthy}subnet-`)]).toEqual(['subnet-']);
  });
});
