import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, DynamoDBDocumentClient, type BatchGetCommandInput } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import 'aws-sdk-client-mock-jest';
import { batchGetAll, UnreadKeysError } from '../../lambdas/adapters/batch-get';
import { IncidentStore } from '../../lambdas/adapters/incident-store';

const TABLE = 'karpenter-doctor-incidents';
const doc = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'eu-west-1' }));
const db = mockClient(doc);

const keyOf = (pk: string) => ({ pk });
const itemOf = (pk: string) => ({ pk, kind: 'incident', findingId: pk, version: 1 });
const keysOf = (input: BatchGetCommandInput) => (input.RequestItems?.[TABLE]?.Keys ?? []).map((k) => String(k.pk));

/**
 * A BatchGetItem response as DynamoDB returns it: the items found under `Responses`, and the keys it
 * did not get to under `UnprocessedKeys`, with the request's own settings (ConsistentRead) beside them.
 */
function response(input: BatchGetCommandInput, unprocessed: (pk: string) => boolean) {
  const asked = keysOf(input);
  const left = asked.filter(unprocessed);
  return {
    Responses: { [TABLE]: asked.filter((pk) => !unprocessed(pk)).map(itemOf) },
    UnprocessedKeys: left.length
      ? { [TABLE]: { Keys: left.map(keyOf), ConsistentRead: input.RequestItems?.[TABLE]?.ConsistentRead } }
      : {},
    $metadata: { httpStatusCode: 200 },
  };
}

const noWait = { sleep: async () => undefined, random: () => 0.5 };

beforeEach(() => db.reset());

describe('batchGetAll', () => {
  it('asks again for the unprocessed keys, and only for them, until every key is read', async () => {
    let calls = 0;
    db.on(BatchGetCommand).callsFake((input: BatchGetCommandInput) => {
      calls++;
      // DynamoDB throttled part of the batch twice: the last keys come back unprocessed.
      return response(input, (pk) => calls <= 2 && pk >= 'k3');
    });

    const { items, unread } = await batchGetAll(doc, TABLE, ['k1', 'k2', 'k3', 'k4'].map(keyOf), {
      ...noWait,
      consistentRead: true,
    });

    expect(items.map((i) => i.pk).sort()).toEqual(['k1', 'k2', 'k3', 'k4']);
    expect(unread).toEqual([]);
    expect(db).toHaveReceivedCommandTimes(BatchGetCommand, 3);
    expect(keysOf(db.commandCalls(BatchGetCommand)[1]!.args[0].input)).toEqual(['k3', 'k4']);
    expect(db).toHaveReceivedNthCommandWith(3, BatchGetCommand, {
      RequestItems: { [TABLE]: { Keys: [keyOf('k3'), keyOf('k4')], ConsistentRead: true } },
    });
  });

  it('backs off exponentially with full jitter between attempts', async () => {
    db.on(BatchGetCommand).callsFake((input: BatchGetCommandInput) => response(input, () => true));
    const waits: number[] = [];

    await batchGetAll(doc, TABLE, [keyOf('k1')], {
      maxAttempts: 6,
      sleep: async (ms) => void waits.push(ms),
      random: () => 0.5,
    });

    // Half of min(1 s, 50 ms × 2^attempt) before each retry: the jitter's source decides within the bound.
    expect(waits).toEqual([50, 100, 200, 400, 500]);
  });

  it('draws each wait below its bound from the jitter source', async () => {
    db.on(BatchGetCommand).callsFake((input: BatchGetCommandInput) => response(input, () => true));
    const waits: number[] = [];

    await batchGetAll(doc, TABLE, [keyOf('k1')], {
      maxAttempts: 3,
      sleep: async (ms) => void waits.push(ms),
      random: () => 0,
    });

    expect(waits).toEqual([0, 0]);
  });

  it('returns the keys still unprocessed after the last attempt as unread, never as absent', async () => {
    db.on(BatchGetCommand).callsFake((input: BatchGetCommandInput) => response(input, (pk) => pk === 'k2'));

    const { items, unread } = await batchGetAll(doc, TABLE, ['k1', 'k2', 'k3'].map(keyOf), {
      ...noWait,
      maxAttempts: 4,
    });

    expect(items.map((i) => i.pk).sort()).toEqual(['k1', 'k3']);
    expect(unread).toEqual([keyOf('k2')]);
    expect(db).toHaveReceivedCommandTimes(BatchGetCommand, 4);
  });

  it('reads 100 keys per request and asks for a repeated key once', async () => {
    db.on(BatchGetCommand).callsFake((input: BatchGetCommandInput) => response(input, () => false));
    const keys = Array.from({ length: 250 }, (_, i) => keyOf(`k${String(i).padStart(3, '0')}`));

    const { items } = await batchGetAll(doc, TABLE, [...keys, keyOf('k000'), keyOf('k249')], noWait);

    expect(items).toHaveLength(250);
    expect(db.commandCalls(BatchGetCommand).map((call) => keysOf(call.args[0].input).length)).toEqual([100, 100, 50]);
  });

  it('sends no request for no keys', async () => {
    expect(await batchGetAll(doc, TABLE, [], noWait)).toEqual({ items: [], unread: [] });
    expect(db).not.toHaveReceivedCommand(BatchGetCommand);
  });
});

describe('IncidentStore.load', () => {
  it('reads incidents consistently, retrying the keys DynamoDB left unprocessed', async () => {
    let calls = 0;
    db.on(BatchGetCommand).callsFake((input: BatchGetCommandInput) => {
      const first = ++calls === 1;
      return response(input, (pk) => first && pk === 'f1');
    });

    const states = await new IncidentStore(doc, TABLE, noWait).load(['f1', 'f2', 'f1']);

    expect([...states.keys()].sort()).toEqual(['f1', 'f2']);
    expect(db).toHaveReceivedNthCommandWith(1, BatchGetCommand, {
      RequestItems: { [TABLE]: { Keys: [keyOf('f1'), keyOf('f2')], ConsistentRead: true } },
    });
    expect(db).toHaveReceivedNthCommandWith(2, BatchGetCommand, {
      RequestItems: { [TABLE]: { Keys: [keyOf('f1')], ConsistentRead: true } },
    });
  });

  it('fails when incidents stay unread, rather than count them as new', async () => {
    db.on(BatchGetCommand).callsFake((input: BatchGetCommandInput) => response(input, (pk) => pk === 'f2'));

    await expect(new IncidentStore(doc, TABLE, noWait).load(['f1', 'f2'])).rejects.toBeInstanceOf(UnreadKeysError);
  });
});
