import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { docsExamples } from '../../scripts/docs-examples';
import { ROOT } from '../helpers';

describe('docs/examples', () => {
  it.each(Object.entries(docsExamples()))(
    '%s matches what the renderers produce (npm run docs:examples)',
    (name, content) => {
      expect(readFileSync(join(ROOT, 'docs', 'examples', name), 'utf8')).toBe(content);
    },
  );
});
