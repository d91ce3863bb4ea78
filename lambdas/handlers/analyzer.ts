import { createHash } from 'node:crypto';
import type { Logger } from '@aws-lambda-powertools/logger';
import { MetricUnit, type Metrics } from '@aws-lambda-powertools/metrics';
import { Enricher } from '../adapters/enrich';
import { BatchBusyError, IncidentStore } from '../adapters/incident-store';
import { Notifier } from '../adapters/notifier';
import { Publisher } from '../adapters/publish';
import { analyzeMessages } from '../core/analyze';
import { CATALOG } from '../core/catalog';
import { clusterOfDocument } from '../core/cluster';
import { decodeSubscriptionData, errorMessage, isObject, type SubscriptionDocument } from '../core/decode';
import { scopeOfArn } from '../core/events';
import { emptyInputStats, fromDocument } from '../core/input';
import { lazyAwsClients, type AwsClients } from '../shared/aws-clients';
import { FILTER_NAME_PREFIX, METRIC } from '../shared/env-names';
import { PublishError, type InvocationContext } from '../shared/invocation';
import { recordNotifyMetrics } from '../shared/notify-metrics';
import { observability } from '../shared/observability';
import { analyzerSettings, clusterSettingsOf, type AnalyzerSettings } from '../shared/settings';

/** What one invocation did; returned to Lambda and used by tests. */
export interface AnalyzerResult {
  outcome: 'control' | 'malformed' | 'no-findings' | 'duplicate' | 'processed';
  cluster?: string;
  records: number;
  malformed: number;
  incidents: number;
  notified: string[];
  suppressed: number;
}

export { PublishError, type InvocationContext };

/** Everything the analyzer needs from outside, injected so tests use mocks and a local table. */
export interface AnalyzerDeps {
  settings: AnalyzerSettings;
  clients: AwsClients;
  logger: Logger;
  metrics: Metrics;
  now: () => number;
  /** Reused across warm invocations: its cache is what makes repeated Describe calls cheap. */
  enricher?: Enricher;
  /** Backoff between PutEvents attempts. */
  sleep?: (ms: number) => Promise<void>;
}

/** Time kept back from the function timeout for publishing after the enrichment. */
const PUBLISH_RESERVE_MS = 10_000;

/**
 * One CloudWatch Logs subscription delivery: decode → classify and aggregate → count in the incident
 * store → enrich what will notify → diagnose → publish to SNS and EventBridge. Bad input is counted
 * and never throws; only a failure to record or publish does, after the store lets the retry skip
 * what is done (reference/aws-facts.md, design implications 1–3).
 */
