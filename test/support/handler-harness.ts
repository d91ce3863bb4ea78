import { DescribeSubnetsCommand, DescribeVpcsCommand, EC2Client } from '@aws-sdk/client-ec2';
import { EventBridgeClient, PutEventsCommand, type PutEventsRequestEntry } from '@aws-sdk/client-eventbridge';
import { PublishCommand, SNSClient, type PublishCommandInput } from '@aws-sdk/client-sns';
import { mockClient } from 'aws-sdk-client-mock';
import 'aws-sdk-client-mock-jest';
import type { Finding } from '../../lambdas/core/findings/finding';
import type { FunctionDeps } from '../../lambdas/shared/invocation';
import { ACCOUNT, REGION, testClients, testObservability } from './aws';
import { startDynalite, type LocalDynamo } from './dynalite';

/** The invocation context of the analyzer in the home account, with a minute left. */
export const ANALYZER_CONTEXT = {
  invokedFunctionArn: `arn:aws:lambda:${REGION}:${ACCOUNT}:function:karpenter-doctor-analyzer`,
  getRemainingTimeInMillis: () => 60_000,
};

/** The finding (or digest) of one SNS publish: the `default` message of the JSON message structure. */
export const findingOf = (input: PublishCommandInput): Finding =>
  JSON.parse(JSON.parse(input.Message!).default) as Finding;

/**
 * The setup every handler test shares, registered in the calling file's hooks: one local DynamoDB
 * server for the file and a fresh table per test; EC2, SNS and EventBridge mocked at the SDK level
 * and reset before each test, SNS and EventBridge accepting every message, EC2 describing no subnet
 * and no VPC. A file's own `beforeEach` runs after this one, so it can answer otherwise.
 */
export function useHandlerHarness() {
  const ec2 = mockClient(EC2Client);
  const sns = mockClient(SNSClient);
  const events = mockClient(EventBridgeClient);
  let dynamo: LocalDynamo | undefined;
  let tableName = '';

  beforeAll(async () => {
    dynamo = await startDynalite();
  });
  afterAll(async () => {
    await dynamo?.stop();
  });
  beforeEach(async () => {
    for (const mock of [ec2, sns, events]) mock.reset();
    tableName = await dynamo!.createTable();
    sns.on(PublishCommand).resolves({ MessageId: 'm-1' });
    events.on(PutEventsCommand).callsFake((input: { Entries: PutEventsRequestEntry[] }) => ({
      FailedEntryCount: 0,
      Entries: input.Entries.map((_, index) => ({ EventId: `evt-${index}` })),
    }));
    ec2.on(DescribeSubnetsCommand).resolves({ Subnets: [] });
    ec2.on(DescribeVpcsCommand).resolves({ Vpcs: [] });
  });

  return {
    ec2,
    sns,
    events,
    /** The local DynamoDB server (inside a test or hook). */
    get dynamo(): LocalDynamo {
      return dynamo!;
    },
    /** This test's table. */
    get tableName(): string {
      return tableName;
    },
    /** What a function needs, with these settings and clock, on the mocked clients and this test's table. */
    deps<Settings>(settings: Settings, now: () => number): FunctionDeps<Settings> {
      return {
        settings,
        clients: testClients(dynamo!.doc),
        ...testObservability(),
        now,
        sleep: async () => undefined,
      };
    },
    /** Every finding (or digest) published to SNS so far, in order. */
    published(): Finding[] {
      return sns.commandCalls(PublishCommand).map((call) => findingOf(call.args[0].input));
    },
    /** Every EventBridge entry put so far, in order. */
    entries(): PutEventsRequestEntry[] {
      return events.commandCalls(PutEventsCommand).flatMap((call) => call.args[0].input.Entries ?? []);
    },
  };
}
