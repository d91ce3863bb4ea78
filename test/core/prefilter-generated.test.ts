import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseOrPlaceFragments, prefilterLists } from '../../lambdas/core/classify';
import { ENVELOPE_FRAGMENTS } from '../../lambdas/core/envelope-fragments.generated';
import { PREFILTER_FRAGMENTS } from '../../lambdas/core/prefilter.generated';
import { ENVELOPE_MODULE, PREFILTER_MODULE, envelopeModule, prefilterModule } from '../../scripts/prefilter-fragments';
import { ROOT } from '../helpers';

describe('the prefilters’ generated fragments', () => {
  it('are what the rules and vocabularies give now (npm run generate:prefilter)', () => {
    expect(readFileSync(join(ROOT, PREFILTER_MODULE), 'utf8')).toBe(prefilterModule());
  });

  it('are the lists the prefilters use', () => {
    const { prefilter, worthParsing } = prefilterLists();
    expect(PREFILTER_FRAGMENTS).toEqual(prefilter);
    // Whatever may classify is worth parsing.
    expect(prefilter.filter((fragment) => !worthParsing.includes(fragment))).toEqual([]);
  });

  it('give the envelope forms of what the pipeline’s prefilter looks for (npm run generate:prefilter)', () => {
    expect(readFileSync(join(ROOT, ENVELOPE_MODULE), 'utf8')).toBe(envelopeModule());
    const fragments = parseOrPlaceFragments();
    // One form per fragment: what JSON.stringify writes of it inside a string.
    expect(ENVELOPE_FRAGMENTS).toEqual([...new Set(fragments.map((f) => JSON.stringify(f).slice(1, -1)))]);
    // Escaped once more where a fragment holds a quote, a backslash or a tab, as the envelope writes them.
    expect(ENVELOPE_FRAGMENTS).toContain(String.raw`didn\\u0027t register on the node`);
    expect(ENVELOPE_FRAGMENTS).toContain(String.raw`\terror\t`);
  });
});
