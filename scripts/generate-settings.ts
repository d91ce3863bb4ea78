/** npm run generate:settings: rewrites contracts/settings-schema.generated.ts from the settings schema. */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SETTINGS_SCHEMA_MODULE, settingsSchemaModule } from './settings-schema';

const path = join(__dirname, '..', SETTINGS_SCHEMA_MODULE);
const before = readFileSync(path, 'utf8');
const after = settingsSchemaModule();
writeFileSync(path, after);
console.log(after === before ? `${SETTINGS_SCHEMA_MODULE} already up to date` : `${SETTINGS_SCHEMA_MODULE} rewritten`);
