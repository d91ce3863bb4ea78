import { parseSettings, SettingsError, type FunctionSettings } from '../../contracts/settings';

/**
 * The settings parsed by the zod schema (which fills defaults), or the message naming each bad key.
 * A message, not the error: bundled in a file of its own, this module has its own copy of
 * `SettingsError`, and the caller throws its own.
 */
export function parseSettingsFully(text: string, source: string): FunctionSettings | string {
  try {
    return parseSettings(text, source);
  } catch (error) {
    if (error instanceof SettingsError) return error.message;
    throw error;
  }
}
