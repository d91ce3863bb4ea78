/**
 * npm run generate: rewrites every generated file from its source (the rule modules, the settings
 * schema). Idempotent: a second run changes nothing. test/docs/generated.test.ts fails on a stale one.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { GENERATED } from './generated-files';

const root = join(__dirname, '..');
// The registry first: the other generators read the rules through it.
for (const { path, content } of GENERATED) {
  const file = join(root, path);
  let before = '';
  try {
    before = readFileSync(file, 'utf8');
  } catch {
    // New file.
  }
  const after = content();
  if (after !== before) writeFileSync(file, after);
  console.log(`${path} ${after === before ? 'up to date' : 'rewritten'}`);
}
