import { clusterScopeOf } from '../decode/account';
import { actionsOf } from './actions';
import type { RuleId } from '../recognise/rules/ids';
import type { CidrPlan } from './cidr-plan';
import type { ActionId, RemediationMode } from '../../../contracts/remediation';
import type { Finding } from '../findings/finding';
import { MAX_SUBJECT_CHARS } from '../findings/render-notification';
import { asciiOnly, codeSafe, escapeMarkdown, truncate } from '../common/sanitize';
import { nodeSubnetSteps, stepLabel, type PlanStep } from './subnet-plan';

/**
 * Guarded remediation (README, "Remediation: acting on findings"), the decisions only: what each action would
 * change, within which caps, and what it tells. The remediator adapter reads the live state, asks these
 * functions, and applies only what they return in apply mode.
 */

/** What one action did with one finding. */
export type RemediationOutcome = 'applied' | 'planned' | 'skipped' | 'failed';

/** The `Karpenter Remediation` event detail and the SNS notice, one per action per finding. */
export interface RemediationReport {
  schemaVersion: '1';
  findingId: string;
  cluster: string;
  rule: Finding['rule'];
  severity: Finding['severity'];
  action: ActionId;
  mode: RemediationMode;
  outcome: RemediationOutcome;
  /** What was (or would be) changed, e.g. `nodegroup system`. */
  target?: string;
  /** One sentence: what happened and why. */
  summary: string;
  before?: Record<string, number | string | boolean | undefined>;
  after?: Record<string, number | string | boolean | undefined>;
  /** The exact commands of the change (to run by hand in dry-run, or what was done in apply). */
  commands: string[];
  /** The commands as labelled steps (read-only or changing), in order; absent for one-command changes. */
  steps?: PlanStep[];
  /** Another approach, instead of (never in addition to) `steps`. */
  alternative?: { summary: string; steps: PlanStep[] };
  /** After an apply: how to see the change took, and how to put it back. */
  verify?: string[];
  undo?: string[];
  plan?: CidrPlan & { eniConfigs?: string };
}

/** The value to ask for: double today's, at most the cap; undefined when today's is already there. */
export function quotaTarget(current: number, cap: number): number | undefined {
  const target = Math.min(cap, Math.max(Math.ceil(current * 2), current + 1));
  return target > current ? target : undefined;
}

/** ENIConfig objects (VPC CNI custom networking), one per zone, named after the zone. */
export function eniConfigYaml(
  subnets: Array<{ availabilityZone: string; subnetId: string }>,
  securityGroups: string[],
): string {
  return subnets
    .map((s) =>
      [
        'apiVersion: crd.k8s.amazonaws.com/v1alpha1',
        'kind: ENIConfig',
        'metadata:',
        `  name: ${s.availabilityZone}`,
        'spec:',
        `  subnet: ${s.subnetId}`,
        ...(securityGroups.length ? ['  securityGroups:', ...securityGroups.map((g) => `    - ${g}`)] : []),
      ].join('\n'),
    )
    .join('\n---\n');
}

/** The commands of a subnet capacity plan, new node subnets: associate, create, route, tag last. */
export function subnetPlanCommands(
  plan: CidrPlan,
  discoveryTag: { key: string; value: string },
  region: string | null,
  nodeSubnetOfZone?: Readonly<Record<string, string>>,
): string[] {
  return nodeSubnetSteps({ plan, discoveryTag, region, nodeSubnetOfZone }).map((step) => step.command);
}

/** The SNS publish of a remediation report: Subject from ids and enums, email text, chat JSON, report JSON. */
export function remediationNotificationOf(report: RemediationReport): {
  subject: string;
  message: string;
  attributes: Record<'rule' | 'severity' | 'cluster' | 'status', string>;
} {
  const subject = asciiOnly(
    `[karpenter-doctor] REMEDIATION ${report.action} ${report.outcome} (${report.mode}) in ${report.cluster}`,
    MAX_SUBJECT_CHARS,
  );
  const lines = [
    `${report.outcome.toUpperCase()} ${report.action} (${report.mode})  [${report.rule}]`,
    `  cluster    ${report.cluster}${report.target ? ` · ${report.target}` : ''}`,
    `  what       ${report.summary}`,
    ...(report.before ? [`  before     ${pairs(report.before)}`] : []),
    ...(report.after ? [`  after      ${pairs(report.after)}`] : []),
    ...commandLines(report),
    ...(report.alternative
      ? [
          '',
          `Alternative, instead of the steps above (not in addition): ${report.alternative.summary}`,
          ...report.alternative.steps.flatMap(stepLines),
          ...(report.plan?.eniConfigs ? ['', 'eniconfigs.yaml:', report.plan.eniConfigs] : []),
        ]
      : []),
    '',
    `Finding ${report.findingId}. Sent by karpenter-doctor's remediator.`,
  ];
  const chat = {
    version: '1.0',
    source: 'custom',
    id: `${report.findingId}-${report.action}`,
    content: {
      textType: 'client-markdown',
      title: `${report.outcome.toUpperCase()}: ${report.action} (${report.mode}) in ${report.cluster}`,
      description: escapeMarkdown(truncate(report.summary, 600)),
      nextSteps: chatSteps(report),
      keywords: [report.action, report.outcome, report.mode, report.cluster],
    },
    metadata: { threadId: report.findingId, summary: subject, eventType: report.action },
  };
  return {
    subject,
    message: JSON.stringify({ default: JSON.stringify(report), email: lines.join('\n'), https: JSON.stringify(chat) }),
    attributes: { rule: report.rule, severity: report.severity, cluster: report.cluster, status: 'remediation' },
  };
}

