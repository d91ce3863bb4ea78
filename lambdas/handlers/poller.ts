import type { Logger } from '@aws-lambda-powertools/logger';
import type { Metrics } from '@aws-lambda-powertools/metrics';
import { DescribeClusterCommand } from '@aws-sdk/client-eks';
import type { Context } from 'aws-lambda';
import type { FindingEnricher } from '../adapters/accounts';
import { eksToken, readClusterSnapshot } from '../adapters/cluster-state';
import { IncidentStore } from '../adapters/incident-store';
import { enrichBudgetMs } from '../core/incidents/delivery-limits';
import { scopeOfArn } from '../core/findings/bus-entries';
import { type Due, resolveIncident } from '../core/incidents/lifecycle';
import { analyzeSnapshot, type ClusterSnapshot, clusterSays, pollChanges } from '../core/state';
import type { SubscriptionDocument } from '../core/decode/subscription-payload';
import { type AwsClients, lazyAwsClients } from '../shared/aws-clients';
import type { InvocationContext } from '../shared/invocation';
import { observability, observeInvocation } from '../shared/observability';
import { analyzerSettings } from '../shared/settings';
import { createEnricher, recordAndNotify } from './analyzer-aws';
import { emptyAnalyzerResult, type AnalyzerDeps, type AnalyzerResult } from './analyzer-deps';
import { notifierOf } from './wiring';

/** What EventBridge Scheduler sends for one polled cluster (lib: the schedule's target input). */
export interface PollEvent {
  cluster?: string;
  scheduledTime?: string;
}

export interface PollResult extends AnalyzerResult {
  /** Incidents the previous poll saw that this one no longer sees, resolved now. */
  resolved: string[];
}

/** Reads a cluster's snapshot (DescribeCluster + token + lists in production; a stub in tests). */
export type SnapshotReader = (cluster: string) => Promise<ClusterSnapshot>;

/** How long the ids a poll saw are kept for the next one; a cluster polled less often starts afresh. */
const SEEN_KEPT_MS = 24 * 60 * 60_000;

/** The log group the poller's evidence names: the cluster's own state, not a log. */
export const STATE_SOURCE = 'karpenter-doctor/cluster-state';

/**
 * One poll of one cluster: read its state → the state reader's incidents → the analyzer's own
 * incident store, dedup and notices (one incident with the log path's for the same failure) → and
 * resolve the incidents the previous poll saw that the cluster no longer states. A failed read
 * throws (Scheduler retries) and resolves nothing: a gap is never a recovery.
 */
export async function pollCluster(
  event: PollEvent,
  context: InvocationContext,
  deps: AnalyzerDeps,
  read: SnapshotReader,
): Promise<PollResult> {
  const { settings, logger } = deps;
  const cluster = event.cluster;
  if (!cluster || !settings.clusters.some((entry) => entry.name === cluster))
    throw new Error(`poll of a cluster the configuration does not list: ${JSON.stringify(cluster)}`);
  const now = deps.now();
  const snapshot = await read(cluster);
  const { analysis, autoMode } = analyzeSnapshot(snapshot, { cluster });
  logger.appendKeys({ cluster });
  if (analysis.unrecognised.count > 0) logger.info('Unrecognised cluster state', { ...analysis.unrecognised });
  const scope = scopeOfArn(context.invokedFunctionArn);
  const runId = event.scheduledTime ?? new Date(Math.floor(now / 60_000) * 60_000).toISOString();
  // One poll is one batch: a retry of the same scheduled run is a duplicate, the next run is not.
  const document: SubscriptionDocument = {
    messageType: 'DATA_MESSAGE',
    owner: scope?.account ?? '',
    logGroup: `${STATE_SOURCE}/${cluster}`,
    logStream: runId,
    subscriptionFilters: [],
    logEvents: [],
    malformedEvents: 0,
  };
  let result: PollResult = {
    ...emptyAnalyzerResult(),
    outcome: analysis.incidents.length ? 'processed' : 'no-findings',
    cluster,
    records: analysis.stats.records,
    incidents: analysis.incidents.length,
    resolved: [],
  };
  if (autoMode.evidence.length) logger.info('EKS Auto Mode cluster', { evidence: autoMode.evidence });
  if (analysis.incidents.length)
    result = { ...(await recordAndNotify(document, analysis.incidents, result, context, deps)), resolved: [] };

  const store = new IncidentStore(deps.clients.dynamo, settings.tableName, { sleep: deps.sleep });
  const key = `poll#${cluster}`;
  const previous = seenOf((await store.onceRecord(key))?.report);
  const changes = pollChanges(previous, analysis.incidents);
  const due: Due[] = [];
  for (const findingId of changes.cleared) {
    const state = await store.get(findingId);
    if (state?.status !== 'open') continue;
    // Resolved by what the cluster says now, not by the quiet window: the notice says which.
    const resolved = resolveIncident(state, now, clusterSays(state.entities, snapshot)).state;
    if (!(await store.putIfVersion(resolved, state.version))) continue;
    result.resolved.push(findingId);
    due.push({ state: resolved, notify: resolved.pending! });
  }
  if (due.length) {
    const notifier = notifierOf(deps, store, deps.enricher ?? createEnricher(deps), {
      scope,
      account: scope?.account,
    });
    const remaining = context.getRemainingTimeInMillis?.() ?? 60_000;
    const sent = await notifier.notify(due, enrichBudgetMs(settings.enrichBudgetMs, remaining));
    result.notices += sent.notices;
  }
  await store.claimOnce(key, now, SEEN_KEPT_MS);
  await store.saveOnceReport(key, { seen: changes.seen }, true);
  return result;
}

const seenOf = (report: unknown): string[] =>
  typeof report === 'object' && report !== null && Array.isArray((report as { seen?: unknown }).seen)
    ? (report as { seen: unknown[] }).seen.filter((id): id is string => typeof id === 'string')
    : [];

let warm: { logger: Logger; metrics: Metrics; clients: AwsClients } | undefined;
let enricher: FindingEnricher | undefined;

/**
 * The cluster's API as EKS describes it, read with a token of this function's role (which the
 * stack's access entry lets view the cluster).
 */
function clusterReader(clients: AwsClients): SnapshotReader {
  return async (cluster) => {
    const { cluster: described } = await clients.eks.send(new DescribeClusterCommand({ name: cluster }));
    const url = described?.endpoint;
    if (!url) throw new Error(`EKS describes no API endpoint for cluster ${cluster}`);
    const region = await clients.eks.config.region();
    const token = await eksToken(cluster, region, clients.eks.config.credentials);
    const { snapshot, skipped } = await readClusterSnapshot(
      { url, caData: described.certificateAuthority?.data },
      token,
    );
    if (skipped.length) warm?.logger.info('Cluster state lists skipped', { cluster, skipped });
    return snapshot;
  };
}

/** The Lambda entry point, invoked by EventBridge Scheduler with `{"cluster": "…", "scheduledTime": "…"}`. */
export async function handler(event: PollEvent, context: Context): Promise<PollResult> {
  if (!warm) {
    const { logger, metrics } = observability('poller');
    warm = { logger, metrics, clients: lazyAwsClients() };
  }
  const { logger, metrics, clients } = warm;
  return observeInvocation(warm, context, () => {
    const deps: AnalyzerDeps = {
      logger,
      metrics,
      now: Date.now,
      settings: analyzerSettings(),
      clients,
      get enricher(): FindingEnricher {
        return (enricher ??= createEnricher(this));
      },
    };
    return pollCluster(event, context, deps, clusterReader(clients));
  });
}
