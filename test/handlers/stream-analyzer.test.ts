import { PublishCommand, type PublishCommandInput } from '@aws-sdk/client-sns';
import { gzipSync } from 'node:zlib';
import { findingIdOf } from '../../lambdas/core/incidents/aggregate';
import type { Finding } from '../../lambdas/core/findings/finding';
import { analyzeDocument, handler, type AnalyzerDeps } from '../../lambdas/handlers/analyzer';
import { analyzeStream } from '../../lambdas/handlers/stream-analyzer';
import { awslogsEvent, controlMessageEvent, kinesisEvent, subnetExhaustionLine } from '../support/awslogs';
import { testSettings } from '../support/aws';
import { ANALYZER_CONTEXT, findingOf, useHandlerHarness } from '../support/handler-harness';
import { settingsFileFor } from '../support/settings-file';

const aws = useHandlerHarness();
const { sns } = aws;

const ACCOUNTS = ['444455556666', '555566667777', '666677778888'] as const;
const SUBNET = 'subnet-0a1b2c3d4e5f60718';
const context = ANALYZER_CONTEXT;

/** Each spoke account lists its own cluster prod, with the same log group name (config: clusters by account). */
const deps = (): AnalyzerDeps =>
  aws.deps(
    {
      ...testSettings(aws.tableName),
      clusters: ACCOUNTS.map((account) => ({
        name: 'prod',
        account,
        logGroups: ['/eks/prod/karpenter'],
      })),
    },
    () => Date.parse('2026-11-28T02:21:00Z'),
  );
const published = () => aws.published();

/** The record data a spoke's subscription puts in the stream: one delivery of cluster prod's log group. */
const delivery = (owner: string, firstId = 1, lines = [subnetExhaustionLine(SUBNET)]): string =>
  awslogsEvent(lines, { owner, firstId, logGroup: '/eks/prod/karpenter' }).awslogs.data;

describe('stream analyzer', () => {
  it('gives a batch of three accounts’ deliveries one finding per account, each naming its account', async () => {
    const event = kinesisEvent(ACCOUNTS.map((account) => delivery(account)));

    const response = await analyzeStream(event, context, deps(), analyzeDocument);

    expect(response).toEqual({ batchItemFailures: [] });
    const findings = published();
    expect(findings.map((f) => [f.account, f.cluster, f.rule])).toEqual(
      ACCOUNTS.map((account) => [account, 'prod', 'subnet-ip-exhaustion']),
    );
    expect(findings.map((f) => f.findingId)).toEqual(
      ACCOUNTS.map((account) => findingIdOf('prod', 'subnet-ip-exhaustion', undefined, account)),
    );
    const detail = aws.entries().map((entry) => JSON.parse(entry.Detail!) as Finding);
    expect(detail.map((d) => d.account)).toEqual([...ACCOUNTS]);
  });

  it('counts and skips records that can never be read, and the destination health check, failing none', async () => {
    const shared = deps();
    const metric = jest.spyOn(shared.metrics, 'addMetric');
    const event = kinesisEvent([
      delivery(ACCOUNTS[0]),
      '%%% not base64 %%%',
      Buffer.from('base64 of something that is not gzip').toString('base64'),
      gzipSync('{"not":"a log document"}').toString('base64'),
      controlMessageEvent().awslogs.data,
      delivery(ACCOUNTS[1]),
    ]);

    const response = await analyzeStream(event, context, shared, analyzeDocument);

    expect(response.batchItemFailures).toEqual([]);
    expect(published().map((f) => f.account)).toEqual([ACCOUNTS[0], ACCOUNTS[1]]);
    expect(metric).toHaveBeenCalledWith('MalformedRecords', 'Count', 3);
  });

  it.each([
    ['no owner', ''],
    ['the CloudWatch Logs service as owner', 'CloudwatchLogs'],
    ['an owner that is not 12 digits', '1111222233'],
  ])('refuses a record with %s and counts it malformed, never the home cluster', async (_name, owner) => {
    const shared = aws.deps(
      {
        ...testSettings(aws.tableName),
        clusters: [{ name: 'prod', logGroups: ['/eks/prod/karpenter'] }],
      },
      () => Date.parse('2026-11-28T02:21:00Z'),
    );
    const metric = jest.spyOn(shared.metrics, 'addMetric');

    const response = await analyzeStream(kinesisEvent([delivery(owner)]), context, shared, analyzeDocument);

    expect(response.batchItemFailures).toEqual([]);
    expect(published()).toEqual([]);
    expect(metric).toHaveBeenCalledWith('MalformedRecords', 'Count', 1);
  });

  it('hands back only the record whose notice could not go out, and its retry notifies nothing twice', async () => {
    const failing = ACCOUNTS[1];
    let snsDown = true;
    sns.on(PublishCommand).callsFake((input: PublishCommandInput) => {
      if (snsDown && findingOf(input).account === failing) throw new Error('SNS is unavailable');
      return { MessageId: 'm-1' };
    });
    const event = kinesisEvent(ACCOUNTS.map((account) => delivery(account)));
    const records = event.Records;
    const shared = deps();

    const first = await analyzeStream(event, context, shared, analyzeDocument);

    expect(first.batchItemFailures).toEqual([{ itemIdentifier: records[1]!.kinesis.sequenceNumber }]);
    expect(published().map((f) => f.account)).toEqual([...ACCOUNTS]); // three attempts, one of them failed

    // The event source mapping retries from the failed record on, the records after it included.
    snsDown = false;
    sns.resetHistory();
    const retry = await analyzeStream({ Records: records.slice(1) }, context, shared, analyzeDocument);

    expect(retry.batchItemFailures).toEqual([]);
    // Only the notice that failed goes out; the third account's, already sent, is not sent again.
    expect(published().map((f) => f.account)).toEqual([failing]);

    // And a whole re-delivery of the batch (a replay) notifies nothing at all.
    sns.resetHistory();
    await analyzeStream(event, context, shared, analyzeDocument);
    expect(sns).not.toHaveReceivedCommand(PublishCommand);
  });

  it('is what the Lambda entry point runs for a Kinesis batch, answering with the partial batch response', async () => {
    process.env.INCIDENT_TABLE_NAME = aws.tableName;
    process.env.FINDINGS_TOPIC_ARN = testSettings(aws.tableName).topicArn;
    process.env.SETTINGS_FILE = settingsFileFor();
    try {
      const response = await handler(
        kinesisEvent(['%%%', controlMessageEvent().awslogs.data]) as never,
        {
          ...context,
          awsRequestId: 'req-1',
          functionName: 'karpenter-doctor-analyzer',
        } as never,
      );

      expect(response).toEqual({ batchItemFailures: [] });
    } finally {
      delete process.env.INCIDENT_TABLE_NAME;
      delete process.env.FINDINGS_TOPIC_ARN;
      delete process.env.SETTINGS_FILE;
    }
  });
});
