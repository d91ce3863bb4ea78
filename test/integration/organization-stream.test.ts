import { gzipSync } from 'node:zlib';
import { CreateTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EC2Client } from '@aws-sdk/client-ec2';
import { EventBridgeClient, PutEventsCommand, type PutEventsRequestEntry } from '@aws-sdk/client-eventbridge';
import { PublishCommand, SNSClient } from '@aws-sdk/client-sns';
import { AssumeRoleCommand, STSClient } from '@aws-sdk/client-sts';
import { mockClient } from 'aws-sdk-client-mock';
import { ENRICHMENT_ROLE_NAME, externalIdOf, spokeRoleArnOf } from '../../contracts/organization';
import type { Finding } from '../../lambdas/core/findings/finding';
import { analyzeDocument } from '../../lambdas/handlers/analyzer';
import type { AnalyzerDeps } from '../../lambdas/handlers/analyzer-deps';
import { analyzeStream } from '../../lambdas/handlers/stream-analyzer';
import { lazyAwsClients } from '../../lambdas/shared/aws-clients';
import { DEFAULT_LIMITS } from '../../lambdas/core/incidents/digest';
import { DEFAULT_SOURCES } from '../../lambdas/core/parse/karpenter-source';
import { DEFAULT_POLICY } from '../../lambdas/core/incidents/lifecycle';
import { awslogsEvent, controlMessageEvent, subnetExhaustionLine } from '../support/awslogs';
import { testObservability } from '../support/aws';
import { CREDENTIALS, REGION, startMoto, type Moto } from './support/moto';
import { Network, fromKarpenterPod } from './support/world';

/**
 * The organisation path on the wire: CloudWatch Logs documents of three spoke accounts put into a
 * Kinesis stream of the emulator, read back with GetRecords and handed to the stream analyzer as the
 * event source mapping would; enrichment assumes each spoke's role through the emulator's STS, whose
 * temporary credentials act in that account (moto keeps one state per account), so each finding shows
 * the free IPs of its own account's subnet. SNS and EventBridge are mocked at the SDK level: their
 * real path is covered by the other integration tests.
 */
const CENTRAL = '123456789012';
const SPOKES = ['444455556666', '555566667777', '666677778888'] as const;
const FUNCTION_ARN = `arn:aws:lambda:${REGION}:${CENTRAL}:function:karpenter-doctor-analyzer`;
const STREAM = 'karpenter-doctor-logs';

const sns = mockClient(SNSClient);
const events = mockClient(EventBridgeClient);

let moto: Moto;

beforeAll(async () => {
  moto = await startMoto();
  process.env.AWS_ENDPOINT_URL = moto.endpoint;
  process.env.AWS_ACCESS_KEY_ID = CREDENTIALS.accessKeyId;
  process.env.AWS_SECRET_ACCESS_KEY = CREDENTIALS.secretAccessKey;
  process.env.AWS_REGION = REGION;
});
afterAll(async () => {
  delete process.env.AWS_ENDPOINT_URL;
  await moto?.stop();
});

/** One call of Kinesis's JSON protocol, as the SDK would make it. */
async function kinesis<T>(action: string, body: Record<string, unknown>): Promise<T> {
  const response = await fetch(moto.endpoint, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/x-amz-json-1.1',
      'X-Amz-Target': `Kinesis_20131202.${action}`,
      Authorization: `AWS4-HMAC-SHA256 Credential=${CREDENTIALS.accessKeyId}/20261130/${REGION}/kinesis/aws4_request, SignedHeaders=host, Signature=0`,
    },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`Kinesis ${action}: ${response.status} ${text}`);
  return (text ? JSON.parse(text) : {}) as T;
}

/** The Lambda event the event source mapping makes of the records GetRecords returns. */
async function readBatch(): Promise<{ Records: unknown[] }> {
  const { StreamDescription } = await kinesis<{
    StreamDescription: { StreamARN: string; Shards: Array<{ ShardId: string }> };
  }>('DescribeStream', { StreamName: STREAM });
  const shard = StreamDescription.Shards[0]!.ShardId;
  const { ShardIterator } = await kinesis<{ ShardIterator: string }>('GetShardIterator', {
    StreamName: STREAM,
    ShardId: shard,
    ShardIteratorType: 'TRIM_HORIZON',
  });
  const { Records } = await kinesis<{
    Records: Array<{ Data: string; SequenceNumber: string; PartitionKey: string; ApproximateArrivalTimestamp: number }>;
  }>('GetRecords', { ShardIterator, Limit: 100 });
  return {
    Records: Records.map((record) => ({
      kinesis: {
        kinesisSchemaVersion: '1.0',
        partitionKey: record.PartitionKey,
        sequenceNumber: record.SequenceNumber,
        data: record.Data,
        approximateArrivalTimestamp: record.ApproximateArrivalTimestamp,
      },
      eventSource: 'aws:kinesis',
      eventVersion: '1.0',
      eventID: `${shard}:${record.SequenceNumber}`,
      eventName: 'aws:kinesis:record',
      invokeIdentityArn: `arn:aws:iam::${CENTRAL}:role/analyzer`,
      awsRegion: REGION,
      eventSourceARN: StreamDescription.StreamARN,
    })),
  };
}

