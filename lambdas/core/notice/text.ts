import type { FindingContext } from '../findings/context';
import type { Finding } from '../findings/finding';
import { sanitizeLine } from '../common/sanitize';
import type { RemediationStep } from '../advice/types';
import { isReadOnly } from './command-kind';
import { impactOf } from './impact';
import { placeOf } from './place';

/** Lines the first screen of a notice holds at most: what a phone shows without scrolling. */
export const FIRST_SCREEN_LINES = 10;

/** A prose line longer than this is cut to its first sentences, the rest behind the docs link. */
const MAX_PROSE = 320;

/** Styling hooks: identity for plain text, ANSI codes for a terminal. */
export interface NoticeStyle {
  severity(severity: Finding['severity'], text: string): string;
  bold(text: string): string;
  dim(text: string): string;
}
const PLAIN: NoticeStyle = { severity: (_s, t) => t, bold: (t) => t, dim: (t) => t };

/** The first sentence of a text, at most `max` characters. */
export function firstSentence(text: string, max = 240): string {
  const clean = sanitizeLine(text, 4000);
  const end = /[.!?](?=\s+[A-Z(]|$)/.exec(clean);
  return sanitizeLine(end ? clean.slice(0, end.index + 1) : clean, max);
}

/** The one command to run now: the first read-only one, preferring one with every name filled in. */
export function runNowOf(finding: Finding): string {
  const commands = finding.remediation.flatMap((s) => s.commands).filter(isReadOnly);
  return commands.find((c) => !/<[a-z][a-z0-9-]*>/.test(c)) ?? commands[0] ?? FALLBACK_RUN_NOW;
}

/** When no step reads anything: the cluster's recent warnings. */
export const FALLBACK_RUN_NOW = 'kubectl get events -A --field-selector type=Warning --sort-by=.lastTimestamp';

/** A step's label: read-only when each of its commands only reads; changes otherwise. */
export const stepKind = (step: RemediationStep): 'read-only' | 'changes' | undefined =>
  step.commands.length === 0 ? undefined : step.commands.every(isReadOnly) ? 'read-only' : 'changes';

/** Step titles without the advice's own urgency markers: the label says what kind of step it is. */
export const stepTitle = (step: RemediationStep): string =>
  sanitizeLine(step.title.replace(/^(Do this now|Durable fix): /, ''), 300);

/** Impact, cause, where and one read-only command: at most ten lines, never a changing command. */
export function firstScreen(finding: Finding, style: NoticeStyle = PLAIN): string[] {
  const where = [placeOf(finding), `cluster ${finding.cluster}`, finding.region].filter(Boolean).join(' · ');
  return [
    `${style.severity(finding.severity, finding.severity.toUpperCase())} ${style.bold(sanitizeLine(finding.title, 200))}`,
    label('impact', sanitizeLine(impactOf(finding), 300)),
    label('cause', firstSentence(finding.diagnosis)),
    label('where', sanitizeLine(where, 300)),
    label('run now', `$ ${runNowOf(finding)}`),
    label(
      'fix',
      `${finding.remediation.length} step${finding.remediation.length === 1 ? '' : 's'} below${finding.docs[0] ? `; docs ${finding.docs[0]}` : ''}`,
    ),
  ];
}

/** The whole notice: the first screen, then the fix step by step, the live facts and the evidence. */
export function noticeText(finding: Finding, style: NoticeStyle = PLAIN, header: string[] = []): string {
  const lines = [...header, ...firstScreen(finding, style), ''];
  lines.push(
    style.bold('Why'),
    ...wrapProse(sanitizeLine(finding.diagnosis, 4000), finding.docs[0]).map((l) => `  ${l}`),
  );
  const facts = contextLines(finding.context);
  if (facts.length || finding.context.enrichmentErrors.length) {
    lines.push('', style.bold('Live state'), ...facts);
    for (const error of finding.context.enrichmentErrors)
      lines.push(`  not checked: ${error.source}: ${sanitizeLine(error.message, 300)}`);
  }
  lines.push('', style.bold('Fix'));
  finding.remediation.forEach((step, index) => {
    const kind = stepKind(step);
    lines.push(`  ${index + 1}. ${kind ? `[${kind}] ` : ''}${stepTitle(step)}`);
    for (const line of detailLines(step.detail, finding.docs[0])) lines.push(`     ${style.dim(line)}`);
    for (const command of step.commands) lines.push(`     $ ${command}`);
  });
  if (finding.evidence.length) {
    lines.push('', style.bold('Evidence'));
    for (const evidence of finding.evidence) {
      const at = [
        evidence.timestamp,
        evidence.file && evidence.line ? `${evidence.file}:${evidence.line}` : evidence.logStream,
      ]
        .filter(Boolean)
        .join(' ');
      lines.push(`  ${at ? `${style.dim(at)} ` : ''}${sanitizeLine(evidence.message, 300)}`);
    }
  }
  if (finding.docs.length) lines.push('', `Docs: ${finding.docs.join('  ')}`);
  return lines.join('\n');
}

/** A step's detail: multi-line blocks (YAML, JSON) kept line for line; long prose cut behind the docs link. */
export function detailLines(detail: string, docs: string | undefined): string[] {
  return detail
    .split('\n')
    .flatMap((line) =>
      isBlockLine(line) ? [line.replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, '')] : wrapProse(line, docs),
    );
}

