import { isV1, type KarpenterApi } from '../common/karpenter-api';
import { DRIFT_NOTE, V1ALPHA5_DRIFT_NOTE, V1BETA1_DRIFT_NOTE } from './side-effects';
import type { Diagnosis, RemediationStep } from './types';

/**
 * The advice for the Karpenter API generation the logs show. Rules write their commands for v1;
 * v1beta1 (v0.32-v0.37) has the same kinds but a different consolidation policy, and v1alpha5
 * (v0.31 and before) has other kinds, field paths, node label and chart values (facts from the CRDs
 * and charts/karpenter/values.yaml at the tags: docs/karpenter-versions.md). Unknown → v1 as written.
 */
export function forKarpenterApi(diagnosis: Diagnosis, api: KarpenterApi | undefined): Diagnosis {
  if (isV1(api)) return diagnosis;
  const command = api === 'karpenter.sh/v1alpha5' ? v1alpha5Command : v1beta1Command;
  const prose = api === 'karpenter.sh/v1alpha5' ? v1alpha5Prose : v1beta1Prose;
  const step = (s: RemediationStep): RemediationStep => ({
    ...s,
    title: prose(s.title),
    detail: prose(s.detail),
    commands: s.commands.map(command),
  });
  return { ...diagnosis, diagnosis: prose(diagnosis.diagnosis), remediation: diagnosis.remediation.map(step) };
}

