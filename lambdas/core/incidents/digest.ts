import { clusterScopeOf } from '../decode/account';
import type { Incident } from './aggregate';
import { CATALOG, severityOf, type RuleId } from '../recognise/rules';
import type { FindingStatus } from '../findings/finding';
import { SEVERITIES, type Severity } from '../model';
import { sanitizeLine } from '../common/sanitize';

/**
 * Bounded notices (issue 12): however many incidents one delivery holds, each cluster gets at most a
 * few notices of their own — the most severe — and one digest of everything else. The decisions are
 * pure; the notifier only publishes what they return.
 */

export { DEFAULT_LIMITS, type DeliveryLimits } from './delivery-limits';

/**
 * The incidents a delivery records one by one (the first `max`, most severe and most frequent first,
 * the order the aggregator returns) and the overflow that is only counted: the DynamoDB work of a
 * delivery stays bounded whatever it holds.
 */
export function boundIncidents(incidents: Incident[], max: number): { tracked: Incident[]; overflow: Incident[] } {
  const ordered = [...incidents].sort((a, b) => rank(severityOf(a)) - rank(severityOf(b)));
  return { tracked: ordered.slice(0, max), overflow: ordered.slice(max) };
}

/** What the plan needs to know of a due notification. */
export interface NoticeCandidate {
  findingId: string;
  cluster: string;
  /** The cluster's account when it is not the deployment's own. */
  account?: string;
  severity: Severity;
  status: FindingStatus;
}

const STATUS_ORDER: Record<FindingStatus, number> = { open: 0, ongoing: 1, resolved: 2 };

/**
 * Splits due notifications into those sent on their own — per cluster (of one account: two clusters
 * of the same name in two accounts are two clusters) the `max` (of the cluster's scope) most severe, new
 * before ongoing before resolved — and those told in the cluster's digest. Deterministic, so the
 * retry of a delivery makes the same split of what is left.
 */
export function planNotices<T extends NoticeCandidate>(
  due: T[],
  max: number | ((scope: string) => number),
): { individual: T[]; digested: T[] } {
  const maxOf = typeof max === 'number' ? () => max : max;
  const ordered = due
    .map((item, index) => ({ item, index }))
    .sort(
      (a, b) =>
        rank(a.item.severity) - rank(b.item.severity) ||
        STATUS_ORDER[a.item.status] - STATUS_ORDER[b.item.status] ||
        a.index - b.index,
    );
  const perCluster = new Map<string, number>();
  const individual: T[] = [];
  const digested: T[] = [];
  for (const { item } of ordered) {
    const scope = clusterScopeOf(item);
    const count = perCluster.get(scope) ?? 0;
    if (count < maxOf(scope)) {
      individual.push(item);
      perCluster.set(scope, count + 1);
    } else digested.push(item);
  }
  return { individual, digested };
}

/** One incident as the digest lists it. */
export interface DigestEntry {
  findingId: string;
  rule: RuleId;
  severity: Severity;
  status: FindingStatus | 'untracked';
  /** What separates the incident (a taint, a node pool); sanitised. */
  key?: string;
  occurrences: number;
  /** Distinct workloads of the incident in this delivery. */
  workloads: number;
}

/** The digest of one cluster for one delivery (SNS `default`). */
export interface Digest {
  schemaVersion: '1';
  kind: 'digest';
  cluster: string;
  account: string | null;
  region: string | null;
  /** Incidents in this digest: told here, not in notices of their own. */
  incidents: number;
  /** Of those, incidents over the per-delivery limit, counted but not kept in the incident table. */
  untracked: number;
  byRule: Array<{
    rule: RuleId;
    title: string;
    severity: Severity;
    incidents: number;
    occurrences: number;
    workloads: number;
  }>;
  /** The most severe entries, at most MAX_DIGEST_ENTRIES. */
  entries: DigestEntry[];
  /** Workloads named in the entries (sanitised), at most MAX_TOP_WORKLOADS. */
  topWorkloads: string[];
  /** Where to see the rest. */
  commands: string[];
}

