import { testedWhileItPays } from '../../../lambdas/core/parse/assemble';

/** The verdicts of `testedWhileItPays(keep)` over messages that `keep` keeps where `kept[i]` is true. */
function verdicts(kept: readonly boolean[]): boolean[] {
  const keep = testedWhileItPays((message) => message === 'kept');
  return kept.map((k) => keep(k ? 'kept' : 'skipped'));
}

const runOf = (length: number, kept: (i: number) => boolean) => Array.from({ length }, (_, i) => kept(i));

describe('testedWhileItPays (the prefilter, left out where it keeps nearly everything)', () => {
  it.each([
    ['skips every other record', (i: number) => i % 2 === 0],
    ['skips 1 in 7', (i: number) => i % 7 !== 0],
    ['keeps nothing', () => false],
    ['keeps 1 in 20', (i: number) => i % 20 === 0],
  ])('gives the prefilter’s own verdict on every record of a stream that %s', (_, kept) => {
    const stream = runOf(5000, kept);
    expect(verdicts(stream)).toEqual(stream);
  });

  it('never skips a record the prefilter keeps', () => {
    const stream = [...runOf(64, () => true), ...runOf(2000, (i) => i % 3 === 0), ...runOf(500, () => true)];
    const given = verdicts(stream);
    expect(stream.filter((kept, i) => kept && !given[i])).toEqual([]);
  });

  it('passes records untested after a round that kept 7 in 8, and tests each again once the stream turns healthy', () => {
    // A filtered delivery (every record kept), then the healthy bulk of an unfiltered log group.
    const stream = [...runOf(64, () => true), ...runOf(2000, () => false)];
    const given = verdicts(stream);
    // Right after the round, the healthy records are parsed (passed) but for one in 8 tested ...
    expect(given.slice(64, 72)).toEqual([true, true, true, true, true, true, true, false]);
    // ... and a round of 64 tested ones (512 records) later, every record is tested again.
    expect(given.slice(64 + 512)).toEqual(stream.slice(64 + 512));
  });
});
