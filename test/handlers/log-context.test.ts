import type { Context } from 'aws-lambda';
import { handler } from '../../lambdas/handlers/analyzer';
import { settingsFileFor } from '../support/settings-file';

/**
 * The functions log through Powertools with the Lambda context: every line names the request and
 * says whether it ran on a cold start. Read from the lines the analyzer really writes, with the
 * environment the Lambda runtime sets.
 */

const ENV = {
  POWERTOOLS_LOG_LEVEL: 'INFO',
  AWS_LAMBDA_INITIALIZATION_TYPE: 'on-demand',
  INCIDENT_TABLE_NAME: 'karpenter-doctor-incidents',
  FINDINGS_TOPIC_ARN: 'arn:aws:sns:eu-west-1:111122223333:karpenter-doctor-findings',
  SETTINGS_FILE: settingsFileFor(),
};
const saved = Object.fromEntries(Object.keys(ENV).map((key) => [key, process.env[key]]));

const contextOf = (awsRequestId: string): Context =>
  ({
    awsRequestId,
    functionName: 'karpenter-doctor-analyzer',
    functionVersion: '$LATEST',
    invokedFunctionArn: 'arn:aws:lambda:eu-west-1:111122223333:function:karpenter-doctor-analyzer',
    memoryLimitInMB: '512',
    logGroupName: '/aws/lambda/karpenter-doctor-analyzer',
    logStreamName: '2026/11/30/[$LATEST]0123456789abcdef',
    callbackWaitsForEmptyEventLoop: true,
    getRemainingTimeInMillis: () => 60_000,
  }) as Context;

/** A subscription payload that is not base64 of gzip: the analyzer logs it as undecodable. */
const undecodable = { awslogs: { data: 'not a subscription payload!' } };

let lines: string[];
beforeEach(() => {
  Object.assign(process.env, ENV);
  lines = [];
  const capture = (chunk: string | Uint8Array): boolean => {
    lines.push(...String(chunk).split('\n').filter(Boolean));
    return true;
  };
  jest.spyOn(process.stdout, 'write').mockImplementation(capture);
  jest.spyOn(process.stderr, 'write').mockImplementation(capture);
});
afterEach(() => {
  jest.restoreAllMocks();
  for (const [key, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
});

describe('analyzer logs', () => {
  it('carry the request id of each invocation and the cold start of the first one only', async () => {
    await handler(undecodable as never, contextOf('req-1'));
    const first = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    lines.length = 0;
    await handler(undecodable as never, contextOf('req-2'));
    const second = lines.map((line) => JSON.parse(line) as Record<string, unknown>);

    expect(first.length).toBeGreaterThan(0);
    expect(second.length).toBeGreaterThan(0);
    for (const line of first) {
      expect(line).toMatchObject({ function_request_id: 'req-1', cold_start: true, service: 'analyzer' });
    }
    for (const line of second) {
      expect(line).toMatchObject({ function_request_id: 'req-2', cold_start: false });
    }
    expect(first[0]).toMatchObject({
      level: 'ERROR',
      message: 'Undecodable subscription payload skipped',
      function_name: 'karpenter-doctor-analyzer',
      function_arn: 'arn:aws:lambda:eu-west-1:111122223333:function:karpenter-doctor-analyzer',
    });
  });
});
