import type { Finding } from './finding';
import { renderFindingText } from './render-text';
import { asciiOnly, codeSafe, escapeMarkdown, truncate } from '../common/sanitize';

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
 * The email Subject, built only from enums and ids (never from log text), printable ASCII, ≤ 99 chars:
 * `[karpenter-doctor] CRITICAL subnet-ip-exhaustion in prod (open)`.
 */
export function subjectOf(finding: Finding): string {
  return asciiOnly(
    `[karpenter-doctor] ${finding.severity.toUpperCase()} ${finding.rule} in ${finding.cluster} (${finding.status})`,
    MAX_SUBJECT_CHARS,
  );
}

/** Plain-text email body: the on-call report, then where the finding came from. */
export function emailTextOf(finding: Finding): string {
  if (finding.status === 'resolved') return resolvedTextOf(finding);
  return [
    renderFindingText(finding),
    '',
    `Finding ${finding.findingId} · account ${finding.account ?? 'unknown'} · region ${finding.region ?? 'unknown'}`,
    'Sent by karpenter-doctor. Log excerpts are quoted as received, with control characters removed.',
  ].join('\n');
}

/** The short notice that an incident has gone quiet: what it was, how long, how often. */
export function resolvedTextOf(finding: Finding): string {
  const span = finding.firstSeen && finding.lastSeen ? `${finding.firstSeen} → ${finding.lastSeen}` : 'unknown';
  return [
    `RESOLVED ${finding.title}  [${finding.rule}]`,
    `  cluster    ${finding.cluster} · ${finding.occurrences} occurrence${finding.occurrences === 1 ? '' : 's'} · ${span}`,
    `  lasted     ${durationOf(finding.firstSeen, finding.lastSeen)}, then nothing more was seen for the resolve window`,
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
export function chatNotificationOf(finding: Finding): Record<string, unknown> {
  if (finding.status === 'resolved') {
    return {
      version: '1.0',
      source: 'custom',
      id: `${finding.findingId}-resolved`,
      content: {
        textType: 'client-markdown',
        title: `[RESOLVED] ${escapeMarkdown(finding.title)} (${finding.cluster})`,
        description: `Quiet since ${finding.lastSeen ?? 'unknown'}: ${finding.occurrences} occurrences over ${durationOf(finding.firstSeen, finding.lastSeen)}.`,
        keywords: [finding.rule, finding.severity, finding.cluster, finding.status],
      },
      metadata: {
        threadId: finding.findingId,
        summary: `RESOLVED ${finding.rule} in ${finding.cluster}`,
        eventType: finding.rule,
      },
    };
  }
  const evidence = finding.evidence[0];
  const description = [
    escapeMarkdown(truncate(finding.diagnosis, 600)),
    evidence ? `\n\`\`\`\n${codeSafe(evidence.message, 300)}\n\`\`\`` : '',
  ].join('');
  return {
    version: '1.0',
    source: 'custom',
    id: finding.findingId,
    content: {
      textType: 'client-markdown',
      title: `${severityMark(finding.severity)} ${escapeMarkdown(finding.title)} (${finding.cluster})`,
      description,
      // Commands go in code spans, so they stay copy-pasteable instead of markdown-escaped.
      nextSteps: finding.remediation.slice(0, 3).map((step) => {
        const command = step.commands[0];
        return command ? `${escapeMarkdown(step.title)}: \`${codeSafe(command, 400)}\`` : escapeMarkdown(step.title);
      }),
      keywords: [finding.rule, finding.severity, finding.cluster, finding.status],
    },
    metadata: {
      threadId: finding.findingId,
      summary: `${finding.severity.toUpperCase()} ${finding.rule} in ${finding.cluster}`,
      eventType: finding.rule,
      additionalContext: {
        occurrences: String(finding.occurrences),
        firstSeen: finding.firstSeen ?? '',
        lastSeen: finding.lastSeen ?? '',
      },
    },
  };
}

/**
 * The SNS publish of a finding. If the message would pass the SNS size limit, evidence and entity
 * lists are cut down first, then the diagnosis text: the finding is never dropped for its size.
 */
export function snsNotificationOf(finding: Finding): SnsNotification {
  let current = finding;
  let message = structured(current);
  for (const shrink of SHRINK_STEPS) {
    if (Buffer.byteLength(message, 'utf8') <= MAX_SNS_MESSAGE_BYTES) break;
    current = shrink(current);
    message = structured(current);
  }
  return {
    subject: subjectOf(finding),
    message,
    attributes: { rule: finding.rule, severity: finding.severity, cluster: finding.cluster, status: finding.status },
  };
}

function structured(finding: Finding): string {
  return JSON.stringify({
    default: JSON.stringify(finding),
    email: emailTextOf(finding),
    https: JSON.stringify(chatNotificationOf(finding)),
  });
}

const SHRINK_STEPS: ReadonlyArray<(finding: Finding) => Finding> = [
  (f) => ({ ...f, evidence: f.evidence.map((e) => ({ ...e, message: truncate(e.message, 300) })) }),
  (f) => ({
    ...f,
    entities: Object.fromEntries(Object.entries(f.entities).map(([k, v]) => [k, (v ?? []).slice(0, 10)])),
  }),
  (f) => ({
    ...f,
    evidence: f.evidence.slice(0, 1),
    context: { ...f.context, subnets: f.context.subnets?.slice(0, 20) },
  }),
  (f) => ({
    ...f,
    diagnosis: truncate(f.diagnosis, 2000),
    remediation: f.remediation.map((s) => ({ ...s, detail: truncate(s.detail, 500) })),
  }),
];

const severityMark = (severity: Finding['severity']): string =>
  ({ critical: '[CRITICAL]', high: '[HIGH]', medium: '[MEDIUM]', low: '[LOW]' })[severity];
