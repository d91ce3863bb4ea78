import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
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
