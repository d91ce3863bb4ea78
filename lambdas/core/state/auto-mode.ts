import type { RemediationStep } from '../advice/types';
import type { Finding } from '../findings/finding';
import { shellArg } from '../advice/shell';
import { type ClusterSnapshot, isObject, stringOf, viewOf } from './snapshot';

/**
 * EKS Auto Mode: Karpenter is run by AWS. Its NodeClaims and NodePools are `karpenter.sh/v1`, but
 * the node class is `NodeClass` of `eks.amazonaws.com/v1`, two NodePools are built in
 * (`general-purpose`, `system`), well-known labels live under `eks.amazonaws.com/*`, and the EBS
 * provisioner is `ebs.csi.eks.amazonaws.com`. Advice for it changes no Helm values.
 */

export const AUTO_MODE_GROUP = 'eks.amazonaws.com';
export const AUTO_MODE_EBS_PROVISIONER = 'ebs.csi.eks.amazonaws.com';
export const BUILT_IN_NODEPOOLS = ['general-purpose', 'system'] as const;

/** A migration trap: a setting made for self-managed Karpenter that Auto Mode does not honour. */
export interface AutoModeTrap {
  kind: 'karpenter-selector' | 'storage-class';
  /** `namespace/name` of the pod, or the StorageClass name. */
  object: string;
  detail: string;
}

export interface AutoMode {
  /** What showed the cluster runs Auto Mode (empty when it does not). */
  evidence: string[];
  traps: AutoModeTrap[];
}

/** Whether the snapshot is of an Auto Mode cluster, and the traps it holds. */
export function autoModeOf(snapshot: ClusterSnapshot): AutoMode {
  const evidence = new Set<string>();
  for (const value of snapshot.nodeClasses) {
    const view = viewOf(value);
    if (view && view.kind === 'NodeClass' && view.apiVersion.startsWith(`${AUTO_MODE_GROUP}/`))
      evidence.add(`NodeClass ${view.name} (${view.apiVersion})`);
  }
  for (const value of [...snapshot.nodeClaims, ...snapshot.nodePools]) {
    const view = viewOf(value);
    if (!view) continue;
    if (nodeClassGroupOf(view.raw) === AUTO_MODE_GROUP)
      evidence.add(`${view.kind} ${view.name} uses a ${AUTO_MODE_GROUP} NodeClass`);
    if (view.labels['eks.amazonaws.com/compute-type'] === 'auto')
      evidence.add(`${view.kind} ${view.name} has eks.amazonaws.com/compute-type=auto`);
  }
  if (evidence.size === 0) return { evidence: [], traps: [] };
  return { evidence: [...evidence], traps: [...selectorTraps(snapshot), ...storageTraps(snapshot)] };
}

/** The group of the node class a NodePool (spec.template.spec) or NodeClaim (spec) refers to. */
function nodeClassGroupOf(raw: Readonly<Record<string, unknown>>): string | undefined {
  const spec = isObject(raw.spec) ? raw.spec : {};
  const inner = isObject(spec.template) && isObject(spec.template.spec) ? spec.template.spec : spec;
  return isObject(inner.nodeClassRef) ? stringOf(inner.nodeClassRef.group) : undefined;
}

/** Pending pods that select on `karpenter.k8s.aws/*` labels, which Auto Mode nodes never carry. */
function selectorTraps(snapshot: ClusterSnapshot): AutoModeTrap[] {
  const traps: AutoModeTrap[] = [];
  for (const value of snapshot.pods) {
    const pod = viewOf(value);
    if (!pod) continue;
    const keys = [...new Set(selectorKeysOf(pod.raw))].filter((key) => key.startsWith('karpenter.k8s.aws/'));
    if (keys.length === 0) continue;
    traps.push({
      kind: 'karpenter-selector',
      object: `${pod.namespace ?? 'default'}/${pod.name}`,
      detail: `selects on ${keys.join(', ')}; Auto Mode nodes carry ${keys.map(autoModeLabelOf).join(', ')} instead`,
    });
  }
  return traps;
}

/** The label keys a pod's nodeSelector and required node affinity name. */
function selectorKeysOf(raw: Readonly<Record<string, unknown>>): string[] {
  const spec = isObject(raw.spec) ? raw.spec : {};
  const keys = isObject(spec.nodeSelector) ? Object.keys(spec.nodeSelector) : [];
  const affinity = isObject(spec.affinity) && isObject(spec.affinity.nodeAffinity) ? spec.affinity.nodeAffinity : {};
  const required = affinity.requiredDuringSchedulingIgnoredDuringExecution;
  const terms = isObject(required) && Array.isArray(required.nodeSelectorTerms) ? required.nodeSelectorTerms : [];
  for (const term of terms) {
    if (!isObject(term) || !Array.isArray(term.matchExpressions)) continue;
    for (const expression of term.matchExpressions)
      if (isObject(expression) && typeof expression.key === 'string') keys.push(expression.key);
  }
  return keys;
}

