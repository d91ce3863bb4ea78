import { DETAIL_TYPES, type FindingEventReason } from '../../../contracts/events';
import type { Finding } from './finding';
import { shrunkToFit } from './fit-size';

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

/** A notice's kind → the event's `reason`: what a rule on the bus matches to tell a new finding from a repeat. */
const NOTICE_REASONS: Readonly<Record<string, FindingEventReason>> = {
  new: 'open',
  escalated: 'escalation',
  reminder: 'reminder',
  resolved: 'resolved',
};

/** The EventBridge entry of a finding: `detail` is the finding document itself, with why it goes out. */
export function findingEventOf(
  finding: Finding,
  source: string,
  scope: ArnScope | undefined,
  /** Why this event goes out: an escalation carries `reason: escalation` and what changed. */
  notice?: { kind: string; generation?: number; changed?: string },
): EventEntry {
  const reason: FindingEventReason =
    finding.status === 'resolved' ? 'resolved' : (NOTICE_REASONS[notice?.kind ?? 'new'] ?? 'open');
  const changed = reason === 'escalation' ? { changed: notice?.changed ?? '' } : {};
  const detailType = finding.status === 'resolved' ? DETAIL_TYPES.resolved : DETAIL_TYPES.finding;
  const resources = scope ? resourceArnsOf(finding, scope) : [];
  const envelope = byteLength(source) + byteLength(detailType) + resources.reduce((n, r) => n + byteLength(r), 0);
  const detail = shrunkToFit(
    finding,
    (f) => JSON.stringify({ ...f, reason, ...changed }),
    MAX_EVENT_ENTRY_BYTES - envelope,
  );
  return { findingId: finding.findingId, source, detailType, detail, resources };
}

/**
 * PutEvents refuses an entry above 256 KB, counted as the bytes of its Source, DetailType, Detail
 * and Resources (plus 14 for a Time, which these entries leave to EventBridge).
 */
export const MAX_EVENT_ENTRY_BYTES = 256 * 1024;

const byteLength = (text: string): number => Buffer.byteLength(text, 'utf8');

/** The size PutEvents counts for an entry (EventBridge User Guide, "Calculating PutEvents event entry size"). */
export const eventEntryBytes = (entry: Pick<EventEntry, 'source' | 'detailType' | 'detail' | 'resources'>): number =>
  byteLength(entry.source) +
  byteLength(entry.detailType) +
  byteLength(entry.detail) +
  entry.resources.reduce((n, r) => n + byteLength(r), 0);

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
