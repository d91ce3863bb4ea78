// One Lambda execution environment for a bundled asset, run as a child process by function.ts:
// the bundle's index.js is loaded once (a cold start) and its `handler` export is invoked for each
// message from the parent, so warm invocations share module state as they do in Lambda. The clock
// of the environment is the test's: every invocation says what time it is, and Date (Date.now and
// new Date()) follows from there, so lifecycle windows of minutes or hours pass without waiting.
'use strict';
const { join } = require('node:path');

const RealDate = Date;
let offsetMs = 0;
class EnvironmentDate extends RealDate {
  constructor(...args) {
    if (args.length === 0) super(RealDate.now() + offsetMs);
    else super(...args);
  }
  static now() {
    return RealDate.now() + offsetMs;
  }
}
globalThis.Date = EnvironmentDate;

const [assetDir, handlerName = 'index.handler'] = process.argv.slice(2);
const [file, exportName] = handlerName.split('.');
let handler;

process.on('message', async (message) => {
  const { id, event, at, context } = message;
  offsetMs = typeof at === 'number' ? at - RealDate.now() : 0;
  const deadline = RealDate.now() + context.timeoutMs;
  let reply;
  try {
    handler ??= require(join(assetDir, file))[exportName];
    const result = await handler(event, {
      functionName: context.functionName,
      invokedFunctionArn: context.invokedFunctionArn,
      awsRequestId: `${id}`,
      getRemainingTimeInMillis: () => Math.max(0, deadline - RealDate.now()),
    });
    reply = { id, ok: true, result: result === undefined ? null : result };
  } catch (error) {
    reply = { id, ok: false, error: { name: error?.name ?? 'Error', message: error?.message ?? String(error) } };
  }
  process.send(reply);
});

// The parent went away (test finished or crashed): an execution environment never outlives it.
process.on('disconnect', () => process.exit(0));
process.send({ ready: true });
