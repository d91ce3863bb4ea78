import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { RULES, RULE_IDS } from '../../lambdas/core/recognise/rules';
import { GENERATED } from '../../scripts/generated-files';
import { ROOT } from '../helpers';

describe('generated files', () => {
  it.each(GENERATED.map(({ path, content }) => [path, content] as const))(
    '%s is what `npm run generate` writes now (run it and commit the result)',
    (path, content) => {
      expect(readFileSync(join(ROOT, path), 'utf8')).toBe(content());
    },
  );

  it('registers every rule under the id its file is named by', () => {
    expect(RULE_IDS.filter((id) => RULES[id].info.id !== id)).toEqual([]);
  });
});
