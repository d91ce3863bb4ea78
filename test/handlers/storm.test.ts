import { EC2Client } from '@aws-sdk/client-ec2';
import { EventBridgeClient, PutEventsCommand, type PutEventsRequestEntry } from '@aws-sdk/client-eventbridge';
import { PublishCommand, SNSClient } from '@aws-sdk/client-sns';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import 'aws-sdk-client-mock-jest';
import type { Digest } from '../../lambdas/core/incidents/digest';
import type { Finding } from '../../lambdas/core/findings/finding';
import { DEFAULT_LIMITS } from '../../lambdas/core/incidents/delivery-limits';
import { TAKEOVER_AFTER_MS } from '../../lambdas/core/incidents/lifecycle';
import { DEFAULT_SOURCES } from '../../lambdas/core/parse/karpenter-source';
import { analyzeSubscription, PublishError, type AnalyzerDeps } from '../../lambdas/handlers/analyzer';
import { awslogsEvent, subnetExhaustionLine } from '../support/awslogs';
import { testClients, testObservability, testSettings } from '../support/aws';
import { startDynalite, type LocalDynamo } from '../support/dynalite';
import { safeSuffix, untoleratedTaintEvent } from '../support/kube-events';

// Hundreds of incidents against a real local DynamoDB on a shared machine: generous, never timed.
jest.setTimeout(120_000);

const sns = mockClient(SNSClient);
const events = mockClient(EventBridgeClient);
const ec2 = mockClient(EC2Client);

const FUNCTION_ARN = 'arn:aws:lambda:eu-west-1:111122223333:function:karpenter-doctor-analyzer';
const T0 = Date.parse('2026-11-28T02:21:00Z');
const context = { invokedFunctionArn: FUNCTION_ARN, getRemainingTimeInMillis: () => 60_000 };

/** A line of another container in the shared application log group, as Fluent Bit ships it. */
const foreignLine = (message: string, namespace = 'shop', container = 'app') =>
  JSON.stringify({
    log: message,
    stream: 'stdout',
    kubernetes: {
      pod_name: `app-${safeSuffix(1, 10)}-${safeSuffix(2, 5)}`,
      namespace_name: namespace,
      container_name: container,
    },
  });

let dynamo: LocalDynamo;
let tableName: string;
let clock: number;

beforeAll(async () => {
  dynamo = await startDynalite();
});
afterAll(async () => {
  await dynamo.stop();
});

beforeEach(async () => {
  for (const mock of [sns, events, ec2]) mock.reset();
  tableName = await dynamo.createTable();
  clock = T0;
  sns.on(PublishCommand).resolves({ MessageId: 'c0ffee00-0000-4000-8000-000000000001' });
  events.on(PutEventsCommand).callsFake((input: { Entries: PutEventsRequestEntry[] }) => ({
    FailedEntryCount: 0,
    Entries: input.Entries.map((_, index) => ({ EventId: `evt-${index}` })),
  }));
  ec2.onAnyCommand().rejects(new Error('no EC2 in this test'));
});

/** Counts every DynamoDB call the handler makes, on the real local server. */
function counting(doc: DynamoDBDocumentClient): { client: DynamoDBDocumentClient; calls: () => number } {
  let calls = 0;
  const client = new Proxy(doc, {
    get(target, property, receiver) {
      if (property === 'send') {
        return (command: Parameters<DynamoDBDocumentClient['send']>[0]) => {
          calls++;
          return target.send(command);
        };
      }
      return Reflect.get(target, property, receiver) as unknown;
    },
  });
  return { client, calls: () => calls };
}

function deps(doc: DynamoDBDocumentClient = dynamo.doc, overrides: Partial<AnalyzerDeps> = {}): AnalyzerDeps {
  return {
    settings: testSettings(tableName),
    clients: testClients(doc),
    ...testObservability(),
    now: () => clock,
    sleep: async () => undefined,
    ...overrides,
  };
}

const messages = (): Array<{ default: unknown; subject: string }> =>
  sns.commandCalls(PublishCommand).map((call) => ({
    default: JSON.parse(JSON.parse(call.args[0].input.Message!).default as string) as unknown,
    subject: call.args[0].input.Subject!,
  }));
const isDigest = (value: unknown): value is Digest => (value as Digest).kind === 'digest';

