/**
 * Every rule id, in catalog order (README, "Rule catalog"). Ids are a public contract: they appear in
 * findings, SNS message attributes, EventBridge rules and users' subscription filter policies. Never rename
 * one. A new rule adds its id here and its module to the registry (`./index.ts`); the registry test checks
 * both.
 */
export const RULE_IDS = [
  'karpenter-controller-unschedulable',
  'volume-attach-limit',
  'volume-mount-timeout',
  'in-tree-storage-plugin',
  'oom-killed',
  'missing-resource-requests',
  'windows-image-platform-mismatch',
  'node-not-initialized',
  'node-not-ready',
  'scheduling-affinity-topology',
  'scheduling-insufficient-resources',
  'scheduling-untolerated-taint',
  'scheduling-node-selector-mismatch',
  'subnet-ip-exhaustion',
  'incompatible-requirements',
  'consolidation-blocked',
  'insufficient-instance-capacity',
  'ec2-quota-exceeded',
  'nodepool-limits-exceeded',
  'aws-permission-denied',
  'aws-api-unreachable',
  'launch-template-or-ami-error',
  'nodeclass-not-ready',
  'subnet-or-security-group-not-found',
  'interruption-queue-error',
  'webhook-tls-error',
  'leader-election-lost',
  'volume-zone-conflict',
  'node-disk-pressure',
  'windows-ipam-not-enabled',
  'prefix-delegation-fragmentation',
  'subnet-ip-headroom-low',
  // failure families added by issue 19
  'node-bootstrap-failed',
  'node-join-unauthorized',
  'karpenter-rbac-forbidden',
  'crd-conversion-failed',
  'aws-credentials-unavailable',
  'aws-api-throttled',
  'kubernetes-version-unsupported',
  'resource-validation-failed',
  'ami-discovery-failed',
] as const;
export type RuleId = (typeof RULE_IDS)[number];
