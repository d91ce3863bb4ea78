import { FILTER_TERMS_MODULE, filterTermsModule } from './filter-terms';
import { IDS_MODULE, idsModule, REGISTRY_MODULE, registryModule } from './rule-registry';
import { RULES_DOCUMENT, rulesDocument } from './rule-table';
import { SETTINGS_SCHEMA_MODULE, settingsSchemaModule } from './settings-schema';

/** Every generated file of the repository and how it is made, in the order `npm run generate` writes them. */
export const GENERATED: ReadonlyArray<{ path: string; content: () => string }> = [
  { path: IDS_MODULE, content: () => idsModule() },
  { path: REGISTRY_MODULE, content: () => registryModule() },
  { path: FILTER_TERMS_MODULE, content: filterTermsModule },
  { path: SETTINGS_SCHEMA_MODULE, content: settingsSchemaModule },
  { path: RULES_DOCUMENT, content: rulesDocument },
];
