import { Logger } from '@aws-lambda-powertools/logger';
import { MetricUnit, Metrics } from '@aws-lambda-powertools/metrics';
import type { Context } from 'aws-lambda';
import { METRICS_NAMESPACE } from '../../contracts/names';

/**
 * The one Logger and Metrics setup of the functions (Powertools). Each function names itself as the
 * service, which becomes the `service` dimension of its metrics; metrics are flushed by the handler.
 */
export function observability(serviceName: string): { logger: Logger; metrics: Metrics } {
  return {
    logger: new Logger({ serviceName }),
    metrics: new Metrics({ namespace: METRICS_NAMESPACE, serviceName }),
  };
}

/**
 * One invocation of a handler: the logger on Lambda's context, without the keys the last invocation
 * appended, and the metrics flushed however `run` ends (the one place functions flush them).
 */
export async function observeInvocation<T>(
  { logger, metrics }: { logger: Logger; metrics: Metrics },
  context: Context,
  run: () => Promise<T>,
): Promise<T> {
  logger.resetKeys();
  logger.addContext(context);
  try {
    return await run();
  } finally {
    metrics.publishStoredMetrics();
  }
}

/**
 * One EMF record with these dimensions and every count whose value is known: per-rule, per-action or
 * per-subnet metrics, which the function's default dimensions would otherwise merge.
 */
export function recordCounts(
  metrics: Metrics,
  dimensions: Record<string, string>,
  values: Record<string, number | undefined>,
): void {
  const single = metrics.singleMetric();
  for (const [key, dimension] of Object.entries(dimensions)) single.addDimension(key, dimension);
  for (const [name, value] of Object.entries(values)) {
    if (value !== undefined) single.addMetric(name, MetricUnit.Count, value);
  }
}
