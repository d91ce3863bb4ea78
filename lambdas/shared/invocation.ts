import type { Logger } from '@aws-lambda-powertools/logger';
import type { Metrics } from '@aws-lambda-powertools/metrics';
import type { AwsClients } from './aws-clients';

/** The part of the Lambda context the functions use. */
export interface InvocationContext {
  invokedFunctionArn?: string;
  getRemainingTimeInMillis?: () => number;
}

/** Publishing failed for some notification; Lambda retries the invocation, which finishes only what is left. */
export class PublishError extends Error {
  override readonly name = 'PublishError';
}

/** What every function needs from outside, injected so that tests use mocks and a local table. */
export interface FunctionDeps<Settings> {
  settings: Settings;
  clients: AwsClients;
  logger: Logger;
  metrics: Metrics;
  now: () => number;
  /** Backoff between PutEvents attempts; tests pass one that does not wait. */
  sleep?: (ms: number) => Promise<void>;
}
