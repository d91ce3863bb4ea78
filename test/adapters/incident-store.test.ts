import { PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { MAX_EVENT_COUNTS, type EventCount, type Incident } from '../../lambdas/core/incidents/aggregate';
import { DEFAULT_POLICY } from '../../lambdas/core/incidents/lifecycle';
import { IncidentStore } from '../../lambdas/adapters/incident-store';
import { startDynalite, type LocalDynamo } from '../support/dynalite';

const T0 = Date.parse('2026-11-28T02:00:00Z');
const incident = (findingId: string, occurrences = 1): Incident => ({
  findingId,
  cluster: 'prod',
  rule: 'subnet-ip-exhaustion',
  occurrences,
  entities: { subnets: ['subnet-a'] },
  evidence: [{ message: 'InsufficientFreeAddressesInSubnet' }],
});

let dynamo: LocalDynamo;
let store: IncidentStore;

beforeAll(async () => {
  dynamo = await startDynalite();
});
afterAll(async () => {
  await dynamo.stop();
});
beforeEach(async () => {
  store = new IncidentStore(dynamo.doc, await dynamo.createTable());
});

describe('IncidentStore batch claims', () => {
  it('claims a new batch, reports it busy while held, and done once completed', async () => {
    expect(await store.claimBatch('b1', T0, 60_000)).toBe('claimed');
    expect(await store.claimBatch('b1', T0 + 1_000, 60_000)).toBe('busy');

    await store.completeBatch('b1');

    expect(await store.claimBatch('b1', T0 + 2_000, 60_000)).toBe('done');
  });

  it('lets the retry of a released batch claim it at once', async () => {
    await store.claimBatch('b1', T0, 60_000);
    await store.releaseBatch('b1');

    expect(await store.claimBatch('b1', T0 + 1_000, 60_000)).toBe('claimed');
  });

  it('lets a batch be claimed again after the lease of a crashed invocation ran out', async () => {
    await store.claimBatch('b1', T0, 60_000);

    expect(await store.claimBatch('b1', T0 + 61_000, 60_000)).toBe('claimed');
  });

  it('grants a batch to exactly one of many concurrent claims', async () => {
    const claims = await Promise.all(Array.from({ length: 8 }, () => store.claimBatch('b-race', T0, 60_000)));

    expect(claims.filter((c) => c === 'claimed')).toHaveLength(1);
    expect(claims.filter((c) => c === 'busy')).toHaveLength(7);
  });
});

describe('IncidentStore.record', () => {
  it('decides new, then ongoing, and accumulates occurrences', async () => {
    const [first] = await store.record(
      [{ incident: incident('f1', 3), severity: 'critical' }],
      'b1',
      T0,
      DEFAULT_POLICY,
    );
    const [second] = await store.record(
      [{ incident: incident('f1', 4), severity: 'critical' }],
      'b2',
      T0 + 60_000,
      DEFAULT_POLICY,
    );

    expect(first?.outcome.kind).toBe('notify');
    expect(second?.outcome.kind).toBe('ongoing');
    expect((await store.get('f1'))?.occurrences).toBe(7);
  });

  it('counts every one of many concurrent batches exactly once and notifies once', async () => {
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        store.record([{ incident: incident('f-race', 10), severity: 'critical' }], `b${i}`, T0 + i, DEFAULT_POLICY),
      ),
    );

    const outcomes = results.flat().map((r) => r.outcome.kind);
    expect(outcomes.filter((k) => k === 'notify')).toHaveLength(1);
    expect((await store.get('f-race'))?.occurrences).toBe(60);
  });

  it('treats an item past its expiry as a new incident even though TTL has not deleted it', async () => {
    await store.record([{ incident: incident('f-old', 5), severity: 'critical' }], 'b1', T0, DEFAULT_POLICY);
    const later = T0 + DEFAULT_POLICY.retainForMs + 60_000;

    const [result] = await store.record(
      [{ incident: incident('f-old', 2), severity: 'critical' }],
      'b2',
      later,
      DEFAULT_POLICY,
    );

    expect(result?.outcome).toMatchObject({ kind: 'notify', notify: { reason: 'new' } });
    expect((await store.get('f-old'))?.occurrences).toBe(2);
  });

  it('reads more incidents than one BatchGetItem takes', async () => {
    const many = Array.from({ length: 130 }, (_, i) => ({ incident: incident(`f-${i}`), severity: 'low' as const }));
    await store.record(many, 'b1', T0, DEFAULT_POLICY);

    const loaded = await store.load(many.map((m) => m.incident.findingId));

    expect(loaded.size).toBe(130);
  });
});

