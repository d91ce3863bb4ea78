import type { Finding } from '../findings/finding';
import { asciiOnly } from '../common/sanitize';
import { placeOf } from './place';
import { shortTitleOf } from './short-titles';

/** What a phone shows of a subject line: severity (or ESCALATED / RESOLVED), cluster, what, where. */
export const MAX_NOTICE_SUBJECT = 60;

/** Why this notice goes out, as the incident lifecycle decided it. */
export type NoticeKind = 'new' | 'escalated' | 'reminder' | 'resolved';

/**
 * `CRITICAL prod: subnets out of IPs eu-west-1a 0/11 IPs free`, within 60 printable ASCII characters.
 * The place is dropped before the what is cut; the cluster name is cut last.
 */
export function noticeSubject(finding: Finding, kind: NoticeKind = 'new'): string {
  const prefix =
    kind === 'resolved'
      ? 'RESOLVED'
      : kind === 'escalated'
        ? `ESCALATED ${finding.severity.toUpperCase()}`
        : finding.severity.toUpperCase();
  const cluster = asciiOnly(finding.cluster, 20);
  const what = shortTitleOf(finding.rule);
  const place = asciiOnly(placeOf(finding), MAX_NOTICE_SUBJECT);
  const full = `${prefix} ${cluster}: ${what}${place ? ` ${place}` : ''}`;
  if (full.length <= MAX_NOTICE_SUBJECT) return full;
  const room = MAX_NOTICE_SUBJECT - `${prefix} ${cluster}: ${what} `.length;
  if (place && room >= 8) return `${prefix} ${cluster}: ${what} ${asciiOnly(place, room)}`;
  return asciiOnly(`${prefix} ${cluster}: ${what}`, MAX_NOTICE_SUBJECT);
}
