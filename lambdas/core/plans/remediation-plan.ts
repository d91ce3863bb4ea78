import { clusterScopeOf } from '../decode/account';
import { actionsOf } from './actions';
import type { RuleId } from '../recognise/rules/ids';
import type { CidrPlan } from './cidr-plan';
import type { ActionId, RemediationMode } from '../../../contracts/remediation';
import { shellArg } from '../advice/shell';
import type { Finding } from '../findings/finding';
import { MAX_SUBJECT_CHARS } from '../findings/render-notification';
import { asciiOnly, codeSafe, escapeMarkdown, truncate } from '../common/sanitize';

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

/** The commands of a subnet capacity plan: associate, create one subnet per zone, tag, custom networking. */
export function subnetPlanCommands(
  plan: CidrPlan,
  discoveryTag: { key: string; value: string },
  region: string | null,
): string[] {
  const candidate = plan.candidates[0];
  if (!candidate) return [];
  const regionArg = region ? ` --region ${shellArg(region)}` : '';
  const vpc = shellArg(plan.vpcId);
  return [
    `aws ec2 associate-vpc-cidr-block --vpc-id ${vpc} --cidr-block ${candidate}${regionArg}`,
    ...plan.subnets.map(
      (s) =>
        `aws ec2 create-subnet --vpc-id ${vpc} --availability-zone ${shellArg(s.availabilityZone)} --cidr-block ${s.cidr} --tag-specifications 'ResourceType=subnet,Tags=[{Key=${tagText(discoveryTag.key)},Value=${tagText(discoveryTag.value)}}]'${regionArg}`,
    ),
    'kubectl set env daemonset aws-node -n kube-system AWS_VPC_K8S_CNI_CUSTOM_NETWORK_CFG=true ENI_CONFIG_LABEL_DEF=topology.kubernetes.io/zone',
    'kubectl apply -f eniconfigs.yaml   # the ENIConfig objects below, with the new subnet ids',
  ];
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
    ...report.commands.map((command, index) => `${index === 0 ? '  commands   ' : '             '}$ ${command}`),
    ...(report.plan?.eniConfigs
      ? ['', 'ENIConfig objects (kubectl apply -f eniconfigs.yaml):', report.plan.eniConfigs]
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
      nextSteps: report.commands.slice(0, 3).map((c) => `\`${codeSafe(c, 400)}\``),
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

/** A tag key or value inside the single-quoted shorthand of --tag-specifications: no quote, comma or brace. */
const tagText = (text: string): string => text.replace(/[^A-Za-z0-9 _.:/=+@-]/g, '');

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
