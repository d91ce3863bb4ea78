/** npm run docs:rules: rewrites the rule table of docs/rules.md from the rule registry (test/docs/readme.test.ts keeps it true). */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { RULES_DOCUMENT, withRuleTable } from './rule-table';

const path = join(__dirname, '..', RULES_DOCUMENT);
const before = readFileSync(path, 'utf8');
const after = withRuleTable(before);
writeFileSync(path, after);
console.log(
  after === before ? `${RULES_DOCUMENT} rule table already up to date` : `${RULES_DOCUMENT} rule table rewritten`,
);
