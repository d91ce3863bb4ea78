import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import {
  DeleteCommand,
  GetCommand,
  PutCommand,
  ScanCommand,
  UpdateCommand,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import type { Incident } from '../core/incidents/aggregate';
import { advanceIncident, type IncidentState, type LifecyclePolicy, type Outcome } from '../core/incidents/lifecycle';
import type { Severity } from '../core/model';
import { EMPTY_WINDOW, NOTICE_WINDOW_MS, type NoticeWindow } from '../core/incidents/notice-window';
import { mapLimit } from '../shared/concurrency';
import { batchGetAll, UnreadKeysError } from './batch-get';

/** How one batch's claim on the store turned out. */
export type BatchClaim =
  /** First delivery, or a retry whose previous attempt has let go: process it. */
  | 'claimed'
  /** Already fully processed: a duplicate delivery, skip it. */
  | 'done'
  /** Another invocation is processing the same batch right now. */
  | 'busy';

/** Thrown when a concurrent invocation holds the batch; Lambda's retry comes back after it finished. */
export class BatchBusyError extends Error {
  override readonly name = 'BatchBusyError';
}

export interface Observation {
  incident: Incident;
  severity: Severity;
}

export interface Recorded {
  state: IncidentState;
  outcome: Outcome;
}

const BATCH_PREFIX = 'batch#';
const windowKeyOf = (scope: string, start: number) => `window#${scope}#${start}`;
/** Batch markers outlive CloudWatch Logs' 24-hour redelivery window. */
const BATCH_RETENTION_MS = 48 * 60 * 60_000;
/** Attempts of one optimistic write; between them the writer backs off (with jitter) and reads again. */
const MAX_WRITE_ATTEMPTS = 8;
/** DynamoDB calls of one `record` in flight at the same time. */
const DEFAULT_CONCURRENCY = 8;

/** A publish channel of a notification. */
export type Channel = 'sns' | 'events';

/**
 * The incident table (docs/architecture.md, The incident lifecycle). One item per finding key, written with
 * optimistic locking (`version`), plus one marker item per subscription batch so that a re-delivered or
 * retried batch is counted once and its notifications are finished by exactly one invocation. Expiry is
 * checked on every read; the table's TTL attribute (`expiresAt`) only cleans up.
 */
export class IncidentStore {
  /**
   * Incidents this store gave up counting because concurrent deliveries kept changing them. Not an
   * error: the deliveries that won counted them and decided their notices; this one's occurrences
   * are lost from the count, which is reported as a metric.
   */
  contended = 0;

  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly options: {
      concurrency?: number;
      sleep?: (ms: number) => Promise<void>;
      random?: () => number;
    } = {},
  ) {}

  /**
   * Claims a batch for this invocation for `leaseMs` (the function timeout), as Powertools Idempotency
   * would; why not it (docs/architecture.md, Batch claims).
   */
  async claimBatch(batchId: string, now: number, leaseMs: number): Promise<BatchClaim> {
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { pk: BATCH_PREFIX + batchId },
          UpdateExpression:
            'SET #state = :processing, #lease = :lease, #expires = :expires, #kind = :kind ADD #attempts :one',
          ConditionExpression:
            'attribute_not_exists(pk) OR #expires < :nowSeconds OR (#state = :processing AND #lease < :now)',
          ExpressionAttributeNames: {
            '#state': 'batchState',
            '#lease': 'leaseUntil',
            '#expires': 'expiresAt',
            '#kind': 'kind',
            '#attempts': 'attempts',
          },
          ExpressionAttributeValues: {
            ':processing': 'processing',
            ':lease': now + leaseMs,
            ':expires': Math.ceil((now + BATCH_RETENTION_MS) / 1000),
            ':kind': 'batch',
            ':one': 1,
            ':now': now,
            ':nowSeconds': Math.floor(now / 1000),
          },
        }),
      );
      return 'claimed';
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
    const { Item } = await this.db.send(
      new GetCommand({ TableName: this.tableName, Key: { pk: BATCH_PREFIX + batchId }, ConsistentRead: true }),
    );
    return Item?.batchState === 'done' ? 'done' : 'busy';
  }

  /** Marks a batch fully processed: later deliveries of it are duplicates. */
  async completeBatch(batchId: string): Promise<void> {
    await this.db.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: { pk: BATCH_PREFIX + batchId },
        UpdateExpression: 'SET batchState = :done REMOVE leaseUntil',
        ExpressionAttributeValues: { ':done': 'done' },
      }),
    );
  }

  /** Lets go of a batch whose processing failed, so that Lambda's retry can claim it at once. */
  async releaseBatch(batchId: string): Promise<void> {
    await this.db
      .send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { pk: BATCH_PREFIX + batchId },
          UpdateExpression: 'SET leaseUntil = :zero',
          ConditionExpression: 'batchState = :processing',
          ExpressionAttributeValues: { ':zero': 0, ':processing': 'processing' },
        }),
      )
      .catch((error: unknown) => {
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
      });
  }

  /**
   * Takes a once-per-window marker (e.g. one remediation per quota per day): true for the first caller
   * in the window, false for every repeat until the window has passed.
   */
  async claimOnce(key: string, now: number, windowMs: number): Promise<boolean> {
    try {
      await this.db.send(
        new PutCommand({
          TableName: this.tableName,
          Item: { pk: `once#${key}`, kind: 'once', claimedAt: now, expiresAt: Math.ceil((now + windowMs) / 1000) },
          ConditionExpression: 'attribute_not_exists(pk) OR #expires < :now',
          ExpressionAttributeNames: { '#expires': 'expiresAt' },
          ExpressionAttributeValues: { ':now': Math.floor(now / 1000) },
        }),
      );
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw error;
    }
  }

  /**
   * What was recorded under a once-marker: the report of the action, whether it went out, and the
   * target the action decided before it changed anything (`saveOnceTarget`).
   */
  async onceRecord(key: string): Promise<{ report?: unknown; published: boolean; target?: unknown } | undefined> {
    const { Item } = await this.db.send(
      new GetCommand({ TableName: this.tableName, Key: { pk: `once#${key}` }, ConsistentRead: true }),
    );
    return Item ? { report: Item.report, published: Item.published === true, target: Item.target } : undefined;
  }

  /** Keeps the target an action decided under its once-marker, before the change: a retry completes it, never replans. */
  async saveOnceTarget(key: string, target: unknown): Promise<void> {
    await this.db.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: { pk: `once#${key}` },
        UpdateExpression: 'SET #target = :target',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeNames: { '#target': 'target' },
        ExpressionAttributeValues: { ':target': target },
      }),
    );
  }

  /** Keeps the report of an action under its once-marker, so a retry publishes it instead of acting again. */
  async saveOnceReport(key: string, report: unknown, published: boolean): Promise<void> {
    await this.db.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: { pk: `once#${key}` },
        UpdateExpression: 'SET #report = :report, published = :published',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeNames: { '#report': 'report' },
        ExpressionAttributeValues: { ':report': report, ':published': published },
      }),
    );
  }

  /**
   * Claims the publication of the report kept under a once-marker, as notices are claimed: true for
   * one caller until the report is published or the lease ends, so concurrent duplicates publish it once.
   */
  async claimReportPublication(key: string, now: number, leaseMs: number): Promise<boolean> {
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { pk: `once#${key}` },
          UpdateExpression: 'SET #publishing = :lease',
          ConditionExpression:
            'attribute_exists(pk) AND (attribute_not_exists(published) OR published <> :true) AND (attribute_not_exists(#publishing) OR #publishing < :now)',
          ExpressionAttributeNames: { '#publishing': 'publishing' },
          ExpressionAttributeValues: { ':lease': now + leaseMs, ':now': now, ':true': true },
        }),
      );
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw error;
    }
  }

  /** Gives a report's publication back after a failed publish, so that the retry takes it at once. */
  async releaseReportPublication(key: string): Promise<void> {
    await this.db.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: { pk: `once#${key}` },
        UpdateExpression: 'REMOVE #publishing',
        ExpressionAttributeNames: { '#publishing': 'publishing' },
      }),
    );
  }

  /** Gives a once-per-window marker back, so that a retry of a failed attempt can take it again. */
  async releaseOnce(key: string): Promise<void> {
    await this.db.send(new DeleteCommand({ TableName: this.tableName, Key: { pk: `once#${key}` } }));
  }

  /** The notice window of a cluster (its scope, `clusterScopeOf`) that starts at `start` (core/notice-window.ts). */
  async noticeWindow(scope: string, start: number): Promise<NoticeWindow> {
    const { Item } = await this.db.send(
      new GetCommand({ TableName: this.tableName, Key: { pk: windowKeyOf(scope, start) }, ConsistentRead: true }),
    );
    if (!Item) return EMPTY_WINDOW;
    const announced = Item.announced instanceof Set ? (Item.announced as Set<string>) : new Set<string>();
    return { notices: typeof Item.notices === 'number' ? Item.notices : 0, announced };
  }

  /**
   * Adds what one delivery sent to a cluster's window, after it went out: notices, the untracked
   * incidents announced, and the occurrences of those only counted. Kept a window past its end.
   */
  async addToNoticeWindow(
    scope: string,
    start: number,
    sent: { notices: number; announced: readonly string[]; counted: number },
  ): Promise<void> {
    if (sent.notices === 0 && sent.announced.length === 0 && sent.counted === 0) return;
    const announced = sent.announced.length > 0;
    await this.db.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: { pk: windowKeyOf(scope, start) },
        UpdateExpression: `SET #kind = :kind, #expires = :expires ADD notices :notices, counted :counted${announced ? ', announced :announced' : ''}`,
        ExpressionAttributeNames: { '#kind': 'kind', '#expires': 'expiresAt' },
        ExpressionAttributeValues: {
          ':kind': 'notice-window',
          ':expires': Math.ceil((start + 2 * NOTICE_WINDOW_MS) / 1000),
          ':notices': sent.notices,
          ':counted': sent.counted,
          ...(announced ? { ':announced': new Set(sent.announced) } : {}),
        },
      }),
    );
  }

  /** Counts one batch's incidents and decides for each whether to notify (see `advanceIncident`). */
  async record(
    observations: Observation[],
    batchId: string,
    now: number,
    policy: LifecyclePolicy,
  ): Promise<Recorded[]> {
    const stored = await this.load(observations.map((o) => o.incident.findingId));
    const sleep = this.options.sleep ?? delay;
    const random = this.options.random ?? Math.random;
    const results = await mapLimit(
      observations,
      this.options.concurrency ?? DEFAULT_CONCURRENCY,
      async ({ incident, severity }): Promise<Recorded | undefined> => {
        let previous = stored.get(incident.findingId);
        for (let attempt = 1; ; attempt++) {
          const advance = advanceIncident(previous, incident, severity, batchId, now, policy);
          if (!advance.changed) return { state: advance.state, outcome: advance.outcome };
          if (await this.putIfVersion(advance.state, previous?.version)) {
            return { state: advance.state, outcome: advance.outcome };
          }
          if (attempt === MAX_WRITE_ATTEMPTS) {
            this.contended++;
            return undefined;
          }
          // Full jitter: concurrent deliveries of one incident spread out instead of colliding again.
          await sleep(Math.floor(random() * Math.min(1_000, 25 * 2 ** attempt)));
          previous = await this.get(incident.findingId);
        }
      },
    );
    return results.filter((r): r is Recorded => r !== undefined);
  }

  /** Notes that channels of notification `generation` went out; ignored when a newer one superseded it. */
  async markPublished(findingId: string, generation: number, channels: Channel | Channel[]): Promise<void> {
    const flags = (Array.isArray(channels) ? channels : [channels]).map((c) =>
      c === 'sns' ? 'snsDone' : 'eventsDone',
    );
    if (flags.length === 0) return;
    await this.db
      .send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { pk: findingId },
          UpdateExpression: `SET ${flags.map((_, i) => `pending.#flag${i} = :true`).join(', ')} ADD #version :one`,
          ConditionExpression: 'pending.#generation = :generation',
          ExpressionAttributeNames: {
            ...Object.fromEntries(flags.map((flag, i) => [`#flag${i}`, flag])),
            '#generation': 'generation',
            '#version': 'version',
          },
          ExpressionAttributeValues: { ':true': true, ':one': 1, ':generation': generation },
        }),
      )
      .catch((error: unknown) => {
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
      });
  }

  /** Writes a state that the caller derived from version `expected` (undefined: from no item). */
  async putIfVersion(state: IncidentState, expected: number | undefined): Promise<boolean> {
    try {
      await this.db.send(
        new PutCommand({
          TableName: this.tableName,
          Item: { pk: state.findingId, kind: 'incident', ...state },
          ConditionExpression: expected === undefined ? 'attribute_not_exists(pk)' : '#version = :expected',
          ...(expected === undefined
            ? {}
            : {
                ExpressionAttributeNames: { '#version': 'version' },
                ExpressionAttributeValues: { ':expected': expected },
              }),
        }),
      );
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw error;
    }
  }

  /**
   * Every incident item, for the resolve sweep. A filtered scan: the table holds one item per
   * incident and per recent batch, small enough for a scan every few minutes.
   */
  async scanIncidents(): Promise<IncidentState[]> {
    const states: IncidentState[] = [];
    let ExclusiveStartKey: Record<string, unknown> | undefined;
    do {
      const page = await this.db.send(
        new ScanCommand({
          TableName: this.tableName,
          FilterExpression: '#kind = :incident',
          ExpressionAttributeNames: { '#kind': 'kind' },
          ExpressionAttributeValues: { ':incident': 'incident' },
          ConsistentRead: true,
          ExclusiveStartKey,
        }),
      );
      for (const item of page.Items ?? []) states.push(stateOf(item));
      ExclusiveStartKey = page.LastEvaluatedKey;
    } while (ExclusiveStartKey);
    return states;
  }

  async get(findingId: string): Promise<IncidentState | undefined> {
    const { Item } = await this.db.send(
      new GetCommand({ TableName: this.tableName, Key: { pk: findingId }, ConsistentRead: true }),
    );
    return Item ? stateOf(Item) : undefined;
  }

  /**
   * Reads many incidents with strongly consistent batch reads (`batchGetAll`: unprocessed keys retried
   * with backoff and jitter). Incidents left unread fail the load: counting on a missing state would
   * open them again as new.
   */
  async load(findingIds: string[]): Promise<Map<string, IncidentState>> {
    const { items, unread } = await batchGetAll(
      this.db,
      this.tableName,
      findingIds.map((pk) => ({ pk })),
      { consistentRead: true, sleep: this.options.sleep, random: this.options.random },
    );
    if (unread.length > 0) throw new UnreadKeysError(unread.length);
    const states = new Map<string, IncidentState>();
    for (const item of items) {
      const state = stateOf(item);
      states.set(state.findingId, state);
    }
    return states;
  }
}

function stateOf(item: Record<string, unknown>): IncidentState {
  const { pk: _pk, kind: _kind, ...state } = item;
  return state as unknown as IncidentState;
}

const delay = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
