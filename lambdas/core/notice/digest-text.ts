import type { Digest } from '../incidents/digest';
import type { SnsNotification } from '../findings/render-notification';
import { CATALOG } from '../recognise/rules';
import { asciiOnly, chatCode, chatText, sanitizeLine } from '../common/sanitize';

/**
 * The storm digest in words an on-call reads: the common cause in one sentence first, then what is
 * affected, then commands that run from an installed CLI. No rule id, no finding id.
 */
export function digestCause(digest: Digest): string {
  const top = digest.byRule[0];
  if (!top) return `${digest.incidents} more incidents in ${digest.cluster}.`;
  const share =
    top.incidents === digest.incidents ? `All ${digest.incidents}` : `${top.incidents} of ${digest.incidents}`;
  const namespaces = [...new Set(digest.topWorkloads.map((w) => w.split('/')[0]))];
  const where = namespaces.length === 1 ? ` in namespace ${namespaces[0]}` : '';
  const keys = [...new Set(digest.entries.filter((e) => e.key).map((e) => keyFamily(e.key!)))];
  const family = keys.length === 1 && top.incidents > 1 ? ` (all ${keys[0]})` : '';
  return `${share} ${digest.incidents === 1 ? 'incident' : 'incidents'} in ${digest.cluster}: ${CATALOG[top.rule].title.toLowerCase()}${where}${family}.`;
}

/** A taint or label family: its key, without the value (`dedicated=gpu:NoSchedule` → `dedicated`). */
const keyFamily = (key: string): string => key.split(/[=:]/)[0]!;

export function digestSubject(digest: Digest): string {
  const worst = (digest.byRule[0]?.severity ?? 'low').toUpperCase();
  return asciiOnly(
    `${worst} ${digest.cluster}: ${digest.incidents} more incident${digest.incidents === 1 ? '' : 's'} (digest)`,
    60,
  );
}

export function digestEmail(digest: Digest): string {
  const workloads = digest.byRule.reduce((sum, r) => sum + r.workloads, 0);
  return [
    sanitizeLine(digestCause(digest), 400),
    `  told here, not one by one: ${digest.incidents} incidents${workloads ? `, ${workloads} workloads affected` : ''}`,
    ...(digest.untracked ? [`  ${digest.untracked} of them over the per-delivery limit: counted, not tracked`] : []),
    ...(digest.commands[0] ? [`  run now  $ ${digest.commands[0]}`] : []),
    '',
    'By cause:',
    ...digest.byRule.map(
      (r) =>
        `  ${r.severity.toUpperCase().padEnd(8)} ${r.title}: ${r.incidents} incident${r.incidents === 1 ? '' : 's'}, ${r.occurrences} occurrences` +
        (r.workloads ? `, ${r.workloads} workloads` : ''),
    ),
    ...(digest.topWorkloads.length ? ['', `Workloads: ${digest.topWorkloads.join(', ')}`] : []),
    '',
    'See everything:',
    ...digest.commands.map((c) => `  $ ${c}`),
    '',
    `Account ${digest.account ?? 'unknown'} · region ${digest.region ?? 'unknown'}. Sent by karpenter-doctor.`,
  ].join('\n');
}

export function digestChat(digest: Digest, subject: string): Record<string, unknown> {
  const worst = digest.byRule[0]?.severity ?? 'low';
  return {
    version: '1.0',
    source: 'custom',
    id: `digest-${digest.cluster}-${membersHash(digest)}`,
    content: {
      textType: 'client-markdown',
      title: chatText(subject),
      description: [
        chatText(digestCause(digest)),
        ...digest.byRule.slice(0, 10).map((r) => `• ${r.severity.toUpperCase()} ${chatText(r.title)}: ${r.incidents}`),
      ].join('\n'),
      nextSteps: digest.commands.filter((c) => !c.startsWith('https://')).map((c) => `\`${chatCode(c)}\``),
      keywords: ['digest', worst, digest.cluster],
    },
    // A thread of its own: the digest is not any one incident's.
    metadata: { threadId: `digest-${digest.cluster}`, summary: subject, eventType: 'digest' },
  };
}

/** FNV-1a of the digest's finding ids: a publish id that changes with what the digest holds, naming none. */
function membersHash(digest: Digest): string {
  let hash = 0x811c9dc5;
  for (const char of digest.entries.map((e) => e.findingId).join(',')) {
    hash ^= char.charCodeAt(0);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, '0');
}

/** The SNS publish of a digest: Subject from counts and ids only, email text, chat JSON, digest JSON. */
export function digestNotificationOf(digest: Digest): SnsNotification {
  const worst = digest.byRule[0]?.severity ?? 'low';
  const subject = digestSubject(digest);
  return {
    subject,
    message: JSON.stringify({
      default: JSON.stringify(digest),
      email: digestEmail(digest),
      https: JSON.stringify(digestChat(digest, subject)),
    }),
    attributes: { rule: 'digest', severity: worst, cluster: digest.cluster, status: 'digest' },
  };
}
