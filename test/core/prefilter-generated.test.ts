import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { prefilterLists } from '../../lambdas/core/classify';
import { PREFILTER_FRAGMENTS } from '../../lambdas/core/prefilter.generated';
import { PREFILTER_MODULE, prefilterModule } from '../../scripts/prefilter-fragments';
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
});
