import { DETAIL_TYPES } from '../../../contracts/events';
import type { Finding } from './finding';

/** One PutEvents entry, before the bus name is added. */
export interface EventEntry {
  /** The finding the entry is about; used to mark it published, not sent. */
  findingId: string;
  source: string;
  detailType: string;
  detail: string;
  resources: string[];
}

export interface ArnScope {
  partition: string;
  region: string;
  account: string;
}

/** The EventBridge entry of a finding: `detail` is the finding document itself. */
export function findingEventOf(
  finding: Finding,
  source: string,
  scope: ArnScope | undefined,
  /** Why this event goes out: an escalation carries `reason: escalation` and what changed. */
  notice?: { kind: string; generation?: number; changed?: string },
): EventEntry {
  const escalation = notice?.kind === 'escalated' ? { reason: 'escalation', changed: notice.changed ?? '' } : {};
  return {
    findingId: finding.findingId,
    source,
    detailType: finding.status === 'resolved' ? DETAIL_TYPES.resolved : DETAIL_TYPES.finding,
    detail: JSON.stringify({ ...finding, ...escalation }),
    resources: scope ? resourceArnsOf(finding, scope) : [],
  };
}

/**
 * ARNs of what the finding is about: the cluster, its subnets and the node groups the context
 * names. Node group ARNs carry a generated suffix, so only those the enrichment read are listed.
 */
export function resourceArnsOf(finding: Finding, scope: ArnScope): string[] {
  const { partition, region } = scope;
  // The cluster's account: another account of the organisation, or this one.
  const account = finding.account ?? scope.account;
  const arns = new Set<string>([`arn:${partition}:eks:${region}:${account}:cluster/${finding.cluster}`]);
  for (const subnet of finding.entities.subnets ?? [])
    arns.add(`arn:${partition}:ec2:${region}:${account}:subnet/${subnet}`);
  for (const group of finding.context.nodegroups ?? []) if (group.arn) arns.add(group.arn);
  return [...arns];
}

/** Partition, region and account from a Lambda function ARN (`arn:aws:lambda:eu-west-1:123…:function:x`). */
export function scopeOfArn(arn: string | undefined): ArnScope | undefined {
  const parts = arn?.split(':');
  if (!parts || parts.length < 5 || parts[0] !== 'arn' || !parts[1] || !parts[3] || !parts[4]) return undefined;
  return { partition: parts[1], region: parts[3], account: parts[4] };
}

/** The EventBridge entry of a remediation report; the remediator's rule never matches this detail-type. */
export function remediationEventOf(
  report: { findingId: string },
  source: string,
  resources: string[] = [],
): EventEntry {
  return {
    findingId: report.findingId,
    source,
    detailType: DETAIL_TYPES.remediation,
    detail: JSON.stringify(report),
    resources,
  };
}
