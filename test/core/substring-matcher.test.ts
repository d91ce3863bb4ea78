import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { fragments } from '../../lambdas/core/classify';
import { ENTITY_GATES } from '../../lambdas/core/entities';
import { type Found, SubstringMatcher } from '../../lambdas/core/substring-matcher';
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

/** Short patterns over a small alphabet, capitals among them, and texts made of them (`textOf`). */
const PATTERN_ALPHABET = ['a', 'b', 'c', 'A', 'B', '-', ' ', ':'];
const patternsAndTexts = (texts: { minLength?: number; maxLength: number }) =>
  fc
    .array(
      fc.array(fc.constantFrom(...PATTERN_ALPHABET), { minLength: 1, maxLength: 6 }).map((chars) => chars.join('')),
      { minLength: 1, maxLength: 12 },
    )
    .chain((patterns) =>
      fc.tuple(
        fc.constant(patterns),
        fc.array(textOf(patterns, fc.constantFrom(...PATTERN_ALPHABET, 'x', 'Z')), texts),
      ),
    );

describe('SubstringMatcher.scan', () => {
  it.each([0, 1, 3, Infinity])(
    'property: finds what the reference findAll finds, in its order, on generated patterns and texts (complete rows to depth %s)',
    (depth) => {
      fc.assert(
        fc.property(patternsAndTexts({ minLength: 1, maxLength: 4 }), ([patterns, texts]) =>
          expectSameAsReference(patterns, depth, texts),
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

// `scanEach` (in WebAssembly the texts copied many at once, then each scanned where it was copied)
// against the reference's findAll of each text.
describe('SubstringMatcher.scanEach', () => {
  /** What scanEach gives for each text, in the order it visits them. */
  function scannedEach(matcher: SubstringMatcher, texts: string[]) {
    const seen: Array<{ index: number; order: string[]; hasIndex: boolean[] }> = [];
    matcher.scanEach(texts, (index, found) =>
      seen.push({ index, order: [...found], hasIndex: matcher.patterns.map((_, i) => found.hasIndex(i)) }),
    );
    return seen;
  }
  function expectEachAsReference(patterns: string[], depth: number, texts: string[]): void {
    const reference = new ReferenceSubstringMatcher(patterns, depth);
    const wanted = texts.map((text, index) => {
      const order = [...reference.findAll(text)];
      const set = new Set(order);
      return { index, order, hasIndex: patterns.map((pattern) => set.has(pattern)) };
    });
    expect(scannedEach(new SubstringMatcher(patterns, depth), texts)).toEqual(wanted);
    expect(scannedEach(new SubstringMatcher(patterns, depth, false), texts)).toEqual(wanted);
  }

  it.each([0, 3, Infinity])(
    'property: finds in each text what the reference findAll finds, in its order (complete rows to depth %s)',
    (depth) => {
      fc.assert(
        // Up to two copies of many texts, empty ones among them.
        fc.property(patternsAndTexts({ maxLength: 80 }), ([patterns, texts]) =>
          expectEachAsReference(patterns, depth, texts),
        ),
        { numRuns: 400 },
      );
    },
  );

  it('property: finds in each text what scan finds, with the classifier’s own patterns, long texts among short ones', () => {
    const patterns = [...new Set([...fragments(), ...ENTITY_GATES])];
    const matcher = new SubstringMatcher(patterns, 3);
    const reference = new ReferenceSubstringMatcher(patterns, 3);
    const words = fc.constantFrom('node', 'nodeclaim', 'failed', 'subnet-0abc', 'i-0123', 'us-west-2a', '"', '{');
    const text = fc.oneof(
      { weight: 8, arbitrary: textOf(patterns, words) },
      // Long texts (in several parts) among short ones.
      { weight: 1, arbitrary: textOf(patterns, words).map((t) => `${t}${'x'.repeat(2100)}${t}`) },
    );
    fc.assert(
      fc.property(fc.array(text, { maxLength: 70 }), (texts) => {
        const seen: string[][] = [];
        matcher.scanEach(texts, (index, found) => {
          expect(index).toBe(seen.length);
          seen.push([...found]);
        });
        expect(seen).toEqual(texts.map((t) => [...reference.findAll(t)]));
      }),
      { numRuns: 300 },
    );
  });

  it('copies the texts again after a visit scans with the same matcher, and takes the longest texts alone', () => {
    const patterns = ['insufficient capacity', 'subnet-', 'i-', 'he', 'she', 'hers'];
    const reference = new ReferenceSubstringMatcher(patterns);
    const long = 'reconciled nodeclaim ok; '.repeat(2_000);
    const texts = ['she i-1', 'subnet-9 he', 'Insufficient Capacity', '', 'ushe', `${long}subnet-`, 'i-2 hers'];
    // Longer than the first texts: scanned in a visit, it is copied over those after them.
    const between = `${'z'.repeat(60)} hers`;
    for (const native of [true, false]) {
      const matcher = new SubstringMatcher(patterns, Infinity, native);
      const all = [...texts, `subnet-2 ${long.repeat(40)}he`, ...texts];
      const seen: string[][] = [];
      matcher.scanEach(all, (index, found) => {
        seen.push([...found]);
        if (index % 3 === 0) expect([...matcher.scan(between)]).toEqual([...reference.findAll(between)]);
      });
      expect(seen).toEqual(all.map((text) => [...reference.findAll(text)]));
    }
  });

  it('starts its marks again when the scans’ numbers would overflow within a batch', () => {
    const patterns = ['he', 'she', 'his', 'hers'];
    const reference = new ReferenceSubstringMatcher(patterns);
    const matcher = new SubstringMatcher(patterns);
    matcher.scan('this');
    const finder = (matcher as unknown as { nativeFind: { generation: number } }).nativeFind;
    finder.generation = 0x7fffffff - 5;
    const texts = ['this', 'ushers', '', 'this', 'she', 'his', 'hers', 'ushers', 'this', 'x'];
    for (let round = 0; round < 3; round++) {
      const seen: string[][] = [];
      matcher.scanEach(texts, (_, found) => seen.push([...found]));
      expect(seen).toEqual(texts.map((t) => [...reference.findAll(t)]));
    }
  });
});

// `Found.places` (where each pattern found ends, first and last): read from the WebAssembly pass on an
// ASCII text, which the entity extractor uses instead of looking for its anchors again.
describe('Found.places', () => {
  /** Where each pattern ends in a text, first and last (ASCII case ignored), by a plain search; undefined when absent. */
  function expectedEnds(patterns: readonly string[], text: string): Array<[number, number] | undefined> {
    const lower = text.toLowerCase();
    return patterns.map((pattern) => {
      const needle = pattern.toLowerCase();
      const first = lower.indexOf(needle);
      if (first === -1) return undefined;
      return [first + needle.length - 1, lower.lastIndexOf(needle) + needle.length - 1];
    });
  }
  /** Where the scan says each pattern ends; undefined where it says none, or 'none' when it gives no places. */
  function placesOf(patterns: readonly string[], found: Found): Array<[number, number] | undefined> | 'none' {
    const places = found.places;
    if (places === undefined) return 'none';
    return patterns.map((_, index) => (places.ends(index) ? [places.firstEnd, places.lastEnd] : undefined));
  }
  const asciiOnly = (text: string) => !/[^\x00-\x7f]/.test(text);

  it('property: first and last end of every pattern, in short and long texts (several parts), by scan and by scanEach', () => {
    const patterns = [...new Set([...fragments(), ...ENTITY_GATES])];
    const matcher = new SubstringMatcher(patterns, 3);
    const words = fc.constantFrom('node', 'nodeclaim', 'failed', 'subnet-0abc', 'i-0123', 'us-west-2a', '"', '{');
    const text = fc.oneof(
      { weight: 6, arbitrary: textOf(patterns, words) },
      { weight: 2, arbitrary: textOf(patterns, words).map((t) => `${t}${'x'.repeat(90)}${t}${'y'.repeat(70)}${t}`) },
      { weight: 1, arbitrary: textOf(patterns, words).map((t) => `${t}${'x'.repeat(2100)}${t}`) },
    );
    fc.assert(
      fc.property(fc.array(text, { minLength: 1, maxLength: 20 }), (texts) => {
        for (const t of texts) {
          const found = matcher.scan(t);
          expect(placesOf(patterns, found)).toEqual(asciiOnly(t) ? expectedEnds(patterns, t) : 'none');
        }
        const seen: Array<ReturnType<typeof placesOf>> = [];
        matcher.scanEach(texts, (_, found) => seen.push(placesOf(patterns, found)));
        // A batch copied together gives places when all its texts are ASCII (and none otherwise).
        const all = texts.every(asciiOnly);
        texts.forEach((t, i) => {
          if (all) expect(seen[i]).toEqual(expectedEnds(patterns, t));
          else if (seen[i] !== 'none') expect(seen[i]).toEqual(expectedEnds(patterns, t));
        });
      }),
      { numRuns: 300 },
    );
  });

  it('property: on generated patterns over a small alphabet, every part count', () => {
    fc.assert(
      fc.property(patternsAndTexts({ minLength: 1, maxLength: 6 }), ([patterns, texts]) => {
        const matcher = new SubstringMatcher(patterns);
        for (const t of [...texts, texts.join('x'.repeat(13)), texts.join('').repeat(5)]) {
          const found = matcher.scan(t);
          expect(placesOf(patterns, found)).toEqual(asciiOnly(t) ? expectedEnds(patterns, t) : 'none');
        }
      }),
      { numRuns: 1500 },
    );
  });

  it('gives the places of texts longer than its first memory (after the memory grows), then of short ones again', () => {
    const patterns = ['subnet-', 'i-', 'insufficient capacity'];
    const matcher = new SubstringMatcher(patterns);
    const short = 'x Insufficient Capacity subnet-1 i-2 subnet-3';
    const long = `i-0 ${'reconciled nodeclaim ok; '.repeat(8_000)}subnet-9 ${short}`;
    for (const text of [short, long, short, `${long}${long}`]) {
      expect(placesOf(patterns, matcher.scan(text))).toEqual(expectedEnds(patterns, text));
      const seen: Array<ReturnType<typeof placesOf>> = [];
      matcher.scanEach([text, short], (_, found) => seen.push(placesOf(patterns, found)));
      expect(seen).toEqual([expectedEnds(patterns, text), expectedEnds(patterns, short)]);
    }
  });

  it('gives no places from the JavaScript pass', () => {
    const matcher = new SubstringMatcher(['he', 'she'], Infinity, false);
    expect(matcher.scan('ushers').places).toBeUndefined();
  });
});
