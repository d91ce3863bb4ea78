import { gzipSync } from 'node:zlib';
import { DescribeSubnetsCommand, DescribeVpcsCommand, EC2Client } from '@aws-sdk/client-ec2';
import { EKSClient, ListNodegroupsCommand } from '@aws-sdk/client-eks';
import { EventBridgeClient, PutEventsCommand, type PutEventsRequestEntry } from '@aws-sdk/client-eventbridge';
import { GetServiceQuotaCommand, ServiceQuotasClient } from '@aws-sdk/client-service-quotas';
import { PublishCommand, SNSClient } from '@aws-sdk/client-sns';
import { mockClient } from 'aws-sdk-client-mock';
import fc from 'fast-check';
import { analyzeSubscription, type AnalyzerDeps } from '../../lambdas/handlers/analyzer';
import { loadSamples } from '../helpers';
import { testClients, testObservability, testSettings } from '../support/aws';
import { startDynalite, type LocalDynamo } from '../support/dynalite';

/**
 * Thousands of mutated real payloads through the handler, AWS mocked and the store local: truncated
 * gzip, bad base64, invalid UTF-8, huge lines, deep JSON, `__proto__` keys and wrong types in every
 * field. The handler must never throw or hang (each run has five seconds), and must count every
 * record it could not read.
 */

// Thousands of runs, many of them writing to the local store: minutes, not the default five seconds.
jest.setTimeout(180_000);

const ec2 = mockClient(EC2Client);
const eks = mockClient(EKSClient);
const quotas = mockClient(ServiceQuotasClient);
const sns = mockClient(SNSClient);
const events = mockClient(EventBridgeClient);

let dynamo: LocalDynamo;
let deps: AnalyzerDeps;
const context = {
  invokedFunctionArn: 'arn:aws:lambda:eu-west-1:111122223333:function:fuzz',
  getRemainingTimeInMillis: () => 60_000,
};
const REAL_LINES = loadSamples().samples.map((s) => s.raw);

beforeAll(async () => {
  dynamo = await startDynalite();
  ec2.on(DescribeSubnetsCommand).resolves({ Subnets: [] });
  ec2.on(DescribeVpcsCommand).resolves({ Vpcs: [] });
  eks.on(ListNodegroupsCommand).resolves({ nodegroups: [] });
  quotas.on(GetServiceQuotaCommand).resolves({ Quota: { Value: 64 } });
  sns.on(PublishCommand).resolves({ MessageId: 'm' });
  events.on(PutEventsCommand).callsFake((input: { Entries: PutEventsRequestEntry[] }) => ({
    FailedEntryCount: 0,
    Entries: input.Entries.map(() => ({ EventId: 'e' })),
  }));
  deps = {
    settings: { ...testSettings(await dynamo.createTable()), enrichBudgetMs: 1_000 },
    clients: testClients(dynamo.doc),
    ...testObservability('fuzz'),
    now: () => Date.parse('2026-11-28T03:00:00Z'),
    sleep: async () => undefined,
  };
});
afterAll(async () => {
  await dynamo.stop();
});

const documentOf = (messages: unknown[], extra: Record<string, unknown> = {}) => ({
  messageType: 'DATA_MESSAGE',
  owner: '111122223333',
  logGroup: '/eks/prod/karpenter',
  logStream: 'fuzz',
  subscriptionFilters: ['karpenter-doctor'],
  logEvents: messages.map((message, i) => ({ id: String(i), timestamp: 1_795_000_000_000 + i, message })),
  ...extra,
});
const encode = (json: string | Buffer) => gzipSync(json).toString('base64');
const eventOf = (data: unknown) => ({ awslogs: { data } });

const realMessages = fc.array(fc.constantFrom(...REAL_LINES), { minLength: 1, maxLength: 8 });

