/** npm run generate:prefilter: rewrites the generated fragment modules from the rules and vocabularies. */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ENVELOPE_MODULE, PREFILTER_MODULE, envelopeModule, prefilterModule } from './prefilter-fragments';

for (const [module, source] of [
  [PREFILTER_MODULE, prefilterModule],
  [ENVELOPE_MODULE, envelopeModule],
] as const) {
  const path = join(__dirname, '..', module);
  const before = readFileSync(path, { encoding: 'utf8', flag: 'a+' });
  const after = source();
  writeFileSync(path, after);
  console.log(after === before ? `${module} already up to date` : `${module} rewritten`);
}