describe('analyzer under a storm', () => {
  it('sends at most 6 notices for 300 failing workloads of 60 causes, and the digest accounts for every workload', async () => {
    const lines = Array.from({ length: 300 }, (_, i) => untoleratedTaintEvent(i, `team-${i % 60}`));

    const result = await analyzeSubscription(awslogsEvent(lines), context, deps());

    const sent = messages();
    expect(result).toMatchObject({ incidents: 60, notices: 5, digests: 1, untracked: 10 });
    expect(sent.length).toBeLessThanOrEqual(10);
    const findings = sent.map((m) => m.default).filter((d): d is Finding => !isDigest(d));
    const digests = sent.map((m) => m.default).filter(isDigest);
    expect(findings).toHaveLength(5);
    expect(digests).toHaveLength(1);
    const told = findings.reduce((sum, f) => sum + (f.entities.workloads?.length ?? 0), 0);
    const digested = digests[0]!.byRule.reduce((sum, r) => sum + r.workloads, 0);
    expect(told + digested).toBe(300);
    expect(digests[0]!.incidents).toBe(55);
    expect(digests[0]!.untracked).toBe(10);
    // Every stored incident has its event, so the remediator and other consumers miss nothing.
    expect(events.commandCalls(PutEventsCommand).flatMap((c) => c.args[0].input.Entries ?? [])).toHaveLength(50);
  });

  it('sends no second digest when the completed storm batch is delivered again', async () => {
    const event = awslogsEvent(Array.from({ length: 300 }, (_, i) => untoleratedTaintEvent(i, `team-${i % 60}`)));
    const shared = deps();
    await analyzeSubscription(event, context, shared);
    const sentFirst = messages().length;
    clock += 60_000;

    // The ten untracked incidents live in no incident item: only the batch marker remembers that this
    // delivery's digest went out.
    const again = await analyzeSubscription(event, context, shared);

    expect(again.outcome).toBe('duplicate');
    expect(messages()).toHaveLength(sentFirst);
    expect(
      messages()
        .map((m) => m.default)
        .filter(isDigest),
    ).toHaveLength(1);
  });

  it('makes 300 workloads failing on one taint one incident with all of them counted', async () => {
    const lines = Array.from({ length: 300 }, (_, i) => untoleratedTaintEvent(i, 'dedicated'));

    const result = await analyzeSubscription(awslogsEvent(lines), context, deps());

    expect(result).toMatchObject({ incidents: 1, notices: 1, digests: 0 });
    const [finding] = messages().map((m) => m.default as Finding);
    expect(finding).toMatchObject({ rule: 'scheduling-untolerated-taint', occurrences: 300 });
    expect(finding!.entities.taints).toEqual(['dedicated=true']);
  });

  it('keeps the AWS calls of a delivery bounded as distinct incidents grow', async () => {
    const curve: Array<{ incidents: number; dynamo: number; sns: number; putEvents: number }> = [];
    for (const size of [1, 10, 100, 1000, 8600]) {
      tableName = await dynamo.createTable();
      sns.resetHistory();
      events.resetHistory();
      const db = counting(dynamo.doc);
      const lines = Array.from({ length: size }, (_, i) => untoleratedTaintEvent(i, `t-${i}`));

      const result = await analyzeSubscription(awslogsEvent(lines), context, deps(db.client));

      expect(result.incidents).toBe(size);
      curve.push({
        incidents: size,
        dynamo: db.calls(),
        sns: sns.commandCalls(PublishCommand).length,
        putEvents: events.commandCalls(PutEventsCommand).length,
      });
    }
    const [one, ten, hundred, thousand, all] = curve;
    // Two of the calls are the cluster's notice window: read before, counted after (issue 32).
    expect(one).toEqual({ incidents: 1, dynamo: 7, sns: 1, putEvents: 1 });
    expect(ten!.sns).toBe(6);
    for (const point of [hundred, thousand, all]) {
      expect(point).toEqual({ ...hundred, incidents: point!.incidents });
    }
    expect(all!.dynamo + all!.sns + all!.putEvents).toBeLessThanOrEqual(120);
  });
});

