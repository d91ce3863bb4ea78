import fc from 'fast-check';
import { ENVELOPE_AUTOMATON } from '../../lambdas/core/envelope-automaton.generated';
import { CLASSES, PATTERNS } from '../../lambdas/core/envelope-index';
import {
  automatonOf,
  EnvelopeScan,
  fingerprintOf,
  prebuiltAutomaton,
  prebuiltDataOf,
  type PrebuiltAutomaton,
} from '../../lambdas/core/envelope-scan';

/**
 * The delivery decoder's automaton ships built ahead (scripts/generate-envelope-automaton.ts): it
 * must be exactly the one the decoder would build, and be used only for the patterns it was built for.
 */
describe('the envelope automaton built ahead', () => {
  it('is the automaton of the decoder’s patterns now (npm run generate:envelope)', () => {
    expect(ENVELOPE_AUTOMATON.fingerprint).toBe(fingerprintOf(PATTERNS, CLASSES));
    const built = automatonOf(PATTERNS, CLASSES);
    const prebuilt = prebuiltAutomaton(ENVELOPE_AUTOMATON, PATTERNS, CLASSES);
    expect(prebuilt).toBeDefined();
    expect(prebuilt!.shift).toBe(built.shift);
    expect(prebuilt!.longest).toBe(built.longest);
    const bytes = (array: ArrayBufferView) => Buffer.from(array.buffer, array.byteOffset, array.byteLength);
    // Compared as bytes: 1.9 MB element by element is slow to diff.
    expect(bytes(prebuilt!.table).equals(bytes(built.table))).toBe(true);
    expect(bytes(prebuilt!.classes).equals(bytes(built.classes))).toBe(true);
    expect(bytes(prebuilt!.symbols).equals(bytes(built.symbols))).toBe(true);
  });

  it('is not used for other patterns or classes, nor when its data is damaged', () => {
    expect(prebuiltAutomaton(ENVELOPE_AUTOMATON, PATTERNS.slice(1), CLASSES.slice(1))).toBeUndefined();
    expect(prebuiltAutomaton(ENVELOPE_AUTOMATON, [...PATTERNS.slice(0, -1), 'x'], CLASSES)).toBeUndefined();
    expect(
      prebuiltAutomaton(
        ENVELOPE_AUTOMATON,
        PATTERNS,
        CLASSES.map((c, i) => (i === 0 ? c ^ 2 : c)),
      ),
    ).toBeUndefined();
    const damaged: PrebuiltAutomaton = { ...ENVELOPE_AUTOMATON, data: ENVELOPE_AUTOMATON.data.slice(0, -3) };
    expect(prebuiltAutomaton(damaged, PATTERNS, CLASSES)).toBeUndefined();
    const otherShape: PrebuiltAutomaton = { ...ENVELOPE_AUTOMATON, states: ENVELOPE_AUTOMATON.states - 1 };
    expect(prebuiltAutomaton(otherShape, PATTERNS, CLASSES)).toBeUndefined();
  });

  it('gives a scanner that finds what one built finds, for any patterns it was made from', () => {
    const pattern = fc.stringMatching(/^[\x01-\x7f]{1,6}$/);
    fc.assert(
      fc.property(
        fc.array(pattern, { minLength: 1, maxLength: 12 }),
        fc.uint8Array({ maxLength: 400 }),
        (patterns, bytes) => {
          const classes = patterns.map((_, i) => 1 << (i % 3));
          const built = automatonOf(patterns, classes);
          const prebuilt: PrebuiltAutomaton = {
            fingerprint: fingerprintOf(patterns, classes),
            states: built.classes.length,
            shift: built.shift,
            longest: built.longest,
            data: [prebuiltDataOf(built).toString('base64')],
          };
          const hitsOf = (scan: EnvelopeScan) => {
            const hits = scan.hits(bytes, bytes.length + 1)!;
            return [
              Array.from(hits.positions.subarray(0, hits.count)),
              Array.from(hits.classes.subarray(0, hits.count)),
            ];
          };
          expect(hitsOf(EnvelopeScan.of(patterns, classes, prebuilt)!)).toEqual(
            hitsOf(EnvelopeScan.of(patterns, classes)!),
          );
        },
      ),
      { numRuns: 200 },
    );
  });

  it('tells pattern lists apart by their fingerprint', () => {
    // Any characters, NUL included: a pattern is told from two that join into it.
    const list = fc.array(fc.string({ unit: 'binary', maxLength: 8 }), { maxLength: 10 });
    fc.assert(
      fc.property(list, list, (a, b) => {
        fc.pre(JSON.stringify(a) !== JSON.stringify(b));
        expect(fingerprintOf(a)).not.toBe(fingerprintOf(b));
      }),
      { numRuns: 500 },
    );
    expect(fingerprintOf(['a\u0000b', 'c'])).not.toBe(fingerprintOf(['a', 'b\u0000c']));
    expect(fingerprintOf(['a', 'b'], [1, 2])).not.toBe(fingerprintOf(['a', 'b'], [2, 1]));
  });
});
