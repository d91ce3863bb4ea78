import type { SubscriptionDocument } from './decode';

const CONTAINER_INSIGHTS = /^\/aws\/containerinsights\/([^/]+)\//;

/**
 * The cluster a subscription payload is about: named by the subscription filter the stack created
 * (`<prefix><cluster>`), else by a Container Insights log group (`/aws/containerinsights/<cluster>/…`),
 * else the only configured cluster, else the log group itself, so that nothing is dropped.
 */
export function clusterOfDocument(
  document: Pick<SubscriptionDocument, 'logGroup' | 'subscriptionFilters'>,
  filterPrefix: string,
  configured: readonly string[],
): string {
  for (const filter of document.subscriptionFilters) {
    if (filter.startsWith(filterPrefix) && filter.length > filterPrefix.length)
      return filter.slice(filterPrefix.length);
  }
  const insights = CONTAINER_INSIGHTS.exec(document.logGroup);
  if (insights?.[1]) return insights[1];
  if (configured.length === 1 && configured[0]) return configured[0];
  return document.logGroup || 'unknown';
}
