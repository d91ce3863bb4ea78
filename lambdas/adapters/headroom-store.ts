import { GetCommand, PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Sample } from '../core/headroom/forecast';
import type { ClusterHealth, StoredHistories } from '../core/headroom/subnet-headroom';
import { batchGetAll, type BatchGetOptions } from './batch-get';

const RETENTION_S = 7 * 24 * 60 * 60;

/**
 * The headroom check's memory, in the incident table: a bounded history of free IPs per subnet and
 * the health of each cluster's checks. Only the scheduled headroom function writes these items, one
 * run at a time, so plain writes suffice. Which samples a history keeps is decided in core
 * (`appendSample`).
 */
export class HeadroomStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly options: Pick<BatchGetOptions, 'sleep' | 'random'> = {},
  ) {}

  /** The stored histories of these subnets of a cluster (`batchGetAll`: unprocessed keys retried with backoff). */
  async histories(cluster: string, subnetIds: string[]): Promise<StoredHistories> {
    const { items, unread } = await batchGetAll(
      this.db,
      this.tableName,
      subnetIds.map((id) => ({ pk: historyKey(cluster, id) })),
      this.options,
    );
    const samples = new Map<string, Sample[]>();
    for (const item of items) {
      if (typeof item.subnetId === 'string' && Array.isArray(item.samples)) {
        samples.set(item.subnetId, item.samples as Sample[]);
      }
    }
    const prefix = historyKey(cluster, '');
    return { samples, unread: new Set(unread.map((key) => String(key.pk).slice(prefix.length))) };
  }

  /** Replaces a subnet's history with `samples` (the stored one with this run's sample appended). */
  async saveHistory(cluster: string, subnetId: string, samples: Sample[]): Promise<void> {
    const last = samples.at(-1)?.t ?? 0;
    await this.db.send(
      new PutCommand({
        TableName: this.tableName,
        Item: {
          pk: historyKey(cluster, subnetId),
          kind: 'history',
          cluster,
          subnetId,
          samples,
          expiresAt: Math.ceil(last / 1000) + RETENTION_S,
        },
      }),
    );
  }

  async health(cluster: string): Promise<ClusterHealth | undefined> {
    const { Item } = await this.db.send(
      new GetCommand({ TableName: this.tableName, Key: { pk: healthKey(cluster) }, ConsistentRead: true }),
    );
    if (!Item) return undefined;
    return {
      cluster,
      healthySince: typeof Item.healthySince === 'number' ? Item.healthySince : undefined,
      lastCheckAt: typeof Item.lastCheckAt === 'number' ? Item.lastCheckAt : 0,
      lastError: typeof Item.lastError === 'string' ? Item.lastError : undefined,
    };
  }

  async saveHealth(health: ClusterHealth): Promise<void> {
    await this.db.send(
      new PutCommand({
        TableName: this.tableName,
        Item: {
          pk: healthKey(health.cluster),
          kind: 'health',
          ...health,
          expiresAt: Math.ceil(health.lastCheckAt / 1000) + RETENTION_S,
        },
      }),
    );
  }
}

const historyKey = (cluster: string, subnetId: string) => `history#${cluster}#${subnetId}`;
const healthKey = (cluster: string) => `health#${cluster}`;