export async function analyzeSubscription(
  event: unknown,
  context: InvocationContext,
  deps: AnalyzerDeps,
): Promise<AnalyzerResult> {
  const { logger, metrics, settings } = deps;
  const result: AnalyzerResult = {
    outcome: 'processed',
    records: 0,
    malformed: 0,
    incidents: 0,
    notified: [],
    suppressed: 0,
  };

  const decoded = decodeSubscriptionData(isObject(event) && isObject(event.awslogs) ? event.awslogs.data : undefined);
  if (!decoded.ok) {
    logger.error('Undecodable subscription payload skipped', { reason: decoded.reason });
    metrics.addMetric(METRIC.malformedRecords, MetricUnit.Count, 1);
    return { ...result, outcome: 'malformed', malformed: 1 };
  }
  const document = decoded.document;
  if (document.messageType === 'CONTROL_MESSAGE') return { ...result, outcome: 'control' };

  const cluster = clusterOfDocument(
    document,
    FILTER_NAME_PREFIX,
    settings.clusters.map((c) => c.name),
  );
  logger.appendKeys({ cluster, logGroup: document.logGroup });
  const stats = emptyInputStats();
  const analysis = analyzeMessages(fromDocument(document, stats), cluster);
  result.cluster = cluster;
  result.records = analysis.stats.records;
  result.malformed = stats.malformed;
  result.incidents = analysis.incidents.length;
  metrics.addMetric(METRIC.recordsProcessed, MetricUnit.Count, analysis.stats.records);
  if (stats.malformed > 0) {
    metrics.addMetric(METRIC.malformedRecords, MetricUnit.Count, stats.malformed);
    logger.warn('Malformed log events skipped', { malformed: stats.malformed, logStream: document.logStream });
  }
  for (const [rule, count] of Object.entries(analysis.stats.signalsByRule)) {
    const single = metrics.singleMetric();
    single.addDimension('rule', rule);
    single.addMetric(METRIC.signals, MetricUnit.Count, count);
  }
  if (analysis.incidents.length === 0) return { ...result, outcome: 'no-findings' };

  // From here on AWS is involved: the clients are created now, not for batches without a finding.
  const store = new IncidentStore(deps.clients.dynamo, settings.tableName);
  const batchId = batchIdOf(document);
  const now = deps.now();
  const remaining = context.getRemainingTimeInMillis?.() ?? 60_000;
  const claim = await store.claimBatch(batchId, now, remaining + 5_000);
  if (claim === 'done') {
    metrics.addMetric(METRIC.duplicateBatches, MetricUnit.Count, 1);
    logger.info('Batch already processed; duplicate delivery skipped', { batchId });
    return { ...result, outcome: 'duplicate' };
  }
  if (claim === 'busy') throw new BatchBusyError(`batch ${batchId} is being processed by another invocation`);

  try {
    const recorded = await store.record(
      analysis.incidents.map((incident) => ({ incident, severity: CATALOG[incident.rule].severity })),
      batchId,
      now,
      settings.policy,
    );
    const due = recorded.flatMap(({ state, outcome }) =>
      outcome.kind !== 'ongoing' && outcome.notify ? [{ state, notify: outcome.notify }] : [],
    );
    result.suppressed = recorded.length - due.length;
    if (result.suppressed > 0) metrics.addMetric(METRIC.notificationsSuppressed, MetricUnit.Count, result.suppressed);

    const scope = scopeOfArn(context.invokedFunctionArn);
    const notifier = new Notifier(
      store,
      deps.enricher ?? enricherFor(deps),
      new Publisher(deps.clients.sns, deps.clients.events, {
        topicArn: settings.topicArn,
        eventBusName: settings.eventBusName,
        sleep: deps.sleep,
      }),
      { eventSource: settings.eventSource, scope, account: document.owner || scope?.account },
    );
    const budget = Math.max(1_000, Math.min(settings.enrichBudgetMs, remaining - PUBLISH_RESERVE_MS));
    const { findings, failures } = await notifier.notify(due, budget);

    recordNotifyMetrics(findings, failures, deps);
    result.notified = findings.map((f) => f.findingId);
    if (failures.length > 0) {
      throw new PublishError(`could not publish ${failures.length} notification channel(s); the retry finishes them`);
    }
    await store.completeBatch(batchId);
    return result;
  } catch (error) {
    await store.releaseBatch(batchId).catch((releaseError: unknown) =>
      logger.warn('Could not release the batch; its retry waits for the lease to end', {
        error: errorMessage(releaseError),
      }),
    );
    throw error;
  }
}

/** A stable id of one delivery: the same payload, re-delivered or retried, has the same id. */
export function batchIdOf(document: SubscriptionDocument): string {
  const hash = createHash('sha256').update(`${document.logGroup}\u0000${document.logStream}`);
  for (const event of document.logEvents) hash.update(`\u0000${event.id}`);
  return hash.digest('hex').slice(0, 32);
}

function enricherFor(deps: AnalyzerDeps): Enricher {
  return new Enricher(deps.clients, {
    clusterSettings: (cluster) => clusterSettingsOf(deps.settings.clusters, cluster),
    now: deps.now,
  });
}

let warm: Omit<AnalyzerDeps, 'settings'> | undefined;

/** The Lambda entry point; clients and the enrichment cache live as long as the execution environment. */
export async function handler(event: unknown, context: InvocationContext): Promise<AnalyzerResult> {
  if (!warm) {
    const { logger, metrics } = observability('analyzer');
    const clients = lazyAwsClients();
    warm = { clients, logger, metrics, now: Date.now };
    warm.enricher = enricherFor({ ...warm, settings: analyzerSettings() });
  }
  warm.logger.resetKeys();
  const deps: AnalyzerDeps = { ...warm, settings: analyzerSettings() };
  try {
    return await analyzeSubscription(event, context, deps);
  } finally {
    deps.metrics.publishStoredMetrics();
  }
}