/** How rules bound a drift's replacements in v1 prose: `(within its disruption budgets)`. */
const WITHIN_BUDGETS = /\(?within (?:its|your|the NodePool's) disruption budgets\)?/g;

/** v1beta1 prose is v1's but for when drift and disruption budgets came (side-effects.ts). */
const v1beta1Prose = (text: string): string =>
  text
    .replace(DRIFT_NOTE, V1BETA1_DRIFT_NOTE)
    .replace(
      WITHIN_BUDGETS,
      '(within its disruption budgets from v0.34; v0.32 drifts only with settings.featureGates.drift=true)',
    );

/** v1beta1's policies are WhenEmpty and WhenUnderutilized, and the latter takes no consolidateAfter. */
function v1beta1Command(command: string): string {
  return command.replace(
    /"consolidationPolicy":"WhenEmptyOrUnderutilized"(?:,"consolidateAfter":"[^"]*")?/g,
    '"consolidationPolicy":"WhenUnderutilized","consolidateAfter":null',
  );
}

/** v1 resource → the v1alpha5 one, as `kubectl get` names them. */
const V1ALPHA5_RESOURCES: Readonly<Record<string, string>> = {
  nodepool: 'provisioner',
  nodepools: 'provisioners',
  nodeclaim: 'machine',
  nodeclaims: 'machines',
  ec2nodeclass: 'awsnodetemplate',
  ec2nodeclasses: 'awsnodetemplates',
};

/** Field paths and patches of a NodePool / EC2NodeClass, as a Provisioner / AWSNodeTemplate has them. */
const V1ALPHA5_FIELDS: ReadonlyArray<readonly [RegExp, string]> = [
  // A Provisioner holds its node template in its own spec; its node class is `providerRef`.
  [/\.spec\.template\.spec\.nodeClassRef\b/g, '.spec.providerRef'],
  [/\.spec\.template\.spec\.terminationGracePeriod\b/g, '.spec.ttlSecondsAfterEmpty'],
  [/\.spec\.template\.spec\./g, '.spec.'],
  [/\.spec\.template\.metadata\.labels\b/g, '.spec.labels'],
  [/\.spec\.limits\}/g, '.spec.limits.resources}'],
  [/\.spec\.disruption\b/g, '.spec.consolidation'],
  // An AWSNodeTemplate selects AMIs with `amiSelector` and names an instance profile, not a role.
  [/\.spec\.amiSelectorTerms\b/g, '.spec.amiSelector'],
  [/\.spec\.role\b/g, '.spec.instanceProfile'],
  [/"limits":\{("[^{}"]+":"[^{}"]*")\}/g, '"limits":{"resources":{$1}}'],
  [
    /"disruption":\{"consolidationPolicy":"WhenEmptyOrUnderutilized"(?:,"consolidateAfter":"[^"]*")?\}/g,
    '"consolidation":{"enabled":true},"ttlSecondsAfterEmpty":null',
  ],
];

/** Names anywhere in a command or text: CRDs, the node label, the pod annotation, chart values, placeholders. */
const V1ALPHA5_NAMES: ReadonlyArray<readonly [RegExp, string]> = [
  [/\bnodepools\.karpenter\.sh\b/g, 'provisioners.karpenter.sh'],
  [/\bnodeclaims\.karpenter\.sh\b/g, 'machines.karpenter.sh'],
  [/\bec2nodeclasses\.karpenter\.k8s\.aws\b/g, 'awsnodetemplates.karpenter.k8s.aws'],
  [/\bkarpenter(\\{0,2})\.sh\/nodepool\b/g, 'karpenter$1.sh/provisioner-name'],
  // v0.32 renamed the pod annotation do-not-evict to do-not-disrupt.
  [/\bkarpenter(\\{0,2})\.sh\/do-not-disrupt\b/g, 'karpenter$1.sh/do-not-evict'],
  // Chart values lived under settings.aws until v0.32 (and the queue was interruptionQueueName).
  [/\bsettings\.interruptionQueue\b(?!Name)/g, 'settings.aws.interruptionQueueName'],
  [/\bsettings\.(clusterName|clusterEndpoint|isolatedVPC|reservedENIs)\b/g, 'settings.aws.$1'],
  [/<nodepool-name>/g, '<provisioner-name>'],
  [/<nodeclaim-name>/g, '<machine-name>'],
  [/<ec2nodeclass-name>/g, '<awsnodetemplate-name>'],
  [/\bNODEPOOL:/g, 'PROVISIONER:'],
];

const KUBECTL_KARPENTER_KIND =
  /\bkubectl (?:get|describe|edit|patch|delete|explain) (?:nodepools?|nodeclaims?|ec2nodeclass(?:es)?)\b/;

const replaceAll = (text: string, rules: ReadonlyArray<readonly [RegExp, string]>): string =>
  rules.reduce((out, [pattern, replacement]) => out.replace(pattern, replacement), text);

function v1alpha5Command(command: string): string {
  // Field paths change only in commands about Karpenter's own objects, never in a Deployment's jsonpath.
  const fields = KUBECTL_KARPENTER_KIND.test(command) ? replaceAll(command, V1ALPHA5_FIELDS) : command;
  const kinds = fields.replace(
    /\b(kubectl (?:get|describe|edit|patch|delete|explain) )([a-z0-9,]+)/g,
    (_all, verb: string, resources: string) =>
      verb +
      resources
        .split(',')
        .map((resource) => V1ALPHA5_RESOURCES[resource] ?? resource)
        .join(','),
  );
  return replaceAll(kinds, V1ALPHA5_NAMES);
}

/**
 * Kinds as resources and field paths, in prose: `kubectl delete nodeclaim`, `spec.template.spec.taints`.
 * Not inside a longer name (`karpenter.sh/nodepool`, `my-nodepool`) nor a jsonpath (`.spec.template`).
 */
const V1ALPHA5_PROSE: ReadonlyArray<readonly [RegExp, string]> = [
  [/(?<![\w./<-])nodepool(s?)(?![\w.-])/g, 'provisioner$1'],
  [/(?<![\w./<-])nodeclaim(s?)(?![\w.-])/g, 'machine$1'],
  [/(?<![\w./<-])ec2nodeclass(?![\w.-])/g, 'awsnodetemplate'],
  [/(?<![\w./<-])ec2nodeclasses(?![\w.-])/g, 'awsnodetemplates'],
  [/(?<![\w.])spec\.template\.spec\.(taints|startupTaints|requirements)\b/g, 'spec.$1'],
  [/(?<![\w.])spec\.template\.metadata\.labels\b/g, 'spec.labels'],
  [/\bProvisioner template\b/g, 'Provisioner spec'],
];

/** A NodePool's YAML (`spec: template: spec: X`) as a Provisioner's (`spec: X`): its template is its spec. */
const V1ALPHA5_YAML = /^spec:\n {2}template:\n {4}spec:\n((?: {6}.*(?:\n|$))+)/gm;
const asProvisionerYaml = (text: string): string =>
  text.replace(V1ALPHA5_YAML, (_all, body: string) => `spec:\n${body.replace(/^ {4}/gm, '')}`);

/** The v1alpha5 kinds, fields, chart values and drift in prose. */
function v1alpha5Prose(text: string): string {
  // Drift is an alpha feature gate before v0.32, and a Provisioner has no disruption budgets.
  const drift = text
    .replace(DRIFT_NOTE, V1ALPHA5_DRIFT_NOTE)
    .replace(WITHIN_BUDGETS, '(if drift is enabled: featureGates.driftEnabled, off by default; one node at a time)');
  const kinds = replaceAll(drift, V1ALPHA5_NAMES)
    .replace(/\bNodePool(s?)\b/g, 'Provisioner$1')
    .replace(/\bNodeClaim(s?)\b/g, 'Machine$1')
    .replace(/\bEC2NodeClass(es)?\b/g, (_kind, plural?: string) => (plural ? 'AWSNodeTemplates' : 'AWSNodeTemplate'));
  return asProvisionerYaml(replaceAll(kinds, V1ALPHA5_PROSE));
}