describe('the analyzer handler under fuzzing', () => {
  it('counts undecodable payloads: truncated gzip, bad base64, random bytes', async () => {
    await fc.assert(
      fc.asyncProperty(
        realMessages,
        fc.oneof(
          fc.record({ kind: fc.constant('truncate'), at: fc.nat() }),
          fc.record({ kind: fc.constant('garble'), at: fc.nat(), text: fc.string({ minLength: 1, maxLength: 8 }) }),
          fc.record({ kind: fc.constant('random'), bytes: fc.uint8Array({ maxLength: 200 }) }),
        ),
        async (messages, mutation) => {
          const gz = gzipSync(JSON.stringify(documentOf(messages)));
          let data: string;
          if (mutation.kind === 'truncate') data = gz.subarray(0, mutation.at % gz.length).toString('base64');
          else if (mutation.kind === 'random') data = Buffer.from(mutation.bytes).toString('base64');
          else {
            const b64 = gz.toString('base64');
            const at = mutation.at % b64.length;
            data = `${b64.slice(0, at)}${mutation.text}${b64.slice(at)}`;
          }
          const result = await analyzeSubscription(eventOf(data), context, deps);
          // Either it still decodes (the mutation was harmless) or it is counted as one malformed payload.
          if (result.outcome === 'malformed') expect(result.malformed).toBe(1);
          else expect(['processed', 'no-findings', 'duplicate']).toContain(result.outcome);
        },
      ),
      { numRuns: 1500, seed: 20261129, timeout: 5_000 },
    );
  });

  it('counts every event of the wrong shape and reads the rest', async () => {
    const wrong = fc.oneof(
      fc.constant(null),
      fc.integer(),
      fc.string(),
      fc.array(fc.string(), { maxLength: 3 }),
      fc.record({
        id: fc.string(),
        timestamp: fc.integer(),
        message: fc.oneof(fc.integer(), fc.constant(null), fc.object()),
      }),
    );
    await fc.assert(
      fc.asyncProperty(realMessages, fc.array(wrong, { maxLength: 6 }), async (messages, bad) => {
        const document = documentOf(messages);
        const logEvents = [...document.logEvents, ...bad];
        const result = await analyzeSubscription(
          eventOf(encode(JSON.stringify({ ...document, logEvents }))),
          context,
          deps,
        );
        expect(result.malformed).toBe(bad.length);
        expect(result.records).toBeGreaterThanOrEqual(1);
      }),
      { numRuns: 800, seed: 7, timeout: 5_000 },
    );
  });

  it('survives wrong types in every field of the document', async () => {
    const anyValue = fc.oneof(
      fc.constant(null),
      fc.integer(),
      fc.string(),
      fc.boolean(),
      fc.object({ maxDepth: 2 }),
      fc.array(fc.integer(), { maxLength: 3 }),
    );
    const fields = ['messageType', 'owner', 'logGroup', 'logStream', 'subscriptionFilters', 'logEvents'] as const;
    await fc.assert(
      fc.asyncProperty(realMessages, fc.constantFrom(...fields), anyValue, async (messages, field, value) => {
        const result = await analyzeSubscription(
          eventOf(encode(JSON.stringify(documentOf(messages, { [field]: value })))),
          context,
          deps,
        );
        expect(['malformed', 'unmapped', 'processed', 'no-findings', 'duplicate', 'control']).toContain(result.outcome);
      }),
      { numRuns: 1200, seed: 11, timeout: 5_000 },
    );
  });

  it('survives invalid UTF-8, __proto__ keys, deep JSON and huge lines', async () => {
    const hostile = fc.oneof(
      fc.uint8Array({ minLength: 1, maxLength: 300 }).map((bytes) => {
        // Real lines with raw bytes spliced in; gunzip output is then not valid UTF-8.
        const json = Buffer.from(JSON.stringify(documentOf([REAL_LINES[bytes.length % REAL_LINES.length]!])));
        return Buffer.concat([json.subarray(0, json.length - 40), Buffer.from(bytes), json.subarray(json.length - 40)]);
      }),
      fc
        .constantFrom(...REAL_LINES)
        .map((line) =>
          Buffer.from(
            JSON.stringify(documentOf([line])).replace(
              '"messageType"',
              '"__proto__":{"polluted":true},"constructor":{"prototype":{"x":1}},"messageType"',
            ),
          ),
        ),
      fc
        .integer({ min: 1000, max: 20_000 })
        .map((depth) =>
          Buffer.from(
            JSON.stringify(
              documentOf([
                `${'['.repeat(depth)}${']'.repeat(depth)}`,
                `{"level":"ERROR","error":${'{"a":'.repeat(500)}1${'}'.repeat(500)}}`,
              ]),
            ),
          ),
        ),
      fc
        .constantFrom(...REAL_LINES)
        .map((line) =>
          Buffer.from(JSON.stringify(documentOf([`${line} ${'x'.repeat(256 * 1024)}`, 'x'.repeat(300 * 1024)]))),
        ),
      fc
        .integer({ min: 1, max: 10_000 })
        .map((n) =>
          Buffer.from(
            JSON.stringify(documentOf(Array.from({ length: n }, (_, i) => String.fromCharCode(97 + (i % 26))))),
          ),
        ),
    );
    await fc.assert(
      fc.asyncProperty(hostile, async (payload) => {
        const result = await analyzeSubscription(eventOf(encode(payload)), context, deps);
        expect(['malformed', 'processed', 'no-findings', 'duplicate']).toContain(result.outcome);
        expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      }),
      { numRuns: 300, seed: 3, timeout: 5_000 },
    );
  });
});