/**
 * The command lines of the email: for an apply, what was done (not to be run again) then the verify
 * and undo commands; otherwise the steps, each labelled read-only or changing.
 */
function commandLines(report: RemediationReport): string[] {
  if (report.outcome === 'applied') {
    return [
      ...report.commands.map((c, i) => `${i === 0 ? '  done       ' : '             '}${c}`),
      ...(report.verify?.map((c, i) => `${i === 0 ? '  verify     ' : '             '}$ ${c}`) ?? []),
      ...(report.undo?.length
        ? report.undo.map((c, i) => `${i === 0 ? '  undo       ' : '             '}$ ${c}`)
        : report.verify
          ? ['  undo       (this change cannot be undone by a command)']
          : []),
    ];
  }
  if (report.steps?.length) return ['  steps', ...report.steps.flatMap(stepLines)];
  return report.commands.map((command, index) => `${index === 0 ? '  commands   ' : '             '}$ ${command}`);
}

const stepLines = (step: PlanStep, index: number): string[] => [
  `    ${index + 1}. [${stepLabel(step)}] ${step.title}`,
  `       $ ${step.command}`,
];

/** Every step in chat, in order: a command is never cut, so one too long for chat points to the email. */
function chatSteps(report: RemediationReport): string[] {
  const code = (command: string): string =>
    command.length > MAX_CHAT_COMMAND ? '(command in the email)' : `\`${codeSafe(command, MAX_CHAT_COMMAND)}\``;
  if (report.outcome === 'applied') {
    return [
      ...(report.verify ?? []).map((c) => `Verify: ${code(c)}`),
      ...(report.undo ?? []).map((c) => `Undo: ${code(c)}`),
    ];
  }
  if (report.steps?.length)
    return report.steps.map((s, i) => `${i + 1}. [${stepLabel(s)}] ${escapeMarkdown(s.title)}: ${code(s.command)}`);
  return report.commands.map(code);
}

/** Longest command shown in a chat code span; longer ones are left to the email, never cut. */
export const MAX_CHAT_COMMAND = 400;

const pairs = (values: Record<string, unknown>): string =>
  Object.entries(values)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k} ${String(v)}`)
    .join(', ');

/** What the remediator knows for sure about itself and the incident an event names. */
export interface AdmissionInput {
  /** The account and region the event claims, and the function's own (from its ARN). */
  claimed: { account: unknown; region: unknown };
  own: { account: string; region: string } | undefined;
  /** The incident reloaded from the function's own table by the event's finding id; undefined when absent. */
  incident:
    { status: 'open' | 'resolved'; cluster: string; account?: string; rule: RuleId; expiresAt: number } | undefined;
  /**
   * The configured clusters as `clusterScopeOf` writes them: the bare name in the function's own
   * account, `<account>/<name>` in another account of the organisation.
   */
  configuredClusters: readonly string[];
  now: number;
}

export type Admission = { admitted: true; actions: readonly ActionId[] } | { admitted: false; reason: string };

/**
 * Whether a `Karpenter Finding` event may lead to any action (issue 12). Anyone allowed to put events
 * on the bus can send one, so nothing in it is trusted: the event must come from this account and
 * region, name an incident that exists in this stack's table, is open, is of a configured cluster,
 * and whose rule maps to an action. The actions come from the rule, never from the event.
 */
export function admitFinding(input: AdmissionInput): Admission {
  const refuse = (reason: string): Admission => ({ admitted: false, reason });
  if (!input.own) return refuse('the function cannot tell its own account and region');
  if (input.claimed.account !== input.own.account) {
    return refuse(`the event is from account ${JSON.stringify(input.claimed.account)}, not ${input.own.account}`);
  }
  if (input.claimed.region !== input.own.region) {
    return refuse(`the event is from region ${JSON.stringify(input.claimed.region)}, not ${input.own.region}`);
  }
  const incident = input.incident;
  if (!incident || incident.expiresAt * 1000 <= input.now) return refuse('no such incident in the incident table');
  if (incident.status !== 'open') return refuse('the incident is not open');
  if (!input.configuredClusters.includes(clusterScopeOf(incident))) {
    return refuse(
      `cluster ${incident.cluster}${incident.account ? ` of account ${incident.account}` : ''} is not configured`,
    );
  }
  const actions = actionsOf(incident.rule);
  if (actions.length === 0) return refuse(`rule ${incident.rule} maps to no action`);
  return { admitted: true, actions };
}