/** `karpenter.k8s.aws/instance-family` → `eks.amazonaws.com/instance-family` (Auto Mode's well-known labels). */
export const autoModeLabelOf = (key: string): string => key.replace(/^karpenter\.k8s\.aws\//, `${AUTO_MODE_GROUP}/`);

/** StorageClasses whose provisioner Auto Mode does not run: the in-tree plugin and the add-on's CSI driver. */
function storageTraps(snapshot: ClusterSnapshot): AutoModeTrap[] {
  const traps: AutoModeTrap[] = [];
  for (const value of snapshot.storageClasses ?? []) {
    if (!isObject(value)) continue;
    const view = viewOf(value);
    const provisioner = stringOf(value.provisioner);
    if (!view || !provisioner || provisioner === AUTO_MODE_EBS_PROVISIONER) continue;
    if (provisioner !== 'kubernetes.io/aws-ebs' && provisioner !== 'ebs.csi.aws.com') continue;
    traps.push({
      kind: 'storage-class',
      object: view.name,
      detail: `provisioner ${provisioner}: volumes of it are not provisioned by Auto Mode; use a StorageClass with provisioner ${AUTO_MODE_EBS_PROVISIONER}`,
    });
  }
  return traps;
}

/**
 * A finding's advice for an Auto Mode cluster: node class fields of `NodeClass`
 * (eks.amazonaws.com/v1), never of an EC2NodeClass; no Helm values (AWS runs Karpenter); the built-in
 * NodePools named; and the traps that bear on the finding's rule first.
 */
export function autoModeAdvice(finding: Finding, autoMode: AutoMode): Finding {
  if (autoMode.evidence.length === 0) return finding;
  const steps: RemediationStep[] = [];
  const selectors = autoMode.traps.filter((trap) => trap.kind === 'karpenter-selector');
  if (selectors.length && SELECTOR_RULES.has(finding.rule))
    steps.push({
      title: 'Replace karpenter.k8s.aws/* selectors with eks.amazonaws.com/* ones',
      detail: `EKS Auto Mode nodes carry eks.amazonaws.com/* labels: pods that select on karpenter.k8s.aws/* stay Pending. ${selectors.map((trap) => `${trap.object} ${trap.detail}`).join('; ')}.`,
      commands: selectors.map((trap) => {
        const [namespace, name] = trap.object.split('/') as [string, string];
        return `kubectl get pod -n ${shellArg(namespace)} ${shellArg(name)} -o jsonpath='{.spec.nodeSelector}{"\\n"}{.spec.affinity.nodeAffinity}'`;
      }),
    });
  const storage = autoMode.traps.filter((trap) => trap.kind === 'storage-class');
  if (storage.length && finding.rule.startsWith('volume-'))
    steps.push({
      title: `Use a StorageClass of ${AUTO_MODE_EBS_PROVISIONER}`,
      detail: `${storage.map((trap) => `StorageClass ${trap.object}: ${trap.detail}`).join('; ')}.`,
      commands: ['kubectl get storageclass -o custom-columns=NAME:.metadata.name,PROVISIONER:.provisioner'],
    });
  const remediation = finding.remediation.flatMap((step) => autoModeStep(step));
  return {
    ...finding,
    diagnosis: `${autoModeText(finding.diagnosis)} This is an EKS Auto Mode cluster: AWS runs Karpenter, so change NodePools and NodeClasses (eks.amazonaws.com/v1), not Helm values; the built-in NodePools ${BUILT_IN_NODEPOOLS.join(' and ')} cannot be edited, add a NodePool of your own instead.`,
    remediation: [...steps, ...remediation],
  };
}

const SELECTOR_RULES: ReadonlySet<string> = new Set(['scheduling-node-selector-mismatch', 'incompatible-requirements']);

/** One step in Auto Mode terms: Helm commands dropped (a step of nothing else is dropped too). */
function autoModeStep(step: RemediationStep): RemediationStep[] {
  const commands = step.commands.filter((command) => !/^helm\s/.test(command)).map(autoModeCommand);
  if (step.commands.length > 0 && commands.length === 0) return [];
  return [{ ...step, title: autoModeText(step.title), detail: autoModeText(step.detail), commands }];
}

const autoModeText = (text: string): string =>
  text.replace(/\bEC2NodeClass(es)?\b/g, 'NodeClass$1 (eks.amazonaws.com/v1)');

const autoModeCommand = (command: string): string =>
  command
    .replace(/\bec2nodeclass(?:es)?(?:\.karpenter\.k8s\.aws)?\b/g, 'nodeclasses.eks.amazonaws.com')
    .replace(/\bEC2NodeClass\b/g, 'NodeClass')
    .replace(/karpenter\.k8s\.aws\/v1/g, 'eks.amazonaws.com/v1');
