import fc from 'fast-check';
import {
  classify,
  fragments as allFragments,
  mayClassify,
  prefilterLists,
  worthParsing,
  worthParsingOrPlacement,
} from '../../lambdas/core/classify';
import { mayBePlacement } from '../../lambdas/core/resolution';
import { parseMessage } from '../../lambdas/core/parse';
import { SubstringMatcher } from '../../lambdas/core/substring-matcher';
import { fixture, loadSamples } from '../helpers';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../helpers';

const fragments = allFragments();

describe('SubstringMatcher', () => {
  it('finds any pattern, ignoring ASCII case, and nothing else', () => {
    const matcher = new SubstringMatcher(['he', 'she', 'his', 'hers']);
    expect(matcher.test('uSHErs')).toBe(true);
    expect(matcher.test('ahishers')).toBe(true);
    expect(matcher.test('h e r s')).toBe(false);
    expect(matcher.test('')).toBe(false);
  });

  // Shallow states have complete rows, deep ones their own edges and a failure link: every depth
  // of that split gives the same answers.
  it.each([0, 1, 3, Infinity])(
    'property: agrees with a naive search for every pattern (complete rows to depth %i)',
    (depth) => {
      const alphabet = fc.constantFrom('a', 'b', 'c', 'A', 'B', ' ', '-', 'é', '\u0000');
      fc.assert(
        fc.property(
          fc.array(
            fc.array(fc.constantFrom('a', 'b', 'c', ' ', '-'), { minLength: 1, maxLength: 5 }).map((a) => a.join('')),
            { minLength: 1, maxLength: 8 },
          ),
          fc.array(alphabet, { maxLength: 60 }).map((a) => a.join('')),
          (patterns, text) => {
            const naive = patterns.some((p) => text.replace(/[A-Z]/g, (c) => c.toLowerCase()).includes(p));
            expect(new SubstringMatcher(patterns, depth).test(text)).toBe(naive);
          },
        ),
        { numRuns: 2000 },
      );
    },
  );

  it.each([0, 1, 3, Infinity])(
    'property: findAll returns exactly the patterns a naive search finds, nested and overlapping ones too (complete rows to depth %i)',
    (depth) => {
      fc.assert(
        fc.property(
          fc.array(
            fc.array(fc.constantFrom('a', 'b', ' '), { minLength: 1, maxLength: 4 }).map((a) => a.join('')),
            { minLength: 1, maxLength: 8 },
          ),
          fc.array(fc.constantFrom('a', 'b', 'A', ' ', 'x'), { maxLength: 40 }).map((a) => a.join('')),
          (patterns, text) => {
            const lower = text.toLowerCase();
            const naive = new Set(patterns.filter((p) => lower.includes(p)));
            expect(new SubstringMatcher(patterns, depth).findAll(text)).toEqual(naive);
          },
        ),
        { numRuns: 2000 },
      );
    },
  );

  // The pipeline's prefilter runs `test` on a matcher whose every state has its row: in WebAssembly
  // over two or three overlapping parts of a long line (lambdas/core/native-scan.ts), else through a
  // loop of its own; the same patterns with rows only at the root go through the general step. On the
  // prefilter's own fragments in every raw form, inside every envelope, on pieces of them (which lead
  // deep into the automaton and stop), at any place in lines long and short, with characters outside
  // ASCII around them, the three give the same answer on every line.
  it('property: the WebAssembly pass, the loop for complete rows and the general step agree on the prefilter’s own fragments', () => {
    const patterns = prefilterLists().worthParsing;
    const native = new SubstringMatcher(patterns);
    const dense = new SubstringMatcher(patterns, Infinity, false);
    const sparse = new SubstringMatcher(patterns, 0);
    const envelopes: Array<(text: string) => string> = [
      (t) => t,
      (t) => JSON.stringify({ level: 'ERROR', message: 'failed', error: t }),
      (t) => JSON.stringify({ log: `2026-11-28T02:20:49Z stdout F ${JSON.stringify({ level: 'INFO', message: t })}` }),
      (t) => `2026-11-28T02:20:49.824913Z stderr F ${t}`,
      (t) => `2026-11-28T02:20:49.824Z\tINFO\tcontroller\t${t}\t{"commit":"x"}`,
      (t) =>
        JSON.stringify({ message: t }).replace(/[<>&']/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`),
    ];
    const piece = fc
      .tuple(fc.constantFrom(...patterns), fc.nat(), fc.nat(), fc.boolean())
      .map(([pattern, start, length, whole]) =>
        whole
          ? pattern
          : pattern.slice(start % pattern.length, (start % pattern.length) + 1 + (length % pattern.length)),
      );
    const filler = fc.oneof(
      fc.string({ maxLength: 12 }),
      fc.string({ unit: 'binary', maxLength: 200 }),
      fc.string({ unit: fc.constantFrom('a', 'é', '€', '😀', '\ud800', ' ', '"', '\\'), maxLength: 300 }),
      fc.constantFrom('é', '\u0000', '\\"', '"'),
    );
    fc.assert(
      fc.property(
        fc.array(fc.oneof(piece, filler), { maxLength: 8 }),
        fc.nat(envelopes.length - 1),
        fc.boolean(),
        (pieces, envelope, upper) => {
          const text = pieces.join(upper ? ' ' : '');
          const line = envelopes[envelope]!(upper ? text.toUpperCase() : text);
          const expected = sparse.test(line);
          expect(dense.test(line)).toBe(expected);
          expect(native.test(line)).toBe(expected);
        },
      ),
      { numRuns: 5000 },
    );
  });

  it('property: the WebAssembly pass finds a fragment wherever it stands in a long line, across the parts’ seams', () => {
    const patterns = prefilterLists().worthParsing;
    const native = new SubstringMatcher(patterns);
    const dense = new SubstringMatcher(patterns, Infinity, false);
    fc.assert(
      fc.property(
        fc.constantFrom(...patterns),
        fc.integer({ min: 0, max: 900 }),
        fc.integer({ min: 0, max: 900 }),
        fc.constantFrom('x', 'é', '😀', '\ud800'),
        (pattern, before, after, pad) => {
          const line = `${pad.repeat(before)}${pattern}${'x'.repeat(after)}`;
          expect(native.test(line)).toBe(true);
          expect(native.test(line.slice(0, -1 - after))).toBe(dense.test(line.slice(0, -1 - after)));
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('the WebAssembly pass reads lines longer than its first memory, and leaves the longest to the loop', () => {
    const patterns = prefilterLists().worthParsing;
    const native = new SubstringMatcher(patterns);
    for (const length of [70_000, 300_000, 2_000_000]) {
      const healthy = 'é'.repeat(length);
      expect(native.test(healthy)).toBe(false);
      expect(native.test(`${healthy}${patterns[0]!}`)).toBe(true);
      expect(native.test(`${healthy.slice(0, length / 2)}${patterns[1]!}${healthy}`)).toBe(true);
    }
  });

  it('refuses patterns it cannot match', () => {
    expect(() => new SubstringMatcher([''])).toThrow(/non-empty ASCII/);
    expect(() => new SubstringMatcher(['naïve'])).toThrow(/non-empty ASCII/);
  });
});

describe('mayClassify (the prefilter before parsing)', () => {
  const yields = (line: string) => {
    const record = parseMessage(line, { line: 1 });
    return record ? classify(record).length > 0 : false;
  };

  it('keeps every line of the samples and examples that yields a signal', () => {
    const lines = [
      ...loadSamples().samples.map((s) => s.raw),
      ...readFileSync(join(ROOT, 'examples', 'karpenter-controller.log'), 'utf8').split('\n'),
      ...readFileSync(join(ROOT, 'examples', 'kubernetes-events.jsonl'), 'utf8').split('\n'),
      ...fixture('karpenter-samples.jsonl')
        .split('\n')
        .filter(Boolean)
        .map((l) => (JSON.parse(l) as { raw: string }).raw),
    ].filter(Boolean);
    const lost = lines.filter((line) => yields(line) && !mayClassify(line));
    expect(lost).toEqual([]);
  });

  it('skips most healthy Karpenter lines', () => {
    const healthy = readFileSync(join(ROOT, 'examples', 'karpenter-controller.log'), 'utf8')
      .split('\n')
      .filter((line) => line && !yields(line));
    expect(healthy.filter(mayClassify).length / healthy.length).toBeLessThan(0.05);
  });

  it('property: a fragment inside any envelope, however escaped, is never skipped', () => {
    const envelopes: Array<(text: string) => string> = [
      (t) => t,
      (t) => JSON.stringify({ level: 'ERROR', message: 'failed', error: t }),
      (t) => JSON.stringify({ log: `2026-11-28T02:20:49Z stdout F ${JSON.stringify({ level: 'INFO', message: t })}` }),
      (t) => JSON.stringify({ reason: 'Unconsolidatable', message: t, involvedObject: { kind: 'Node', name: 'n' } }),
      (t) => `2026-11-28T02:20:49.824Z\tERROR\tcontroller\t${t}\t{"commit":"x"}`,
      (t) =>
        JSON.stringify({ message: t }).replace(/[<>&']/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`),
    ];
    fc.assert(
      fc.property(
        fc.constantFrom(...fragments),
        fc.string({ maxLength: 20 }),
        fc.string({ maxLength: 20 }),
        fc.nat(envelopes.length - 1),
        fc.boolean(),
        (fragment, before, after, envelope, upper) => {
          const text = `${before} ${upper ? fragment.toUpperCase() : fragment} ${after}`;
          const line = envelopes[envelope]!(text);
          if (yields(line)) expect(mayClassify(line)).toBe(true);
        },
      ),
      { numRuns: 3000 },
    );
  });
});

describe('worthParsingOrPlacement (the pipeline’s prefilter, one pass)', () => {
  it('keeps every line worthParsing or mayBePlacement keeps, placements in any case, and skips healthy lines', () => {
    const lines = [
      ...loadSamples().samples.map((s) => s.raw),
      ...readFileSync(join(ROOT, 'examples', 'karpenter-controller.log'), 'utf8').split('\n'),
      ...readFileSync(join(ROOT, 'examples', 'kubernetes-events.jsonl'), 'utf8').split('\n'),
      '3m   Normal   Nominated   pod/web-1   Pod should schedule on: nodeclaim/default-abcde',
      '{"reason":"Scheduled","message":"Successfully assigned default/web-1 to ip-10-0-1-2.ec2.internal"}',
      'E1105 10:00:00.000000       1 reflector.go:1] widget failed',
      'Warning  SomethingNew  pod/web-1  a new kind of failure',
    ].filter(Boolean);
    const lost = lines.filter((line) => (worthParsing(line) || mayBePlacement(line)) && !worthParsingOrPlacement(line));
    expect(lost).toEqual([]);
    expect(worthParsingOrPlacement('3m Normal NOMINATED pod/web-1 x')).toBe(true);
    expect(worthParsingOrPlacement('{"level":"INFO","message":"found provisionable pod(s)"}')).toBe(false);
  });
});
