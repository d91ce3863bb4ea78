import type { Finding } from './finding';
import { shrunkToFit } from './fit-size';
import { sanitizeLine } from '../common/sanitize';
import { chatOf, resolvedFacts, type NoticeOf } from '../notice/chat';
import { noticeSubject } from '../notice/subject';
import { noticeText } from '../notice/text';
export type { NoticeOf } from '../notice/chat';

/** SNS accepts at most 262,144 bytes; the margin covers the attributes and the Subject. */
export const MAX_SNS_MESSAGE_BYTES = 256 * 1024 - 4 * 1024;
/**
 * The SNS Subject limit: printable ASCII, under 100 characters
 * (https://docs.aws.amazon.com/sns/latest/api/API_Publish.html).
 */
export const MAX_SUBJECT_CHARS = 99;

/** What one SNS publish of a finding carries (MessageStructure=json). */
export interface SnsNotification {
  subject: string;
  /** JSON string with `default` (finding JSON), `email` (plain text) and `https` (chat JSON). */
  message: string;
  attributes: Record<'rule' | 'severity' | 'cluster' | 'status', string>;
}

/**
 * The email Subject, built only from enums, ids and the places the finding names, printable ASCII,
 * at most 60 characters (what a phone shows): `CRITICAL prod: subnets out of IPs eu-west-1a 0/11 IPs free`.
 */
export function subjectOf(finding: Finding, notice: NoticeOf = defaultNotice(finding)): string {
  return noticeSubject(finding, notice.kind);
}

/** A finding's status as a notice kind, when the caller does not say why it goes out. */
const defaultNotice = (finding: Finding): NoticeOf => ({ kind: finding.status === 'resolved' ? 'resolved' : 'new' });

/** Plain-text email body: the first screen, the fix step by step, then where the finding came from. */
export function emailTextOf(finding: Finding, notice: NoticeOf = defaultNotice(finding)): string {
  if (notice.kind === 'resolved') return resolvedTextOf(finding, notice.changed, notice.closes);
  const header = [
    ...(notice.kind === 'escalated'
      ? [`ESCALATED: ${sanitizeLine(notice.changed ?? `now ${finding.severity}`, 300)}`]
      : []),
    ...(notice.follows ? [`FOLLOWS: ${sanitizeLine(notice.follows, 300)}`] : []),
  ];
  return [
    noticeText(finding, undefined, header),
    '',
    `Finding ${finding.findingId} · account ${finding.account ?? 'unknown'} · region ${finding.region ?? 'unknown'}`,
    'Sent by karpenter-doctor. Log excerpts are quoted as received, with control characters removed.',
  ].join('\n');
}

/**
 * The short notice that an incident is over: what it was, how long, how often, why it is over (quiet
 * for the resolve window, or what the cluster says now), the subnets now and what it closes with it.
 */
export function resolvedTextOf(finding: Finding, said?: string, closes: readonly string[] = []): string {
  const span = finding.firstSeen && finding.lastSeen ? `${finding.firstSeen} → ${finding.lastSeen}` : 'unknown';
  const now = [...(said === undefined ? [] : [sanitizeLine(said, 300)]), ...resolvedFacts(finding)];
  return [
    `RESOLVED ${finding.title}`,
    `  cluster  ${finding.cluster} · ${finding.occurrences} occurrence${finding.occurrences === 1 ? '' : 's'} · ${span}`,
    `  lasted   ${durationOf(finding.firstSeen, finding.lastSeen)}, then ${said === undefined ? 'nothing more was seen for the resolve window' : "the cluster's state no longer showed it"}`,
    ...now.map((line, i) => `${i === 0 ? '  now      ' : '           '}${line}`),
    ...closes.map((line, i) => `${i === 0 ? '  closes   ' : '           '}${sanitizeLine(line, 300)}`),
    '',
    `Finding ${finding.findingId} · account ${finding.account ?? 'unknown'} · region ${finding.region ?? 'unknown'}`,
    'Sent by karpenter-doctor. A new occurrence opens a new incident.',
  ].join('\n');
}

/** `2 h 05 min`, `12 min`, or `under a minute`, between two ISO times. */
export function durationOf(from: string | null, to: string | null): string {
  const ms = from && to ? Date.parse(to) - Date.parse(from) : NaN;
  if (!Number.isFinite(ms) || ms < 0) return 'an unknown time';
  const minutes = Math.floor(ms / 60_000);
  if (minutes < 1) return 'under a minute';
  const hours = Math.floor(minutes / 60);
  return hours ? `${hours} h ${String(minutes % 60).padStart(2, '0')} min` : `${minutes} min`;
}

/** A chat custom notification (Amazon Q Developer in chat applications schema), threaded by finding id. */
export function chatNotificationOf(
  finding: Finding,
  notice: NoticeOf = defaultNotice(finding),
): Record<string, unknown> {
  return chatOf(finding, notice);
}

/**
 * The SNS publish of a finding. If the message would pass the SNS size limit, evidence and entity
 * lists are cut down first, then the diagnosis text: the finding is never dropped for its size.
 */
export function snsNotificationOf(finding: Finding, notice: NoticeOf = defaultNotice(finding)): SnsNotification {
  const message = shrunkToFit(finding, (f) => structured(f, notice), MAX_SNS_MESSAGE_BYTES);
  return {
    subject: subjectOf(finding, notice),
    message,
    attributes: { rule: finding.rule, severity: finding.severity, cluster: finding.cluster, status: finding.status },
  };
}

function structured(finding: Finding, notice: NoticeOf): string {
  return JSON.stringify({
    default: JSON.stringify(finding),
    email: emailTextOf(finding, notice),
    https: JSON.stringify(chatNotificationOf(finding, notice)),
  });
}
