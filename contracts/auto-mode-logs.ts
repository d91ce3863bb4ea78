/**
 * `clusters[].autoModeLogs`: the stack creates EKS Auto Mode's `AUTO_MODE_COMPUTE_LOGS` delivery (its
 * managed Karpenter's logs) into a log group of its own, and subscribes that group like the others
 * (docs/auto-mode.md). Shared by the config schema, the settings check and the stack.
 */

/** The vended log type of Auto Mode's compute component (its managed Karpenter). */
export const AUTO_MODE_COMPUTE_LOG_TYPE = 'AUTO_MODE_COMPUTE_LOGS';

/** What a cluster says of its Auto Mode compute logs, as far as these rules need it. */
export interface AutoModeLogsPlacement {
  name: string;
  account?: string;
  logGroups?: readonly string[];
  autoModeLogs?: { create?: boolean; logGroupName?: string };
}

/** Whether the stack creates the delivery (and its log group) for this cluster. */
export const createsAutoModeLogs = (cluster: AutoModeLogsPlacement): boolean =>
  cluster.autoModeLogs !== undefined && cluster.autoModeLogs.create !== false;

/**
 * The log group the delivery writes to: the configured name, or one under `/aws/vendedlogs/`, the
 * prefix CloudWatch Logs suggests for vended logs.
 */
export const autoModeLogGroupOf = (cluster: AutoModeLogsPlacement): string =>
  cluster.autoModeLogs?.logGroupName ?? `/aws/vendedlogs/eks/${cluster.name}/auto-mode-compute`;

/** Every log group of the cluster the analyzer reads: the configured ones, and the one the stack creates. */
export const subscribedLogGroupsOf = (cluster: AutoModeLogsPlacement): string[] => [
  ...new Set([...(cluster.logGroups ?? []), ...(createsAutoModeLogs(cluster) ? [autoModeLogGroupOf(cluster)] : [])]),
];

/** What is wrong with a cluster's log sources, as [field, message]; empty when nothing is. */
export function logSourceProblems(cluster: AutoModeLogsPlacement): Array<[field: string, message: string]> {
  const problems: Array<[string, string]> = [];
  if (subscribedLogGroupsOf(cluster).length === 0)
    problems.push([
      'logGroups',
      'expected at least one log group that holds Karpenter logs or Kubernetes events (or autoModeLogs, which creates one)',
    ]);
  if (createsAutoModeLogs(cluster) && cluster.account)
    problems.push([
      'autoModeLogs',
      `cluster ${cluster.name} is in account ${cluster.account}: the Auto Mode log delivery is created only for clusters of the deploying account`,
    ]);
  return problems;
}
