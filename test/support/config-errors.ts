import { ConfigError, parseConfig } from '../../contracts/config';

/** The ConfigError message a document is refused with; fails the test if it is accepted. */
export function configErrorOf(document: unknown): string {
  try {
    parseConfig(document, 'test.json');
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error('the config was accepted');
}
