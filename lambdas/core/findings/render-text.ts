import type { Finding } from './finding';
import type { FindingContext } from './context';
import type { Severity } from '../model';
import { sanitizeLine } from '../common/sanitize';
import type { Unrecognised } from '../recognise/unrecognised';
import { ACTION_IDS, type ActionId } from '../../../contracts/remediation';

/** Styling hooks: identity for plain text, ANSI codes for a terminal. */
export interface Style {
  severity(severity: Severity, text: string): string;
  bold(text: string): string;
  dim(text: string): string;
}

export const PLAIN: Style = { severity: (_s, text) => text, bold: (text) => text, dim: (text) => text };

const LABEL_WIDTH = 10;

/**
 * A finding as text an on-call engineer reads in ten seconds: what broke and where on the first two
 * lines, then why, the commands, and the evidence. Log-derived text is sanitised.
 */
export function renderFindingText(finding: Finding, style: Style = PLAIN): string {
  const lines: string[] = [];
  const severity = finding.severity.toUpperCase().padEnd(8);
  lines.push(`${style.severity(finding.severity, severity)} ${style.bold(finding.title)}`);
  const when = finding.firstSeen
    ? finding.firstSeen === finding.lastSeen || !finding.lastSeen
      ? ` · at ${finding.firstSeen}`
      : ` · ${finding.firstSeen} → ${finding.lastSeen}`
    : '';
  lines.push(
    label(
      'cluster',
      `${clean(finding.cluster)} · ${finding.occurrences} occurrence${finding.occurrences === 1 ? '' : 's'}${when} · ${finding.status}`,
    ),
  );
  const where = whereLine(finding);
  if (where) lines.push(label('where', where));
  lines.push(...block('why', finding.diagnosis));
  lines.push(...contextLines(finding.context));
  for (const error of finding.context.enrichmentErrors) {
    lines.push(label('unchecked', `${error.source}: ${clean(error.message)}`));
  }
  finding.remediation.forEach((step, index) => {
    lines.push(
      label(
        index === 0 ? 'fix' : '',
        `${index + 1}. ${step.title}${step.action ? style.dim(` (${automaticWhen(step.action)})`) : ''}`,
      ),
    );
    for (const detail of step.detail.split('\n')) lines.push(`${' '.repeat(LABEL_WIDTH + 3)}${style.dim(detail)}`);
    for (const command of step.commands) lines.push(`${' '.repeat(LABEL_WIDTH + 3)}$ ${command}`);
  });
  finding.evidence.forEach((evidence, index) => {
    const at = [
      evidence.timestamp,
      evidence.file && evidence.line ? `${evidence.file}:${evidence.line}` : evidence.logStream,
    ]
      .filter(Boolean)
      .join(' ');
    lines.push(label(index === 0 ? 'evidence' : '', `${at ? `${style.dim(at)} ` : ''}${clean(evidence.message, 300)}`));
  });
  if (finding.docs.length) lines.push(label('docs', finding.docs.join('  ')));
  // Last, for whoever configures suppressions, subscription filters or --fail-on by rule.
  lines.push(label('rule', style.dim(finding.rule)));
  return lines.join('\n');
}

/** How an operator turns a step's automatic action on, in the words of the configuration. */
export function automaticWhen(action: ActionId): string {
  const key = Object.entries(ACTION_IDS).find(([, id]) => id === action)?.[0];
  return key ? `automatic when remediation.${key} is on` : 'automatic when its remediation is on';
}

/** One-line summary of a run, for the top of the report. */
export function renderSummary(findings: Finding[], records: number, malformed: number): string {
  const counts = (['critical', 'high', 'medium', 'low'] as const)
    .map((severity) => [severity, findings.filter((f) => f.severity === severity).length] as const)
    .filter(([, count]) => count > 0)
    .map(([severity, count]) => `${count} ${severity}`);
  const found =
    findings.length === 0
      ? 'No findings'
      : `${findings.length} finding${findings.length === 1 ? '' : 's'} (${counts.join(', ')})`;
  const bad = malformed > 0 ? `; ${malformed} malformed record${malformed === 1 ? '' : 's'} skipped` : '';
  return `${found} in ${records} record${records === 1 ? '' : 's'}${bad}.`;
}

