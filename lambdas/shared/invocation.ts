/** The part of the Lambda context the functions use. */
export interface InvocationContext {
  invokedFunctionArn?: string;
  getRemainingTimeInMillis?: () => number;
}

/** Publishing failed for some notification; Lambda retries the invocation, which finishes only what is left. */
export class PublishError extends Error {
  override readonly name = 'PublishError';
}
