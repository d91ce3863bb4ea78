import awsApiUnreachable from './aws-api-unreachable';
import awsPermissionDenied from './aws-permission-denied';
import consolidationBlocked from './consolidation-blocked';
import ec2QuotaExceeded from './ec2-quota-exceeded';
import inTreeStoragePlugin from './in-tree-storage-plugin';
import incompatibleRequirements from './incompatible-requirements';
import insufficientInstanceCapacity from './insufficient-instance-capacity';
import interruptionQueueError from './interruption-queue-error';
import karpenterControllerUnschedulable from './karpenter-controller-unschedulable';
import launchTemplateOrAmiError from './launch-template-or-ami-error';
import leaderElectionLost from './leader-election-lost';
import missingResourceRequests from './missing-resource-requests';
import nodeDiskPressure from './node-disk-pressure';
import nodeNotInitialized from './node-not-initialized';
import nodeNotReady from './node-not-ready';
import nodeclassNotReady from './nodeclass-not-ready';
import nodepoolLimitsExceeded from './nodepool-limits-exceeded';
import oomKilled from './oom-killed';
import prefixDelegationFragmentation from './prefix-delegation-fragmentation';
import schedulingAffinityTopology from './scheduling-affinity-topology';
import schedulingInsufficientResources from './scheduling-insufficient-resources';
import schedulingNodeSelectorMismatch from './scheduling-node-selector-mismatch';
import schedulingUntoleratedTaint from './scheduling-untolerated-taint';
import subnetIpExhaustion from './subnet-ip-exhaustion';
import subnetIpHeadroomLow from './subnet-ip-headroom-low';
import subnetOrSecurityGroupNotFound from './subnet-or-security-group-not-found';
import volumeAttachLimit from './volume-attach-limit';
import volumeMountTimeout from './volume-mount-timeout';
import volumeZoneConflict from './volume-zone-conflict';
import webhookTlsError from './webhook-tls-error';
import windowsImagePlatformMismatch from './windows-image-platform-mismatch';
import windowsIpamNotEnabled from './windows-ipam-not-enabled';
import nodeBootstrapFailed from './node-bootstrap-failed';
import nodeJoinUnauthorized from './node-join-unauthorized';
import karpenterRbacForbidden from './karpenter-rbac-forbidden';
import crdConversionFailed from './crd-conversion-failed';
import awsCredentialsUnavailable from './aws-credentials-unavailable';
import awsApiThrottled from './aws-api-throttled';
import kubernetesVersionUnsupported from './kubernetes-version-unsupported';
import resourceValidationFailed from './resource-validation-failed';
import amiDiscoveryFailed from './ami-discovery-failed';
import { Facts } from '../../advice/facts';
import type { DiagnoseInput, Diagnosis } from '../../advice/types';
import { RULE_IDS, type RuleId } from './ids';
import type { LogRule, RuleInfo, RuleModule } from './types';
import { vocabularyFor } from '../vocabulary';
import type { Entities, Severity } from '../../model';

export { RULE_IDS, type RuleId } from './ids';
export type { LogRule, RuleFamily, RuleInfo, RuleModule } from './types';

/**
 * The registry: every rule module under its id. Adding a rule is its module, its id in `./ids.ts`
 * and its line here; the compiler refuses an id without a module, and test/core/rules.test.ts
 * walks every module.
 */