/** EC2 of a spoke account, through its enrichment role as the analyzer assumes it. */
async function spokeEc2(account: string): Promise<EC2Client> {
  const { Credentials } = await new STSClient({ region: REGION }).send(
    new AssumeRoleCommand({
      RoleArn: spokeRoleArnOf('aws', account, ENRICHMENT_ROLE_NAME),
      RoleSessionName: 'test-setup',
      ExternalId: externalIdOf(CENTRAL),
    }),
  );
  return new EC2Client({
    region: REGION,
    credentials: {
      accessKeyId: Credentials!.AccessKeyId!,
      secretAccessKey: Credentials!.SecretAccessKey!,
      sessionToken: Credentials!.SessionToken!,
    },
  });
}

describe('the organisation stream on the emulator', () => {
  it('gives one finding per account with that account’s live subnet, skips poison, and a replay notifies nothing', async () => {
    await kinesis('CreateStream', { StreamName: STREAM, ShardCount: 1 });
    await new DynamoDBClient({ region: REGION }).send(
      new CreateTableCommand({
        TableName: 'incidents',
        KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
        AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
        BillingMode: 'PAY_PER_REQUEST',
      }),
    );
    // Each spoke has its own dry subnet, created in its own account of the emulator.
    const dry = new Map<string, string>();
    for (const [index, account] of SPOKES.entries()) {
      const network = await Network.create(await spokeEc2(account), `10.${index}.0.0/16`);
      const subnet = await network.subnet(`10.${index}.1.0/28`, `${REGION}a`, { 'karpenter.sh/discovery': 'prod' });
      await network.exhaust(subnet);
      dry.set(account, subnet);
    }

    const records = [
      ...SPOKES.map(
        (account) =>
          awslogsEvent([fromKarpenterPod(subnetExhaustionLine(dry.get(account)!))], {
            owner: account,
            logGroup: '/aws/containerinsights/prod/application',
          }).awslogs.data,
      ),
      Buffer.from('not gzip at all').toString('base64'),
      controlMessageEvent().awslogs.data,
    ];
    for (const [index, data] of records.entries()) {
      // The destination puts the gzip bytes; the JSON protocol carries them as base64, as Lambda does.
      await kinesis('PutRecord', { StreamName: STREAM, Data: data, PartitionKey: `p-${index}` });
    }
    // A record that was never a CloudWatch Logs document at all.
    await kinesis('PutRecord', {
      StreamName: STREAM,
      Data: gzipSync('{"hello":"world"}').toString('base64'),
      PartitionKey: 'p-x',
    });
    sns.on(PublishCommand).resolves({ MessageId: 'm' });
    events.on(PutEventsCommand).callsFake((input: { Entries: PutEventsRequestEntry[] }) => ({
      FailedEntryCount: 0,
      Entries: input.Entries.map(() => ({ EventId: 'e' })),
    }));
    const deps: AnalyzerDeps = {
      settings: {
        tableName: 'incidents',
        topicArn: `arn:aws:sns:${REGION}:${CENTRAL}:findings`,
        eventBusName: 'default',
        eventSource: 'io.karpenter-doctor',
        clusters: SPOKES.map((account) => ({
          name: 'prod',
          account,
          logGroups: ['/aws/containerinsights/prod/application'],
        })),
        policy: DEFAULT_POLICY,
        enrichBudgetMs: 20_000,
        limits: DEFAULT_LIMITS,
        sources: DEFAULT_SOURCES,
      },
      clients: lazyAwsClients({ region: REGION }),
      ...testObservability(),
      now: Date.now,
    };
    const context = { invokedFunctionArn: FUNCTION_ARN, getRemainingTimeInMillis: () => 60_000 };
    const batch = await readBatch();
    expect(batch.Records).toHaveLength(6);

    const response = await analyzeStream(batch, context, deps, analyzeDocument);

    expect(response).toEqual({ batchItemFailures: [] });
    const findings = sns
      .commandCalls(PublishCommand)
      .map((call) => JSON.parse(JSON.parse(call.args[0].input.Message!).default) as Finding);
    expect(findings.map((f) => f.account).sort()).toEqual([...SPOKES].sort());
    for (const finding of findings) {
      const subnet = dry.get(finding.account!)!;
      expect(finding.entities.subnets).toEqual([subnet]);
      // Read live in the finding's own account: its subnet, with no free address left.
      expect(finding.context.enrichmentErrors).toEqual([]);
      expect(finding.context.subnets?.find((s) => s.subnetId === subnet)?.availableIps).toBe(0);
      // Only its own account's subnet: the others, tagged alike, live in other accounts.
      expect(finding.context.subnets?.map((s) => s.subnetId)).toEqual([subnet]);
    }

    sns.resetHistory();
    const replay = await analyzeStream(await readBatch(), context, deps, analyzeDocument);
    expect(replay).toEqual({ batchItemFailures: [] });
    expect(sns.commandCalls(PublishCommand)).toHaveLength(0);
  });
});
