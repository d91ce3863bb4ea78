import { BatchGetCommand, GetCommand, PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Sample } from '../core/forecast';

/** How the headroom checks of a cluster have gone, for the resolve sweep. */
export interface ClusterHealth {
  cluster: string;
  /** Epoch ms since which every check succeeded and found no low subnet; unset after a low or failed check. */
  healthySince?: number;
  lastCheckAt: number;
  lastError?: string;
}

/** Samples kept per subnet: a day at the default five-minute schedule. */
export const MAX_SAMPLES = 288;
const HISTORY_MS = 24 * 60 * 60_000;
const RETENTION_S = 7 * 24 * 60 * 60;

/**
 * The headroom check's memory, in the incident table: a bounded history of free IPs per subnet and
 * the health of each cluster's checks. Only the scheduled headroom function writes these items, one
 * run at a time, so plain writes suffice.
 */
export class HeadroomStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async histories(cluster: string, subnetIds: string[]): Promise<Map<string, Sample[]>> {
    const histories = new Map<string, Sample[]>();
    for (let start = 0; start < subnetIds.length; start += 100) {
      let keys: Array<Record<string, unknown>> = subnetIds
        .slice(start, start + 100)
        .map((id) => ({ pk: historyKey(cluster, id) }));
      for (let attempt = 0; keys.length > 0 && attempt < 5; attempt++) {
        const response = await this.db.send(
          new BatchGetCommand({ RequestItems: { [this.tableName]: { Keys: keys } } }),
        );
        for (const item of response.Responses?.[this.tableName] ?? []) {
          if (typeof item.subnetId === 'string' && Array.isArray(item.samples)) {
            histories.set(item.subnetId, item.samples as Sample[]);
          }
        }
        keys = response.UnprocessedKeys?.[this.tableName]?.Keys ?? [];
      }
    }
    return histories;
  }

  /** Appends a sample, keeping the last day and at most MAX_SAMPLES; returns the kept history. */
  async append(cluster: string, subnetId: string, previous: Sample[], sample: Sample): Promise<Sample[]> {
    const samples = [...previous.filter((s) => s.t > sample.t - HISTORY_MS && s.t < sample.t), sample].slice(
      -MAX_SAMPLES,
    );
    await this.db.send(
      new PutCommand({
        TableName: this.tableName,
        Item: {
          pk: historyKey(cluster, subnetId),
          kind: 'history',
          cluster,
          subnetId,
          samples,
          expiresAt: Math.ceil(sample.t / 1000) + RETENTION_S,
        },
      }),
    );
    return samples;
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
