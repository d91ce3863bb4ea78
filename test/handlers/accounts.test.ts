import { DescribeSubnetsCommand, DescribeVpcsCommand, EC2Client } from '@aws-sdk/client-ec2';
import { EventBridgeClient, PutEventsCommand, type PutEventsRequestEntry } from '@aws-sdk/client-eventbridge';
import { PublishCommand, SNSClient } from '@aws-sdk/client-sns';
import { mockClient } from 'aws-sdk-client-mock';
import 'aws-sdk-client-mock-jest';
import { IncidentStore } from '../../lambdas/adapters/incident-store';
import { findingIdOf } from '../../lambdas/core/aggregate';
import type { Finding } from '../../lambdas/core/finding';
import { analyzeSubscription, type AnalyzerDeps } from '../../lambdas/handlers/analyzer';
import { awslogsEvent, subnetExhaustionLine } from '../support/awslogs';
import { ACCOUNT, testClients, testObservability, testSettings } from '../support/aws';
import { startDynalite, type LocalDynamo } from '../support/dynalite';

const ec2 = mockClient(EC2Client);
const sns = mockClient(SNSClient);
const events = mockClient(EventBridgeClient);

const SPOKE = '444455556666';
const SUBNET = 'subnet-0a1b2c3d4e5f60718';
const context = {
  invokedFunctionArn: `arn:aws:lambda:eu-west-1:${ACCOUNT}:function:karpenter-doctor-analyzer`,
  getRemainingTimeInMillis: () => 60_000,
};

let dynamo: LocalDynamo;
let tableName: string;

beforeAll(async () => {
  dynamo = await startDynalite();
});
afterAll(async () => {
  await dynamo.stop();
});
beforeEach(async () => {
  for (const mock of [ec2, sns, events]) mock.reset();
  tableName = await dynamo.createTable();
  sns.on(PublishCommand).resolves({ MessageId: 'm-1' });
  events.on(PutEventsCommand).callsFake((input: { Entries: PutEventsRequestEntry[] }) => ({
    FailedEntryCount: 0,
    Entries: input.Entries.map((_, index) => ({ EventId: `evt-${index}` })),
  }));
  ec2.on(DescribeSubnetsCommand).resolves({ Subnets: [] });
  ec2.on(DescribeVpcsCommand).resolves({ Vpcs: [] });
});

const deps = (): AnalyzerDeps => ({
  settings: {
    ...testSettings(tableName),
    // A cluster prod in each account, with log groups of the same name: two clusters.
    clusters: [
      { name: 'prod', logGroups: ['/aws/containerinsights/prod/application'] },
      { name: 'prod', account: SPOKE, logGroups: ['/aws/containerinsights/prod/application'] },
    ],
  },
  clients: testClients(dynamo.doc),
  ...testObservability(),
  now: () => Date.parse('2026-11-28T02:21:00Z'),
  sleep: async () => undefined,
});
const published = (): Finding[] =>
  sns.commandCalls(PublishCommand).map((call) => JSON.parse(JSON.parse(call.args[0].input.Message!).default));
const entries = (): PutEventsRequestEntry[] =>
  events.commandCalls(PutEventsCommand).flatMap((call) => call.args[0].input.Entries ?? []);

describe('analyzer across accounts', () => {
  it('keeps the same failure of cluster prod in the home account and in another account as two incidents', async () => {
    const shared = deps();
    // The very same delivery (log group, stream, event ids) once from each account.
    const lines = [subnetExhaustionLine(SUBNET)];

    const home = await analyzeSubscription(awslogsEvent(lines, { owner: ACCOUNT }), context, shared);
    const spoke = await analyzeSubscription(awslogsEvent(lines, { owner: SPOKE }), context, shared);

    expect(home).toMatchObject({ outcome: 'processed', cluster: 'prod' });
    expect(home.account).toBeUndefined();
    expect(spoke).toMatchObject({ outcome: 'processed', cluster: 'prod', account: SPOKE });
    const findings = published();
    expect(findings.map((f) => [f.cluster, f.account, f.status])).toEqual([
      ['prod', ACCOUNT, 'open'],
      ['prod', SPOKE, 'open'],
    ]);
    expect(findings[0]!.findingId).toBe(findingIdOf('prod', 'subnet-ip-exhaustion', undefined));
    expect(findings[1]!.findingId).toBe(findingIdOf('prod', 'subnet-ip-exhaustion', undefined, SPOKE));
    const store = new IncidentStore(dynamo.doc, tableName);
    expect((await store.get(findings[1]!.findingId))?.account).toBe(SPOKE);
    // The event of the spoke's finding names the spoke's cluster and subnet.
    const resources = entries().map((e) => e.Resources ?? []);
    expect(resources[1]).toEqual(
      expect.arrayContaining([
        `arn:aws:eks:eu-west-1:${SPOKE}:cluster/prod`,
        `arn:aws:ec2:eu-west-1:${SPOKE}:subnet/${SUBNET}`,
      ]),
    );
    expect(resources[0]).toContain(`arn:aws:eks:eu-west-1:${ACCOUNT}:cluster/prod`);
  });

  it('still takes a re-delivery from the other account as a duplicate', async () => {
    const shared = deps();
    const event = awslogsEvent([subnetExhaustionLine(SUBNET)], { owner: SPOKE });

    await analyzeSubscription(event, context, shared);
    const again = await analyzeSubscription(event, context, shared);

    expect(again.outcome).toBe('duplicate');
    expect(sns).toHaveReceivedCommandTimes(PublishCommand, 1);
  });
});
