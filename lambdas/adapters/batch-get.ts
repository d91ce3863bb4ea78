import { BatchGetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/** BatchGetItem reads at most 100 keys per request. */
export const MAX_BATCH_GET_KEYS = 100;
/** Requests per chunk of keys, the first included, before what is left counts as unread. */
const DEFAULT_MAX_ATTEMPTS = 8;
/** Backoff before the n-th retry: full jitter below min(cap, base × 2^n). */
const BACKOFF_BASE_MS = 50;
const BACKOFF_CAP_MS = 1_000;

export type Key = Record<string, unknown>;

export interface BatchGetOptions {
  /** Strongly consistent reads. @default false */
  consistentRead?: boolean;
  /** Requests per chunk of 100 keys before the rest are given up. @default 8 */
  maxAttempts?: number;
  /** Waits between retries; tests pass one that does not wait. @default setTimeout */
  sleep?: (ms: number) => Promise<void>;
  /** The jitter's source. @default Math.random */
  random?: () => number;
}

export interface BatchGetResult {
  /** The items found (a key with no item has none here). */
  items: Array<Record<string, unknown>>;
  /** Keys DynamoDB left unprocessed on every attempt: not read, which is not the same as absent. */
  unread: Key[];
}

/**
 * Reads many keys of one table with BatchGetItem: 100 keys per request, duplicates asked once, and
 * the `UnprocessedKeys` of each response asked again after an exponential backoff with full jitter,
 * as DynamoDB asks callers to do when it throttles part of a batch
 * (https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_BatchGetItem.html). Keys still
 * unprocessed after the last attempt are returned as `unread`, never dropped: the caller decides
 * whether that fails its work or degrades it, and must not treat them as absent.
 */
export async function batchGetAll(
  db: DynamoDBDocumentClient,
  tableName: string,
  keys: readonly Key[],
  options: BatchGetOptions = {},
): Promise<BatchGetResult> {
  const maxAttempts = options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
  const sleep = options.sleep ?? delay;
  const random = options.random ?? Math.random;
  const unique = [...new Map(keys.map((key) => [JSON.stringify(key), key])).values()];
  const items: Array<Record<string, unknown>> = [];
  const unread: Key[] = [];
  for (let start = 0; start < unique.length; start += MAX_BATCH_GET_KEYS) {
    let pending: Key[] = unique.slice(start, start + MAX_BATCH_GET_KEYS);
    for (let attempt = 0; pending.length > 0; attempt++) {
      if (attempt === maxAttempts) {
        unread.push(...pending);
        break;
      }
      if (attempt > 0) await sleep(Math.floor(random() * Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** attempt)));
      const response = await db.send(
        new BatchGetCommand({
          RequestItems: {
            [tableName]: { Keys: pending, ...(options.consistentRead ? { ConsistentRead: true } : {}) },
          },
        }),
      );
      items.push(...(response.Responses?.[tableName] ?? []));
      pending = response.UnprocessedKeys?.[tableName]?.Keys ?? [];
    }
  }
  return { items, unread };
}

/** Thrown when keys stay unprocessed and the caller cannot do without them. */
export class UnreadKeysError extends Error {
  override readonly name = 'UnreadKeysError';
  constructor(readonly unread: number) {
    super(`DynamoDB left ${unread} keys unprocessed after every retry`);
  }
}

const delay = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
