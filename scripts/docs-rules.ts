/** npm run docs:rules: rewrites the README rule table from the rule registry (test/docs/readme.test.ts keeps it true). */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { withRuleTable } from './rule-table';

const path = join(__dirname, '..', 'README.md');
const before = readFileSync(path, 'utf8');
const after = withRuleTable(before);
writeFileSync(path, after);
console.log(after === before ? 'README.md rule table already up to date' : 'README.md rule table rewritten');