export const MAX_DIGEST_ENTRIES = 50;
export const MAX_TOP_WORKLOADS = 20;

export interface DigestMember {
  findingId: string;
  cluster: string;
  /** The cluster's account when it is not the deployment's own. */
  account?: string;
  rule: RuleId;
  severity: Severity;
  status: FindingStatus | 'untracked';
  keyValue?: string;
  occurrences: number;
  workloads: string[];
  /** Distinct workloads counted beyond the entity cap (`Incident.workloadCount`). */
  workloadCount?: number;
}

/** A digest member from an incident of this delivery (digested or untracked). */
export function memberOf(
  incident: Incident,
  status: DigestMember['status'],
  severity: Severity = severityOf(incident),
): DigestMember {
  return {
    findingId: incident.findingId,
    cluster: incident.cluster,
    ...(incident.account ? { account: incident.account } : {}),
    rule: incident.rule,
    severity,
    status,
    keyValue: incident.keyValue,
    occurrences: incident.occurrences,
    workloads: incident.entities.workloads ?? [],
    workloadCount: incident.workloadCount,
  };
}

/** The digest of `members` in `cluster`; `dashboard` names where the operator sees everything. */
export function buildDigest(
  cluster: string,
  members: DigestMember[],
  where: {
    account?: string;
    region?: string;
    dashboard?: string;
    logGroup?: string;
    /** Epoch ms from which to read the log group again: the start of the storm. */
    startTime?: number;
  },
): Digest {
  const ordered = [...members].sort((a, b) => rank(a.severity) - rank(b.severity) || b.occurrences - a.occurrences);
  const byRule = new Map<RuleId, Digest['byRule'][number]>();
  const workloadsOf = (m: DigestMember): number => Math.max(m.workloadCount ?? 0, m.workloads.length);
  for (const member of ordered) {
    const entry = byRule.get(member.rule) ?? {
      rule: member.rule,
      title: CATALOG[member.rule].title,
      // Members come most severe first: a rule's line shows its worst incident.
      severity: member.severity,
      incidents: 0,
      occurrences: 0,
      workloads: 0,
    };
    entry.incidents++;
    entry.occurrences += member.occurrences;
    entry.workloads += workloadsOf(member);
    byRule.set(member.rule, entry);
  }
  const topWorkloads = [...new Set(ordered.flatMap((m) => m.workloads))]
    .slice(0, MAX_TOP_WORKLOADS)
    .map((w) => sanitizeLine(w, 253));
  const region = where.region ? ` --region ${where.region}` : '';
  const commands = [
    ...(where.dashboard
      ? [`https://console.aws.amazon.com/cloudwatch/home#dashboards/dashboard/${where.dashboard}`]
      : []),
    ...(where.logGroup
      ? [
          // The installed CLI (npm pack, npm install --global), not npx of a name the registry does not have.
          `aws logs filter-log-events --log-group-name ${where.logGroup} --start-time ${where.startTime ?? '<epoch-ms>'} --output json${region} > logs.json && karpenter-doctor analyze logs.json`,
        ]
      : ['karpenter-doctor analyze <exported-log-file>']),
  ];
  return {
    schemaVersion: '1',
    kind: 'digest',
    cluster,
    account: where.account ?? null,
    region: where.region ?? null,
    incidents: members.length,
    untracked: members.filter((m) => m.status === 'untracked').length,
    byRule: [...byRule.values()].sort((a, b) => rank(a.severity) - rank(b.severity) || b.incidents - a.incidents),
    entries: ordered.slice(0, MAX_DIGEST_ENTRIES).map((m) => ({
      findingId: m.findingId,
      rule: m.rule,
      severity: m.severity,
      status: m.status,
      ...(m.keyValue ? { key: sanitizeLine(m.keyValue, 200) } : {}),
      occurrences: m.occurrences,
      workloads: workloadsOf(m),
    })),
    topWorkloads,
    commands,
  };
}

const rank = (severity: Severity): number => SEVERITIES.indexOf(severity);
