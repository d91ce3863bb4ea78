import { resourceArnsOf } from '../findings/bus-entries';
import type { Finding } from '../findings/finding';
import { chatCode, chatText, truncate } from '../common/sanitize';
import { EXHAUSTION_RULE, HEADROOM_RULE } from '../headroom/related';
import { firstSentence, runNowOf, stepKind, stepTitle } from './text';
import { impactOf } from './impact';
import { placeOf } from './place';
import { noticeSubject, type NoticeKind } from './subject';

/** Longest command put in a chat code span; a longer one is never cut: the step points to the email. */
export const MAX_CHAT_COMMAND = 400;

/** How one publish of a finding is told: which notice of the incident it is, and what changed. */
export interface NoticeOf {
  kind: NoticeKind;
  /** The incident's notification count: with the finding id, a unique id per publish. */
  generation?: number;
  /** What changed since the last notice: for an escalation, or what the cluster says now for a resolution. */
  changed?: string;
  /** For a resolution: the related incidents it closes with it, one line each. */
  closes?: string[];
  /** For a first notice: the related incident it follows (a headroom warning on the same subnets). */
  follows?: string;
}

/** `\`command\`` when it fits, or a pointer to the email; never a command cut inside its code span. */
export const codeSpan = (command: string): string =>
  command.length > MAX_CHAT_COMMAND ? '(command too long for chat: see the email)' : `\`${chatCode(command)}\``;

/** The partition of a region, for the ARNs of relatedResources. */
const partitionOf = (region: string): string =>
  region.startsWith('cn-') ? 'aws-cn' : region.startsWith('us-gov-') ? 'aws-us-gov' : 'aws';

/** The Amazon Q Developer custom notification of a finding (version 1.0, source custom). */
export function chatOf(finding: Finding, notice: NoticeOf = { kind: 'new' }): Record<string, unknown> {
  const subject = noticeSubject(finding, notice.kind);
  const related =
    finding.account && finding.region
      ? resourceArnsOf(finding, {
          partition: partitionOf(finding.region),
          region: finding.region,
          account: finding.account,
        })
      : [];
  const generation = notice.generation ?? 1;
  const description =
    notice.kind === 'resolved'
      ? [
          notice.changed === undefined
            ? `*Resolved*: nothing more seen since ${chatText(finding.lastSeen ?? 'unknown')}.`
            : `*Resolved*: the cluster now says ${chatText(notice.changed)}.`,
          ...resolvedFacts(finding).map((l) => `• ${chatText(l)}`),
          ...(notice.closes ?? []).map((l) => `• ${chatText(l)}`),
        ].join('\n')
      : [
          ...(notice.changed ? [`*What changed*: ${chatText(notice.changed)}`] : []),
          ...(notice.follows ? [`*Follows*: ${chatText(notice.follows)}`] : []),
          `*Impact*: ${chatText(impactOf(finding))}`,
          `*Cause*: ${chatText(firstSentence(finding.diagnosis))}`,
          `*Where*: ${chatText([placeOf(finding), `cluster ${finding.cluster}`, finding.region].filter(Boolean).join(' · '))}`,
          `*Run now* (read-only): ${codeSpan(runNowOf(finding))}`,
        ].join('\n');
  return {
    version: '1.0',
    source: 'custom',
    id: `${finding.findingId}-${generation}`,
    content: {
      textType: 'client-markdown',
      title: chatText(subject),
      description,
      nextSteps:
        notice.kind === 'resolved'
          ? []
          : finding.remediation.map((step) => {
              const kind = stepKind(step);
              const commands = step.commands.map(codeSpan).join(' then ');
              return `${kind ? `[${kind}] ` : ''}${chatText(stepTitle(step))}${commands ? `: ${commands}` : ''}`;
            }),
      keywords: [finding.severity, finding.cluster, finding.status],
    },
    metadata: {
      threadId: threadOf(finding),
      summary: subject,
      eventType: finding.rule,
      relatedResources: related,
      additionalContext: {
        occurrences: String(finding.occurrences),
        firstSeen: finding.firstSeen ?? '',
        lastSeen: finding.lastSeen ?? '',
        generation: String(generation),
        ...(notice.kind === 'escalated' ? { reason: 'escalation' } : {}),
      },
    },
  };
}

/**
 * The chat thread of a finding: its own, but a cluster's subnet running low and subnet out of IPs are one
 * problem at two stages (headroom/related.ts), so the warning, the outage and their resolution share one.
 */
function threadOf(finding: Finding): string {
  if (finding.rule !== EXHAUSTION_RULE && finding.rule !== HEADROOM_RULE) return finding.findingId;
  return `subnet-ips-${finding.account ?? ''}-${finding.cluster}`;
}

/**
 * The subnets of a resolved finding with their free IPs now (re-read at resolution), one line each:
 * the subnets it names when it names any; a read that failed says so instead of going silent.
 */
export function resolvedFacts(finding: Finding): string[] {
  const named = finding.entities.subnets ?? [];
  const facts = (finding.context.subnets ?? []).filter(
    (s) => s.availableIps !== undefined && (named.length === 0 || named.includes(s.subnetId)),
  );
  const lines = facts.map(
    (s) =>
      `${s.subnetId}${s.availabilityZone ? ` (${s.availabilityZone})` : ''}: ${s.availableIps}${s.totalIps !== undefined ? ` of ${s.totalIps}` : ''} IPs free now`,
  );
  const unread = named.filter((id) => !facts.some((s) => s.subnetId === id));
  const error = finding.context.enrichmentErrors[0];
  if (unread.length > 0 && error)
    lines.push(`${unread.join(', ')}: free IPs now not known (${error.source}: ${truncate(error.message, 160)})`);
  return lines;
}