export const RULES: Readonly<Record<RuleId, RuleModule>> = {
  'karpenter-controller-unschedulable': karpenterControllerUnschedulable,
  'volume-attach-limit': volumeAttachLimit,
  'volume-mount-timeout': volumeMountTimeout,
  'in-tree-storage-plugin': inTreeStoragePlugin,
  'oom-killed': oomKilled,
  'missing-resource-requests': missingResourceRequests,
  'windows-image-platform-mismatch': windowsImagePlatformMismatch,
  'node-not-initialized': nodeNotInitialized,
  'node-not-ready': nodeNotReady,
  'scheduling-affinity-topology': schedulingAffinityTopology,
  'scheduling-insufficient-resources': schedulingInsufficientResources,
  'scheduling-untolerated-taint': schedulingUntoleratedTaint,
  'scheduling-node-selector-mismatch': schedulingNodeSelectorMismatch,
  'subnet-ip-exhaustion': subnetIpExhaustion,
  'incompatible-requirements': incompatibleRequirements,
  'consolidation-blocked': consolidationBlocked,
  'insufficient-instance-capacity': insufficientInstanceCapacity,
  'ec2-quota-exceeded': ec2QuotaExceeded,
  'nodepool-limits-exceeded': nodepoolLimitsExceeded,
  'aws-permission-denied': awsPermissionDenied,
  'aws-api-unreachable': awsApiUnreachable,
  'launch-template-or-ami-error': launchTemplateOrAmiError,
  'nodeclass-not-ready': nodeclassNotReady,
  'subnet-or-security-group-not-found': subnetOrSecurityGroupNotFound,
  'interruption-queue-error': interruptionQueueError,
  'webhook-tls-error': webhookTlsError,
  'leader-election-lost': leaderElectionLost,
  'volume-zone-conflict': volumeZoneConflict,
  'node-disk-pressure': nodeDiskPressure,
  'windows-ipam-not-enabled': windowsIpamNotEnabled,
  'prefix-delegation-fragmentation': prefixDelegationFragmentation,
  'subnet-ip-headroom-low': subnetIpHeadroomLow,
  'node-bootstrap-failed': nodeBootstrapFailed,
  'node-join-unauthorized': nodeJoinUnauthorized,
  'karpenter-rbac-forbidden': karpenterRbacForbidden,
  'crd-conversion-failed': crdConversionFailed,
  'aws-credentials-unavailable': awsCredentialsUnavailable,
  'aws-api-throttled': awsApiThrottled,
  'kubernetes-version-unsupported': kubernetesVersionUnsupported,
  'resource-validation-failed': resourceValidationFailed,
  'ami-discovery-failed': amiDiscoveryFailed,
};

/** Every rule in catalog order. */
export const RULE_LIST: readonly RuleModule[] = RULE_IDS.map((id) => RULES[id]);

/**
 * The rules the log classifier emits, in catalog order, each recognising its module's own terms and
 * the closed vocabularies mapped to it (EC2 error codes, event reasons, CNI and kubelet messages,
 * Karpenter's message templates: lambdas/core/vocabulary).
 */
export const logRules = (): readonly LogRule[] =>
  (logRulesMemo ??= RULE_LIST.filter((rule): rule is LogRule => rule.info.emittedBy === 'logs').map(withVocabulary));

/** Built on first use: the vocabularies' patterns are compiled when a record is first classified, not at import. */
let logRulesMemo: readonly LogRule[] | undefined;

function withVocabulary(rule: LogRule): LogRule {
  const vocabulary = vocabularyFor(rule.info.id);
  const own = new Set(rule.recognition.clauses.map((clause) => clause.join('\u0000')));
  const patterns = [...(rule.recognition.patterns ?? []), ...vocabulary.patterns];
  return {
    ...rule,
    recognition: {
      ...rule.recognition,
      clauses: [...rule.recognition.clauses, ...vocabulary.clauses.filter((clause) => !own.has(clause.join('\u0000')))],
      ...(patterns.length > 0 ? { patterns } : {}),
    },
  };
}

/** The catalog view: id → entry (README, "Rule catalog"). */
export const CATALOG: Readonly<Record<RuleId, RuleInfo>> = Object.fromEntries(
  RULE_LIST.map((rule) => [rule.info.id, rule.info]),
) as Record<RuleId, RuleInfo>;

/**
 * The severity of one incident: the rule's, unless the rule reads a different one in the incident's
 * entities (RuleCommon.severity). Findings, the incident store and every ordering use this one.
 */
export function severityOf(incident: { rule: RuleId; entities: Entities }): Severity {
  return RULES[incident.rule].severity?.(incident.entities) ?? CATALOG[incident.rule].severity;
}

/**
 * Rule + entities + live context → what happened, why, and the commands that fix it, filled in
 * with the real names. Remedies follow the seed article for its scenarios and AWS / Karpenter /
 * Kubernetes documentation beyond it. Names that come from logs are quoted for the shell.
 */
export function diagnose(input: DiagnoseInput): Diagnosis {
  return RULES[input.rule].diagnose(new Facts(input));
}
