import type { Logger } from '@aws-lambda-powertools/logger';
import { MetricUnit, type Metrics } from '@aws-lambda-powertools/metrics';
import type { PublishFailure } from '../adapters/notifier';
import type { Finding } from '../core/findings/finding';
import { METRIC } from '../../contracts/names';
import { recordCounts } from '../shared/observability';

/** Metrics and logs of one round of notifications: enrichment errors, publish failures, findings per rule. */
export function recordNotifyMetrics(
  findings: Finding[],
  failures: PublishFailure[],
  observability: { logger: Logger; metrics: Metrics },
): void {
  const { logger, metrics } = observability;
  const enrichmentErrors = findings.flatMap((f) => f.context.enrichmentErrors);
  if (enrichmentErrors.length > 0) {
    metrics.addMetric(METRIC.enrichmentErrors, MetricUnit.Count, enrichmentErrors.length);
    logger.warn('Some live context could not be checked', { errors: enrichmentErrors });
  }
  if (failures.length > 0) {
    metrics.addMetric(METRIC.publishFailures, MetricUnit.Count, failures.length);
    logger.error('Publishing failed; the retry publishes only what is missing', { failures });
  }
  const failed = new Set(failures.map((f) => f.findingId));
  const published = findings.filter((f) => !failed.has(f.findingId));
  if (published.length > 0) metrics.addMetric(METRIC.findingsPublished, MetricUnit.Count, published.length);
  for (const finding of published) {
    const metric = finding.status === 'resolved' ? METRIC.resolvedNotices : METRIC.findingsPublished;
    recordCounts(metrics, { rule: finding.rule }, { [metric]: 1 });
  }
}
