import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseConfig } from '../../contracts/config';
import { functionSettingsOf, serializeSettings } from '../../contracts/settings';

/**
 * Writes the settings document the stack bundles beside a function for `config` into a temporary
 * file and returns its absolute path, for tests that run a handler entry point as Lambda would
 * (`SETTINGS_FILE` set to it).
 */
export function settingsFileFor(
  config: unknown = { clusters: [{ name: 'prod', logGroups: ['/aws/containerinsights/prod/application'] }] },
): string {
  const path = join(mkdtempSync(join(tmpdir(), 'karpenter-doctor-settings-')), 'settings.json');
  writeFileSync(path, serializeSettings(functionSettingsOf(parseConfig(config, 'test'))));
  return path;
}