/** `N unrecognised error lines, most frequent: …`, or '' when every failure-shaped line was recognised. */
export function renderUnrecognised(unrecognised: Unrecognised): string {
  if (unrecognised.count === 0) return '';
  const lines = unrecognised.top.map(({ message, count }) => `  ${count} × ${sanitizeLine(message, 200)}`);
  const plural = unrecognised.count === 1 ? '' : 's';
  return `${unrecognised.count} unrecognised error line${plural}, most frequent:\n${lines.join('\n')}`;
}

function whereLine(finding: Finding): string {
  const e = finding.entities;
  const parts: Array<[string, string[] | undefined]> = [
    ['subnets', e.subnets],
    ['zones', e.zones],
    ['nodepools', e.nodepools],
    ['nodeclasses', e.nodeclasses],
    ['instance types', e.instanceTypes],
    ['capacity', e.capacityTypes],
    ['workloads', e.workloads],
    ['pods', e.workloads?.length ? undefined : e.pods],
    ['nodes', e.nodes],
    ['taints', e.taints],
    ['labels', e.labels],
    ['volumes', e.volumes],
    ['pdbs', e.pdbs],
    ['quotas', e.quotas],
    ['iam', e.iamActions],
  ];
  return parts
    .filter(([, values]) => values && values.length > 0)
    .map(([name, values]) => `${name} ${clean(shorten(values!))}`)
    .join(' · ');
}

function shorten(values: string[], max = 4): string {
  return values.length > max ? `${values.slice(0, max).join(', ')} +${values.length - max}` : values.join(', ');
}

const clean = (text: string, max = 400): string => sanitizeLine(text, max);

const label = (name: string, text: string): string => `  ${name.padEnd(LABEL_WIDTH)} ${text}`;

function block(name: string, text: string): string[] {
  return [label(name, clean(text, 2000))];
}

/** The live AWS facts, one line each: subnets, zones, VPCs, node groups, quotas. */
function contextLines(context: FindingContext): string[] {
  const lines: string[] = [];
  for (const subnet of context.subnets ?? []) {
    if (subnet.availableIps === undefined) continue;
    const total = subnet.totalIps !== undefined ? ` of ${subnet.totalIps}` : '';
    const zone = subnet.availabilityZone ? ` (${subnet.availabilityZone})` : '';
    const tagged = subnet.discovered ? ', Karpenter subnet' : '';
    const trend =
      subnet.hoursToExhaustion !== undefined ? `, about ${subnet.hoursToExhaustion} h left at the current trend` : '';
    lines.push(label('subnet', `${subnet.subnetId}${zone}: ${subnet.availableIps}${total} IPs free${trend}${tagged}`));
  }
  for (const zone of context.zones ?? []) {
    const count = `${zone.subnets} subnet${zone.subnets === 1 ? '' : 's'}`;
    lines.push(
      label('zone', `${zone.availabilityZone}: ${zone.availableIps} of ${zone.totalIps} IPs free in ${count}`),
    );
  }
  for (const vpc of context.vpcs ?? []) {
    const slots =
      vpc.cidrSlotsLeft !== undefined ? `; ${vpc.cidrSlotsLeft} more allowed by the default quota of 5` : '';
    lines.push(label('vpc', `${vpc.vpcId}: CIDRs ${vpc.cidrBlocks.join(', ') || 'unknown'}${slots}`));
  }
  for (const group of context.nodegroups ?? []) {
    const sizes = `min ${group.minSize ?? '?'}, desired ${group.desiredSize ?? '?'}, max ${group.maxSize ?? '?'}`;
    const asgs = group.autoScalingGroups.length ? `, ASG ${group.autoScalingGroups.join(', ')}` : '';
    const health = group.healthIssues?.length ? `; health: ${group.healthIssues.join(', ')}` : '';
    lines.push(label('nodegroup', `${group.name} (${group.kind}): ${sizes}${asgs}${health}`));
  }
  for (const quota of context.quotas ?? []) {
    if (quota.value === undefined) continue;
    lines.push(label('quota', `${quota.quotaName ?? quota.quotaCode} (${quota.quotaCode}): ${quota.value}`));
  }
  return lines;
}
