/** npm run generate:prefilter: rewrites lambdas/core/prefilter.generated.ts from the rules and vocabularies. */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PREFILTER_MODULE, prefilterModule } from './prefilter-fragments';

const path = join(__dirname, '..', PREFILTER_MODULE);
const before = readFileSync(path, 'utf8');
const after = prefilterModule();
writeFileSync(path, after);
console.log(after === before ? `${PREFILTER_MODULE} already up to date` : `${PREFILTER_MODULE} rewritten`);
