/**
 * Stable pieces of Karpenter's own error, event and log templates, per rule: the words every rendering
 * of a template keeps whatever fills its format verbs. Each term names the template it stands for;
 * test/fixtures/vocabulary/karpenter-messages.jsonl has every template with the minor releases and file
 * it appears in (aws/karpenter-provider-aws v0.5–v1.14 and kubernetes-sigs/karpenter v0.21–v1.14,
 * mined by scripts/mine-vocabulary.ts), and test/core/vocabulary-coverage.test.ts checks that each
 * template mapped to a rule is recognised in every line shape Karpenter writes it in.
 */
export interface KarpenterTerm {
  rule: string;
  /** All present (lower case) → the rule. */
  clause: readonly string[];
  /** The template(s) the clause stands for, as Karpenter writes them. */
  templates: readonly string[];
}

export interface KarpenterPattern {
  rule: string;
  gate: string;
  /** Linear-time (recheck, test/core/regex-safety.test.ts), on the lower-cased record text. */
  pattern: RegExp;
  templates: readonly string[];
}

const t = (rule: string, clause: string | readonly string[], ...templates: string[]): KarpenterTerm => ({
  rule,
  clause: typeof clause === 'string' ? [clause] : clause,
  templates,
});

export const KARPENTER_TERMS: readonly KarpenterTerm[] = [
  // AWS access
  t(
    'aws-api-unreachable',
    'ec2 api connectivity',
    'Checking EC2 API connectivity, %s',
    'ec2 api connectivity check failed',
  ),
  t('aws-api-unreachable', 'failed detecting cluster endpoint', 'failed detecting cluster endpoint'),
  t('aws-api-unreachable', 'unable to determine region from imds', 'unable to determine region from IMDS: %w'),
  t('aws-permission-denied', 'unauthorized to call ec2:', 'unauthorized to call ec2:CreateFleet'),
  t(
    'aws-permission-denied',
    'permission is not allowed, update the iam policy',
    'ec2:DescribeInstanceStatus permission is not allowed, update the IAM policy and restart the Karpenter deployment…',
  ),
  t(
    'aws-permission-denied',
    'attempted to launch a spot instance but failed',
    'Attempted to launch a spot instance but failed due to %q',
  ),
  // Capacity and limits
  t(
    'insufficient-instance-capacity',
    'ec2 instances out of the',
    'Failed to launch %d EC2 instances out of the %d EC2 instances requested: %s',
  ),
  t(
    'insufficient-instance-capacity',
    'no capacity offerings are currently available',
    'no capacity offerings are currently available given the constraints',
  ),
  t(
    'insufficient-instance-capacity',
    'are not available for capacity types',
    'offerings %v are not available for capacity types %s and zones %s',
  ),
  t(
    'insufficient-instance-capacity',
    'spread placement group availability zone limit reached',
    'spread placement group availability zone limit reached, marking all instance types unavailable…',
  ),
  t('nodepool-limits-exceeded', 'exceeds limit of', '%s resource usage of %v exceeds limit of %v'),
  t('nodepool-limits-exceeded', 'resource usage exceeds limit', 'resource usage exceeds limit'),
  t('nodepool-limits-exceeded', 'node limits have been exhausted', 'node limits have been exhausted for nodepool'),
  t('nodepool-limits-exceeded', 'nodepool node limit reached', 'nodepool node limit reached'),
  // Scheduling simulation
  t(
    'scheduling-insufficient-resources',
    'did not fit in instance type',
    'Failed to compute packing, pod(s) %s did not fit in instance type option(s) %v',
  ),
  t(
    'scheduling-insufficient-resources',
    'failed to find instance type option',
    'Failed to find instance type option(s) for %v',
  ),
  t('scheduling-insufficient-resources', 'exceeds node resources', 'exceeds node resources'),
  t(
    'scheduling-affinity-topology',
    'affinity is not supported',
    'pod affinity is not supported',
    'pod anti-affinity is not supported',
  ),
  t('scheduling-affinity-topology', ['affinity rule', 'is not supported'], "pod affinity rule '…' is not supported"),
  t('scheduling-affinity-topology', 'unsupported topology key,', 'unsupported topology key, %s not in %s'),
  t(
    'scheduling-affinity-topology',
    'unsupported topology key in pod',
    'unsupported topology key in pod affinity, %s not in %s',
  ),
  t('incompatible-requirements', [' not in ', ', key '], '%s not in %s, key %s'),
  t('incompatible-requirements', [' prohibits ', ', key '], '%s prohibits %s, key %s'),
  t('incompatible-requirements', [' requires ', ', key '], '%s requires %s, key %s'),
  t('incompatible-requirements', 'has an unsupported operator', 'key %s has an unsupported operator %s not in %s'),
  t(
    'incompatible-requirements',
    'unsatisfiable due to unsupported operator',
    'key %s is unsatisfiable due to unsupported operator…',
  ),
  t('incompatible-requirements', 'no feasible value for key', 'no feasible value for key %s'),
  t('incompatible-requirements', 'require values for key', 'require values for key %s but is not defined'),
  t('incompatible-requirements', ['operator ', ' not in ', ' for key '], 'operator %s not in %s for key %s'),
  t(
    'incompatible-requirements',
    ['architecture ', ' not in '],
    'architecture %s not in %s',
    'architecture %s is not in %v',
  ),
  t('incompatible-requirements', ['operating systems ', ' not in '], 'operating systems %s not in %s'),
  t('incompatible-requirements', ['instance type ', ' not in '], 'instance type %s not in %s'),
  t(
    'incompatible-requirements',
    'requirements filtered out all',
    'nodepool requirements filtered out all available instance types',
  ),
  t('incompatible-requirements', 'minvalues requirement is not met', 'minValues requirement is not met for %q'),
  t(
    'incompatible-requirements',
    'respecting minvalues',
    'failed to construct CreateFleet request while respecting minValues requirements',
  ),
  t(
    'incompatible-requirements',
    'meet minvalues requirements',
    'pod didn’t schedule because NodePool %q couldn’t meet minValues requirements, %w',
  ),
  // Disruption
  t('consolidation-blocked', 'cannot deprovision', 'Cannot deprovision Node: %s', 'Cannot deprovision node due to %s'),
  t('consolidation-blocked', 'due to pdb violation', 'Failed to evict pod %s due to PDB violation.'),
  t(
    'consolidation-blocked',
    'due to pdb misconfiguration',
    'Failed to evict pod %s due to PDB misconfiguration error.',
  ),
  t('consolidation-blocked', 'due to blocking budget', 'No allowed disruptions due to blocking budget'),
  t(
    'consolidation-blocked',
    'since scheduling simulation failed',
    'cannot terminate since scheduling simulation failed to schedule all pods, %s',
  ),
  t('consolidation-blocked', 'disruption is blocked through the', 'disruption is blocked through the %q annotation'),
  t('consolidation-blocked', 'violates a pdb', 'evicting pod %s/%s violates a PDB'),
  t('consolidation-blocked', 'termination due to pdbs', 'not eligible for termination due to PDBs'),
  t(
    'consolidation-blocked',
    'would schedule against a non-initialized node',
    'would schedule against a non-initialized node %s',
  ),
  // NodeClass, NodePool and launch configuration
  t('nodeclass-not-ready', 'failed resolving awsnodetemplate', 'Failed resolving AWSNodeTemplate'),
  t('nodeclass-not-ready', "instance profile hasn't resolved", "instance profile hasn't resolved for role"),
  t('nodeclass-not-ready', 'neither spec.instanceprofile', 'neither spec.instanceProfile or spec.role is specified'),
  t(
    'nodeclass-not-ready',
    'neither spec.provider.instanceprofile',
    'neither spec.provider.instanceProfile nor --aws-default-instance-profile is specified',
  ),
  t('nodeclass-not-ready', 'no dynamic nodepools found', 'no dynamic nodepools found'),
  t('nodeclass-not-ready', 'no nodepools or provisioners found', 'no nodepools or provisioners found'),
  t('nodeclass-not-ready', 'nodepool not ready', 'nodePool not ready'),
  t('nodeclass-not-ready', 'nodepools, not ready', 'skipped nodePools, not ready'),
  t(
    'nodeclass-not-ready',
    'nodeclass status has not been reconciled',
    'nodeclass status has not been reconciled against the latest spec',
  ),
  t('subnet-or-security-group-not-found', 'has no subnets', 'AWSNodeTemplate has no subnets'),
  // Status condition messages (SetFalse in the status controllers), as kubectl describe shows them
  t('subnet-or-security-group-not-found', 'did not match any subnets', 'SubnetSelector did not match any Subnets'),
  t(
    'subnet-or-security-group-not-found',
    'did not match any securitygroups',
    'SecurityGroupSelector did not match any SecurityGroups',
  ),
  t('ami-discovery-failed', 'did not match any amis', 'AMISelector did not match any AMIs'),
  t(
    'ami-discovery-failed',
    'ubuntu ami discovery is not supported',
    'Ubuntu AMI discovery is not supported at v1, refer to the upgrade guide…',
  ),
  t('nodeclass-not-ready', 'failed to resolve placement group', 'Failed to resolve placement group'),
  t('nodeclass-not-ready', ['placement group ', ' not found'], 'Placement group %q not found'),
  t('nodeclass-not-ready', 'nodeclass not found on cluster', 'NodeClass not found on cluster'),
  t('nodeclass-not-ready', 'nodeclass is terminating', 'NodeClass is Terminating'),
  t('nodeclass-not-ready', 'node class readiness unknown', 'Node Class Readiness Unknown'),
  t(
    'nodeclass-not-ready',
    'unable to resolve instance profile',
    'unable to resolve instance profile for node class (docs: concepts/nodeclasses.md)',
  ),
  t('node-bootstrap-failed', 'failed to register node', 'Failed to register node'),
  // The webhooks Karpenter registers are not installed or not answering
  t(
    'webhook-tls-error',
    ['webhook installed', 'invariant violated'],
    'invariant violated: spec.provider is not defined. Is the defaulting webhook installed?',
  ),
  t('webhook-tls-error', 'webhook probe failed', 'webhook probe failed with status code %d'),
  t('subnet-or-security-group-not-found', 'no security groups are', 'no security groups are discovered'),
  t('subnet-or-security-group-not-found', 'no subnets are', 'no subnets are discovered'),
  t(
    'launch-template-or-ami-error',
    'al2 aliases are no longer supported',
    'AL2 aliases are no longer supported on EKS 1.33+ (…)',
  ),
  t(
    'launch-template-or-ami-error',
    'specify your ubuntu amis',
    'EC2NodeClass %q is incompatible with Karpenter v1, specify your Ubuntu AMIs…',
  ),
  t('launch-template-or-ami-error', 'unknown parameter in userdata', 'Unknown parameter in userData K8s settings'),
  t(
    'launch-template-or-ami-error',
    'user data as exceeding the size limit',
    'ec2:CreateLaunchTemplate rejected the rendered user data as exceeding the size limit',
  ),
  t('launch-template-or-ami-error', 'invalid userdata', 'invalid UserData %w'),
  t(
    'launch-template-or-ami-error',
    'launch templates not found',
    'launch templates not found when creating fleet request, %w',
  ),
  t('launch-template-or-ami-error', 'no compatible launch templates', 'no compatible launch templates created'),
  t('launch-template-or-ami-error', 'invalid ami id', 'parameter value is an invalid AMI ID'),
  t('launch-template-or-ami-error', 'parsing custom userdata', 'parsing custom UserData, %w'),
  t('launch-template-or-ami-error', 'parsing custom user data', 'parsing custom user data input %w'),
  t('launch-template-or-ami-error', 'unreadable user data', 'unreadable user data %w'),
  t(
    'launch-template-or-ami-error',
    'unsupported container runtime for ami family',
    'unsupported container runtime for AMI family %s, must be %s',
  ),
  t(
    'launch-template-or-ami-error',
    'user data does not define a content-type',
    'user data does not define a content-type header %w',
  ),
  t('launch-template-or-ami-error', 'not in multipart mime format', 'user data is not in multipart MIME format'),
  // Node registration
  t(
    'node-not-initialized',
    'taint which prevents registration',
    'Missing %s taint which prevents registration related race conditions…',
  ),
  t(
    'node-not-initialized',
    'taint prevents registration',
    'missing taint prevents registration-related race conditions…',
  ),
  t('node-not-initialized', 'failed to become ready', 'Triggering termination for node that failed to become ready'),
  // Interruption queue
  t('interruption-queue-error', 'sqs provider', 'failed to create valid sqs provider', 'creating sqs provider, %w'),
  t('interruption-queue-error', 'queue url', 'discovering queue url, %w', 'fetching queue url, %w'),
  t('interruption-queue-error', 'sqs queue', 'deleting messages from sqs queue, %w'),
  t('interruption-queue-error', 'failed parsing interruption message', 'failed parsing interruption message'),
  // Storage
  t('volume-attach-limit', 'would exceed volume limit', 'would exceed volume limit for %s, %d > %d'),
  t('volume-attach-limit', 'would exceed node volume limits', 'would exceed node volume limits'),
  // AMI discovery, version support, validation, bootstrap and credentials
  t('ami-discovery-failed', 'amis for alias', 'failed to discover any amis for alias "al2@%s"'),
  t('ami-discovery-failed', 'no amis exist given constraints', 'no amis exist given constraints'),
  t('ami-discovery-failed', 'failed discovering amis from ssm', 'failed discovering amis from ssm'),
  t(
    'kubernetes-version-unsupported',
    'is not compatible with k8s version',
    'karpenter version is not compatible with K8s version %s',
  ),
  t(
    'kubernetes-version-unsupported',
    'not compatible with kubernetes version',
    'karpenter is not compatible with kubernetes version',
  ),
  t('kubernetes-version-unsupported', 'failed validating kubernetes version', 'failed validating kubernetes version'),
  t(
    'kubernetes-version-unsupported',
    'requires eks version',
    'windows server 2025 requires eks version 1.35 or higher…',
  ),
  t('crd-conversion-failed', 'conversion webhook', 'conversion webhook for karpenter.sh/v1beta1, Kind=NodePool failed'),
  t('crd-conversion-failed', 'expected storage version', 'failed to migrate CRD, expected storage version to be v1…'),
  t('resource-validation-failed', 'nodepool failed validation', 'nodepool failed validation, %s'),
  t('resource-validation-failed', 'invalid key name', 'invalid key name %q in labels, restricted'),
  t('resource-validation-failed', 'label is restricted', 'label is restricted, %s'),
  t('resource-validation-failed', 'label domain not allowed', 'label domain not allowed, %s'),
  t(
    'resource-validation-failed',
    'restricted; specify a well known label',
    'label %s is restricted; specify a well known label…',
  ),
  t(
    'resource-validation-failed',
    'might interfere with the internal provisioning',
    'using label %s is not allowed as it might interfere…',
  ),
  t('resource-validation-failed', 'failed validation requirements', 'tags failed validation requirements'),
  t('resource-validation-failed', 'tag validation requirements', '%q tag does not pass tag validation requirements'),
  t('resource-validation-failed', 'duplicate taint key', 'duplicate taint key/effect pair %s=%s'),
  t('resource-validation-failed', ['in requirements', 'restricted'], 'invalid key: %q in requirements, restricted'),
  t('resource-validation-failed', ['in resource', 'restricted'], 'invalid capacity: %s in resource, restricted'),
  t(
    'resource-validation-failed',
    'must have a single positive integer value',
    'key %s with operator %s must have a single positive integer value',
  ),
  t('resource-validation-failed', 'must have a value defined', 'key %s with operator %s must have a value defined'),
  t(
    'resource-validation-failed',
    'must have at least minimum number of values',
    'key %s with operator %s must have at least minimum number of values…',
  ),
  t(
    'resource-validation-failed',
    'matchfields is not supported',
    'node selector term with matchFields is not supported',
  ),
  t('resource-validation-failed', 'invalid values found for key', 'invalid values found for key'),
];

export const KARPENTER_PATTERNS: readonly KarpenterPattern[] = [
  {
    rule: 'incompatible-requirements',
    gate: ' not in ',
    // "key topology.kubernetes.io/zone, us-west-2d not in us-west-2a" (v0.x Requirements.Compatible)
    pattern: /\bkey [a-z0-9./_-]+, [a-z0-9./_-]+ not in /,
    templates: ['key %s, %s not in %s'],
  },
];