/** A step's detail as prose paragraphs and multi-line blocks (YAML, JSON), in order, blocks line for line. */
export function detailParts(detail: string): Array<{ kind: 'prose' | 'block'; text: string }> {
  const parts: Array<{ kind: 'prose' | 'block'; text: string }> = [];
  for (const line of detail.split('\n')) {
    const kind = isBlockLine(line) ? 'block' : 'prose';
    const last = parts.at(-1);
    if (last && last.kind === kind && kind === 'block') last.text += `\n${line}`;
    else if (line.trim()) parts.push({ kind, text: line });
  }
  return parts;
}

/** A line of a YAML or JSON block: indented, a `key:` line, a list item or a bracket. */
const isBlockLine = (line: string): boolean =>
  line.length <= 200 && !/\. [A-Z]/.test(line) && /^(\s+\S|[A-Za-z0-9_.-]+:(\s|$)|- |[[\]{}],?$|---$)/.test(line);

function wrapProse(text: string, docs: string | undefined): string[] {
  const clean = sanitizeLine(text, 4000);
  if (clean.length <= MAX_PROSE) return clean ? [clean] : [];
  const sentences = clean.match(/.+?(?:[.!?](?=\s|$)|$)\s*/g) ?? [clean];
  let kept = '';
  for (const sentence of sentences) {
    if ((kept + sentence).length > MAX_PROSE) break;
    kept += sentence;
  }
  if (!kept) kept = sanitizeLine(clean, MAX_PROSE);
  return [`${kept.trim()}${docs ? ` More: ${docs}` : ''}`];
}

const label = (name: string, text: string): string => `  ${name.padEnd(8)} ${text}`;

/** The live AWS facts, one line each. */
function contextLines(context: FindingContext): string[] {
  const lines: string[] = [];
  for (const s of context.subnets ?? []) {
    if (s.availableIps === undefined) continue;
    const total = s.totalIps !== undefined ? ` of ${s.totalIps}` : '';
    const trend = s.hoursToExhaustion !== undefined ? `, about ${s.hoursToExhaustion} h left at this trend` : '';
    lines.push(
      `  subnet ${s.subnetId}${s.availabilityZone ? ` (${s.availabilityZone})` : ''}: ${s.availableIps}${total} IPs free${trend}${s.discovered ? ', used by Karpenter' : ''}`,
    );
  }
  for (const vpc of context.vpcs ?? []) {
    const slots =
      vpc.cidrSlotsLeft !== undefined ? `; ${vpc.cidrSlotsLeft} more CIDR blocks allowed by the default quota` : '';
    lines.push(`  vpc ${vpc.vpcId}: ${vpc.cidrBlocks.join(', ') || 'CIDRs unknown'}${slots}`);
  }
  for (const g of context.nodegroups ?? []) {
    const health = g.healthIssues?.length ? `; health: ${g.healthIssues.join(', ')}` : '';
    lines.push(
      `  node group ${g.name} (${g.kind}): min ${g.minSize ?? '?'}, desired ${g.desiredSize ?? '?'}, max ${g.maxSize ?? '?'}${health}`,
    );
  }
  for (const q of context.quotas ?? []) {
    if (q.value !== undefined) lines.push(`  quota ${q.quotaName ?? q.quotaCode} (${q.quotaCode}): ${q.value}`);
  }
  return lines;
}