describe('analyzer under a long storm', () => {
  it('sends at most 12 notices per hour for one delivery every 5 s of the same 60 causes, every workload told', async () => {
    // Ten incidents recorded per delivery keep the 780 deliveries quick on the local table; the 50
    // past that limit are the ones no incident item remembers (725 notices an hour before issue 32).
    const settings = { ...testSettings(tableName), limits: { ...DEFAULT_LIMITS, maxIncidentsPerDelivery: 10 } };
    const shared = deps(undefined, { settings });
    const lines = Array.from({ length: 60 }, (_, i) => untoleratedTaintEvent(i, `team-${i}`));
    const perHour = [0, 0];
    let before = 0;
    // Every 5 s for 65 minutes: the hour of the storm and the start of the next window.
    for (let delivery = 0; delivery < 780; delivery++) {
      clock = T0 + delivery * 5_000;
      await analyzeSubscription(awslogsEvent(lines, { firstId: delivery * 100 + 1, startMs: clock }), context, shared);
      const sent = sns.commandCalls(PublishCommand).length;
      perHour[Math.floor((clock - T0) / 3_600_000)]! += sent - before;
      before = sent;
    }

    expect(perHour[0]).toBeLessThanOrEqual(12);
    expect(perHour[1]).toBeLessThanOrEqual(12);
    const sent = messages().map((m) => m.default);
    const findings = sent.filter((d): d is Finding => !isDigest(d));
    const [first, ...later] = sent.filter(isDigest);
    // The five notices and the first digest tell all 60 workloads: 5 recorded incidents digested, 50 untracked.
    expect(findings).toHaveLength(5);
    expect(first).toMatchObject({ incidents: 55, untracked: 50 });
    expect(findings.reduce((sum, f) => sum + (f.entities.workloads?.length ?? 0), 0)).toBe(5);
    expect(first!.byRule.reduce((sum, r) => sum + r.workloads, 0)).toBe(55);
    // The untracked fifty are counted, not announced again, until the next window tells them once more.
    expect(later).toHaveLength(1);
    expect(later[0]).toMatchObject({ incidents: 50, untracked: 50 });
  }, 240_000);
});

describe('analyzer in a shared application log group', () => {
  it("counts and ignores other containers' lines, and still reads Karpenter's and the Events", async () => {
    const lines = [
      foreignLine(subnetExhaustionLine('subnet-0a1b2c3d4e5f60718')),
      foreignLine(subnetExhaustionLine('subnet-0a1b2c3d4e5f60718'), 'kube-system', 'aws-node'),
      foreignLine(subnetExhaustionLine('subnet-0b2c3d4e5f6071829'), 'karpenter', 'controller'),
      foreignLine(untoleratedTaintEvent(1, 'dedicated'), 'monitoring', 'event-exporter'),
      // Unread metadata proves nothing where every pod writes (issue 32).
      untoleratedTaintEvent(2, 'dedicated'),
      subnetExhaustionLine('subnet-0c3d4e5f607182930'),
    ];
    const settings = {
      ...testSettings(tableName),
      sources: { ...DEFAULT_SOURCES, eventExporters: { namespaces: ['monitoring'], containers: ['event-exporter'] } },
    };

    const result = await analyzeSubscription(
      awslogsEvent(lines, { logGroup: '/aws/containerinsights/prod/application' }),
      context,
      deps(undefined, { settings }),
    );

    expect(result.foreign).toBe(4);
    const rules = messages().map((m) => (m.default as Finding).rule);
    expect(rules.sort()).toEqual(['scheduling-untolerated-taint', 'subnet-ip-exhaustion']);
    const subnetFinding = messages()
      .map((m) => m.default as Finding)
      .find((f) => f.rule === 'subnet-ip-exhaustion');
    expect(subnetFinding!.entities.subnets).toEqual(['subnet-0b2c3d4e5f6071829']);
  });
});

describe('analyzer when SNS is down', () => {
  it('sends the open notice on the next delivery after three failed attempts, once', async () => {
    sns.on(PublishCommand).rejects(new Error('Service Unavailable'));
    const shared = deps();
    const first = awslogsEvent([untoleratedTaintEvent(1, 'dedicated')], { firstId: 1 });

    for (let attempt = 0; attempt < 3; attempt++) {
      await expect(analyzeSubscription(first, context, shared)).rejects.toBeInstanceOf(PublishError);
      clock += 30_000;
    }
    expect(sns).toHaveReceivedCommandTimes(PublishCommand, 3);

    sns.reset();
    sns.on(PublishCommand).resolves({ MessageId: 'c0ffee00-0000-4000-8000-000000000002' });
    clock = T0 + TAKEOVER_AFTER_MS + 5 * 60_000;
    await analyzeSubscription(awslogsEvent([untoleratedTaintEvent(2, 'dedicated')], { firstId: 100 }), context, shared);
    clock += 5 * 60_000;
    await analyzeSubscription(awslogsEvent([untoleratedTaintEvent(3, 'dedicated')], { firstId: 200 }), context, shared);

    const sent = messages().map((m) => m.default as Finding);
    expect(sent).toHaveLength(1);
    // The failed batch counted once (its retries are the same batch), the delivery that sent it once.
    expect(sent[0]).toMatchObject({ status: 'open', rule: 'scheduling-untolerated-taint', occurrences: 2 });
    // EventBridge took the event on the first attempt; it is not put again.
    expect(events.commandCalls(PutEventsCommand).flatMap((c) => c.args[0].input.Entries ?? [])).toHaveLength(1);
  });
});
