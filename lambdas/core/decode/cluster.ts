import type { ClusterConfig } from '../../../contracts/config';
import { DEFAULT_DISCOVERY_TAG_KEY } from '../../../contracts/names';
import type { SubscriptionDocument } from './subscription-payload';

/**
 * Which configured cluster a CloudWatch Logs delivery is about, from the configured mapping of log
 * groups to clusters alone. Not from the subscription filter's name: anyone allowed to put a
 * subscription filter on any log group chooses its name, and the account-level subscription policy
 * delivers from every log group of the account. A delivery from a group no cluster names belongs to
 * no cluster, and is never analysed on behalf of one.
 */

/** One cluster as the mapping needs it. */
export interface MappedCluster {
  readonly name: string;
  /**
   * The account whose log groups these are.
   * @default - the deployment's own account
   */
  readonly account?: string;
  /**
   * Exact log group names, or patterns that end in `*` (any name that starts with what precedes it).
   * @default - none: the cluster receives no delivery
   */
  readonly logGroups?: readonly string[];
}

/** Where a delivery came from: its log group, and its account (`owner`) when the document names one. */
export interface DeliverySource {
  readonly logGroup: string;
  readonly account?: string;
}

/** Resolves a delivery's source to a cluster name, or `undefined` when no cluster names its log group. */
export type ClusterResolver = (source: DeliverySource) => string | undefined;

/**
 * Compiles the mapping once (per execution environment): exact names by account in a map, patterns
 * longest first, so the most specific pattern wins when two clusters' patterns overlap. `home` is the
 * deployment's own account: clusters without an account are its clusters; when it is not known, a
 * cluster without an account matches a delivery of any account that no cluster names explicitly.
 */
export function clusterResolver(clusters: readonly MappedCluster[], home?: string): ClusterResolver {
  const exact = new Map<string, string>();
  const patterns: Array<{ account: string; prefix: string; cluster: string }> = [];
  const named = new Set(clusters.flatMap((c) => (c.account === undefined ? [] : [c.account])));
  for (const cluster of clusters) {
    const account = cluster.account ?? home ?? HOME;
    for (const group of cluster.logGroups ?? []) {
      if (group.endsWith('*')) patterns.push({ account, prefix: group.slice(0, -1), cluster: cluster.name });
      else if (!exact.has(keyOf(account, group))) exact.set(keyOf(account, group), cluster.name);
    }
  }
  patterns.sort((a, b) => b.prefix.length - a.prefix.length);

  return ({ logGroup, account }) => {
    if (!logGroup) return undefined;
    const accounts = accountsToTry(account, home, named);
    for (const candidate of accounts) {
      const hit = exact.get(keyOf(candidate, logGroup));
      if (hit !== undefined) return hit;
    }
    for (const pattern of patterns) {
      if (accounts.includes(pattern.account) && logGroup.startsWith(pattern.prefix)) return pattern.cluster;
    }
    return undefined;
  };
}

/** The mapping key of clusters without an account when the deployment's own account is not known. */
const HOME = '';

const keyOf = (account: string, logGroup: string) => `${account}\u0000${logGroup}`;

/** The account keys a delivery may match: its own, and the home key when it is (or may be) the home account. */
function accountsToTry(account: string | undefined, home: string | undefined, named: ReadonlySet<string>): string[] {
  if (home !== undefined) return [account ?? home];
  if (account === undefined) return [HOME];
  return named.has(account) ? [account] : [account, HOME];
}

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

/** What the enrichment and the remediation need to know of a cluster beyond its name. */
export interface ClusterSettings {
  /** Tag that marks the subnets Karpenter launches into. @default karpenter.sh/discovery = cluster name */
  discoveryTagKey: string;
  discoveryTagValue: string;
  /** Managed node group that runs the Karpenter controller. @default every managed node group of the cluster */
  systemNodegroup?: string;
  /** Self-managed Auto Scaling group that runs the controller; takes precedence over `systemNodegroup`. */
  systemAutoScalingGroup?: string;
}

/** A configured cluster as far as its settings go (contracts/config.ts). */
export type ConfiguredCluster = Pick<
  ClusterConfig,
  'name' | 'account' | 'discoveryTag' | 'systemNodegroup' | 'systemAutoScalingGroup'
>;

/**
 * The settings of a cluster, with the discovery tag defaulting to `karpenter.sh/discovery=<name>`.
 * `account` is the cluster's account when it is not the function's own; a home-account cluster is the
 * entry of that name without an account, else any entry of that name.
 */
export function clusterSettingsOf(
  clusters: readonly ConfiguredCluster[],
  cluster: string,
  account?: string,
): ClusterSettings {
  const entry = account
    ? clusters.find((c) => c.name === cluster && c.account === account)
    : (clusters.find((c) => c.name === cluster && !c.account) ?? clusters.find((c) => c.name === cluster));
  return {
    discoveryTagKey: entry?.discoveryTag?.key ?? DEFAULT_DISCOVERY_TAG_KEY,
    discoveryTagValue: entry?.discoveryTag?.value ?? cluster,
    systemNodegroup: entry?.systemNodegroup,
    systemAutoScalingGroup: entry?.systemAutoScalingGroup,
  };
}