describe('IncidentStore event counts', () => {
  /** A scheduling incident of one batch holding Kubernetes events at the given counts. */
  const events = (eventCounts: EventCount[], extraLines = 0): Incident => ({
    findingId: 'f-events',
    cluster: 'prod',
    rule: 'scheduling-insufficient-resources',
    occurrences: eventCounts.reduce((sum, [, count]) => sum + count, extraLines),
    entities: { pods: ['shop/web-7d4b9c6f5d-x2x9k'] },
    evidence: [{ message: 'Warning FailedScheduling: 0/3 nodes are available: 3 Insufficient cpu.' }],
    eventCounts,
  });

  it('counts an event stored at 31 and delivered again at 32 as 32, and keeps its highest count', async () => {
    await store.record([{ incident: events([['ev-a', 31]]), severity: 'medium' }], 'b1', T0, DEFAULT_POLICY);
    await store.record([{ incident: events([['ev-a', 32]]), severity: 'medium' }], 'b2', T0 + 1, DEFAULT_POLICY);

    const stored = await store.get('f-events');
    expect(stored?.occurrences).toBe(32);
    expect(stored?.eventCounts).toEqual([['ev-a', 32]]);
  });

  it('stores the most recent MAX_EVENT_COUNTS events of an incident in an item of a few KB', async () => {
    const many: EventCount[] = Array.from({ length: MAX_EVENT_COUNTS + 40 }, (_, i) => [
      `k${String(i).padStart(15, '0')}`,
      1000 + i,
    ]);
    await store.record([{ incident: events(many), severity: 'medium' }], 'b1', T0, DEFAULT_POLICY);

    const stored = await store.get('f-events');
    expect(stored?.eventCounts).toHaveLength(MAX_EVENT_COUNTS);
    expect(stored?.eventCounts?.[0]).toEqual(many[40]);
    expect(Buffer.byteLength(JSON.stringify(stored?.eventCounts))).toBeLessThan(8 * 1024);
  });

  it('counts an event once when two deliveries of it race on the same stored version', async () => {
    // Both writers read the incident before either writes: every put waits until both are ready,
    // so the loser's conditional write fails and it must count again from the winner's state.
    const waiting: Array<() => void> = [];
    let puts = 0;
    const racing = {
      send: async (command: unknown) => {
        if (command instanceof PutCommand && ++puts <= 2) {
          await new Promise<void>((resolve) => {
            waiting.push(resolve);
            if (waiting.length === 2) for (const go of waiting) go();
          });
        }
        return dynamo.doc.send(command as PutCommand);
      },
    } as unknown as DynamoDBDocumentClient;
    const tableName = await dynamo.createTable();
    const racer = () => new IncidentStore(racing, tableName, { sleep: async () => undefined });

    const [first, second] = await Promise.all([
      racer().record([{ incident: events([['ev-a', 31]]), severity: 'medium' }], 'b1', T0, DEFAULT_POLICY),
      racer().record(
        [
          {
            incident: events([
              ['ev-a', 32],
              ['ev-b', 2],
            ]),
            severity: 'medium',
          },
        ],
        'b2',
        T0,
        DEFAULT_POLICY,
      ),
    ]);

    expect(puts).toBeGreaterThanOrEqual(3);
    expect([...first, ...second].filter((r) => r.outcome.kind === 'notify')).toHaveLength(1);
    const stored = await new IncidentStore(dynamo.doc, tableName).get('f-events');
    expect(stored?.occurrences).toBe(34);
    expect(new Map(stored?.eventCounts)).toEqual(
      new Map([
        ['ev-a', 32],
        ['ev-b', 2],
      ]),
    );
  });
});

describe('IncidentStore.markPublished', () => {
  it('marks the channel of the current generation and leaves a superseded one alone', async () => {
    await store.record([{ incident: incident('f1'), severity: 'critical' }], 'b1', T0, DEFAULT_POLICY);

    await store.markPublished('f1', 1, 'sns');
    await store.markPublished('f1', 99, 'events');

    expect((await store.get('f1'))?.pending).toMatchObject({ generation: 1, snsDone: true, eventsDone: false });
  });

  it('makes a stale writer re-read instead of overwriting the mark', async () => {
    await store.record([{ incident: incident('f1'), severity: 'critical' }], 'b1', T0, DEFAULT_POLICY);
    const stale = (await store.get('f1'))!;
    await store.markPublished('f1', 1, 'sns');

    expect(await store.putIfVersion({ ...stale, occurrences: 99, version: stale.version + 1 }, stale.version)).toBe(
      false,
    );
    expect((await store.get('f1'))?.pending?.snsDone).toBe(true);
  });

  it('does not throw for an incident that does not exist', async () => {
    await expect(store.markPublished('missing', 1, 'sns')).resolves.toBeUndefined();
  });
});
