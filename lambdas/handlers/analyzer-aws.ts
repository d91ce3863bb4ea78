import type { FindingEnricher } from '../adapters/accounts';
import { BatchBusyError, IncidentStore } from '../adapters/incident-store';
import type { Incident } from '../core/incidents/aggregate';
import { severityOf } from '../core/recognise/rules';
import { boundIncidents, memberOf } from '../core/incidents/digest';
import { enrichBudgetMs } from '../core/incidents/delivery-limits';
import { errorMessage } from '../core/common/error-message';
import { dueOf } from '../core/incidents/lifecycle';
import { batchIdOf, type SubscriptionDocument } from '../core/decode/subscription-payload';
import { scopeOfArn } from '../core/findings/bus-entries';
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { lazyAwsClients, type AwsClients } from '../shared/aws-clients';
import { METRIC } from '../../contracts/names';
import { PublishError, type InvocationContext } from '../shared/invocation';
import { recordNotifyMetrics } from './notify-metrics';
import type { AnalyzerDeps, AnalyzerResult } from './analyzer-deps';
import { enrichersOf, notifierOf } from './wiring';

export function createClients(): AwsClients {
  return lazyAwsClients();
}

/**
 * The analyzer's second half, for a batch with incidents: claim the batch, count in the incident
 * store, enrich and publish what is due, and complete the batch — or give it back and fail, so the
 * retry finishes only what is left.
 */
export async function recordAndNotify(
  document: SubscriptionDocument,
  incidents: Incident[],
  result: AnalyzerResult,
  context: InvocationContext,
  deps: AnalyzerDeps,
): Promise<AnalyzerResult> {
  const { logger, metrics, settings } = deps;
  const limits = settings.limits;
  const store = new IncidentStore(deps.clients.dynamo, settings.tableName, {
    concurrency: limits.concurrency,
    sleep: deps.sleep,
  });
  const batchId = batchIdOf(document, result.account);
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
    // The work of one delivery is bounded whatever it holds: the most severe incidents are kept one
    // by one, the overflow is only counted in the digest.
    const { tracked, overflow } = boundIncidents(incidents, limits.maxIncidentsPerDelivery);
    result.untracked = overflow.length;
    if (overflow.length > 0) {
      metrics.addMetric(METRIC.untrackedIncidents, MetricUnit.Count, overflow.length);
      logger.warn('More incidents than one delivery records; the rest are counted in the digest', {
        tracked: tracked.length,
        untracked: overflow.length,
      });
    }
    const recorded = await store.record(
      tracked.map((incident) => ({ incident, severity: severityOf(incident) })),
      batchId,
      now,
      settings.policy,
    );
    if (store.contended > 0) {
      metrics.addMetric(METRIC.contendedIncidents, MetricUnit.Count, store.contended);
      logger.info('Concurrent deliveries kept changing some incidents; they counted them', {
        contended: store.contended,
      });
    }
    const due = dueOf(recorded);
    result.suppressed = recorded.length - due.length;
    if (result.suppressed > 0) metrics.addMetric(METRIC.notificationsSuppressed, MetricUnit.Count, result.suppressed);

    const scope = scopeOfArn(context.invokedFunctionArn);
    const notifier = notifierOf(deps, store, deps.enricher ?? createEnricher(deps), {
      scope,
      account: document.owner || scope?.account,
    });
    const budget = enrichBudgetMs(settings.enrichBudgetMs, remaining);
    const { findings, failures, notices, digests } = await notifier.notify(due, budget, new Map(), {
      members: overflow.map((incident) => memberOf(incident, 'untracked')),
      logGroup: document.logGroup,
    });

    recordNotifyMetrics(findings, failures, deps);
    if (digests > 0) metrics.addMetric(METRIC.digests, MetricUnit.Count, digests);
    result.notified = findings.map((f) => f.findingId);
    result.notices = notices;
    result.digests = digests;
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

/**
 * The enrichment of every account: the function's own clients for its home account, the spoke's
 * read-only role for the others, one cache per account.
 */
export function createEnricher(deps: AnalyzerDeps): FindingEnricher {
  return enrichersOf(deps);
}
