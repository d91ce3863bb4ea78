import fc from 'fast-check';
import { SubstringMatcher } from '../../../lambdas/core/recognise/substring-matcher';

describe('SubstringMatcher', () => {
  const matcher = new SubstringMatcher(['he', 'she', 'his', 'hers', 'InsufficientCapacity']);

  it.each([
    ['uSHErs', ['he', 'she', 'hers']],
    ['ahishers', ['his', 'he', 'she', 'hers']],
    ['creating instance, insufficientcapacity', ['InsufficientCapacity']],
    ['h e r s', []],
    ['', []],
    ['héhe', ['he']],
  ])('finds in %j every pattern it holds, nested and overlapping, ASCII case ignored', (text, expected) => {
    expect(matcher.findAll(text).patterns().sort()).toEqual([...expected].sort());
    expect(matcher.test(text)).toBe(expected.length > 0);
  });

  it('gives each pattern found once, by its index, in the order first found', () => {
    const found = matcher.findAll('she said hers, she said');
    expect(found.indexes).toEqual([1, 0, 3]);
    expect(found.hasEvery([matcher.indexOf('she'), matcher.indexOf('hers')])).toBe(true);
    expect(found.hasEvery([matcher.indexOf('she'), matcher.indexOf('his')])).toBe(false);
    expect(found.hasSome([matcher.indexOf('his'), matcher.indexOf('he')])).toBe(true);
    expect(found.hasSome([matcher.indexOf('absent')])).toBe(false);
    expect(matcher.indexOf('absent')).toBe(-1);
  });

  it('refuses patterns it cannot match', () => {
    expect(() => new SubstringMatcher([''])).toThrow(/non-empty ASCII/);
    expect(() => new SubstringMatcher(['naïve'])).toThrow(/non-empty ASCII/);
  });

  it('property: finds exactly the patterns that a plain case-insensitive search finds', () => {
    const word = fc.string({ unit: fc.constantFrom('a', 'b', 'A', 'B', '-', ' '), minLength: 1, maxLength: 4 });
    fc.assert(
      fc.property(
        fc.uniqueArray(word, { minLength: 1, maxLength: 12 }),
        fc.array(word, { maxLength: 10 }),
        (patterns, parts) => {
          const text = parts.join('');
          const expected = patterns.filter((p) => text.toLowerCase().includes(p.toLowerCase()));
          expect(new SubstringMatcher(patterns).findAll(text).patterns().sort()).toEqual(expected.sort());
        },
      ),
      { numRuns: 500 },
    );
  });
});
