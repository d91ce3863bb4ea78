/** Missing or invalid settings: a deployment error, reported with the path of each bad key. */
export class SettingsError extends Error {
  override readonly name = 'SettingsError';
}
