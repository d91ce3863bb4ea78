import type { Logger } from '@aws-lambda-powertools/logger';
import type { Metrics } from '@aws-lambda-powertools/metrics';
import type { Context } from 'aws-lambda';
import type { AwsClients } from './aws-clients';

/**
 * The part of the Lambda `Context` the functions read: the function ARN (account and region of the
 * deployment) and the time left. Tests pass only what they need; the entry points pass Lambda's own.
 */
export type InvocationContext = Partial<Pick<Context, 'invokedFunctionArn' | 'getRemainingTimeInMillis'>>;

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
