import { ConfigError, parseConfig } from '../../contracts/config';

/** The ConfigError message a document is refused with; fails the test if it is accepted. */
export function configErrorOf(document: unknown): string {
  return refusalOf(() => parseConfig(document, 'test.json'));
}

/** The ConfigError message `parse` throws; fails the test if it returns. */
export function refusalOf(parse: () => unknown): string {
  try {
    parse();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error('the config was accepted');
}
