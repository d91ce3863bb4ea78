/**
 * Rewrites docs/examples from the renderers:
 *   npm run docs:examples
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { docsExamples } from './docs-examples';

const out = join(__dirname, '..', 'docs', 'examples');
mkdirSync(out, { recursive: true });
for (const [name, content] of Object.entries(docsExamples())) writeFileSync(join(out, name), content);
console.log(`wrote ${Object.keys(docsExamples()).length} examples to ${out}`);
