/**
 * The reviewed mapping from a mined Karpenter message template to the rule it means, or to the one-line
 * reason it is benign. Read top to bottom: the first matching entry wins. Each entry was written after
 * reading the templates it matches (scripts/mine-vocabulary.ts lists them); a template no entry
 * names falls to the last, explicit buckets, whose counts the coverage report shows.
 *
 * Used only by the mining script; the mapping's result is data (test/fixtures/vocabulary).
 */
export type MessageKind = 'error' | 'event' | 'log' | 'condition';

export interface Mapping {
  rule: string | null;
  benign_reason?: string;
  /** A healthy line: it must classify to nothing (checked by the coverage test). */
  silent?: boolean;
}

/** Template (lower-cased) → rule; test/core/vocabulary-coverage.test.ts fails on an id the catalog lacks. */
const RULES: Array<[RegExp, string]> = [
  // AWS access, throttling and credentials (the EC2 codes Karpenter names in its own messages).
  [/requestlimitexceeded|rate exceeded|throttl/, 'aws-api-throttled'],
  [
    /servicelinkedrolecreationnotpermitted|attempted to launch a spot instance but failed due to/,
    'aws-permission-denied',
  ],
  [
    /unauthorizedoperation|accessdenied|authfailure|unauthorized to call|permission is not allowed|explicit deny|not authorized for images|pendingverification/,
    'aws-permission-denied',
  ],
  [/vcpulimitexceeded|maxspotinstancecountexceeded|maxfleetcountexceeded/, 'ec2-quota-exceeded'],
  [/insufficientfreeaddressesinsubnet/, 'subnet-ip-exhaustion'],
  [
    /all requested instance types were unavailable|insufficient ?capacity|no capacity offerings are currently available|offerings %v are not available for capacity types|failed to launch %d ec2 instances out of/,
    'insufficient-instance-capacity',
  ],
  [
    /ec2 api connectivity|unable to determine region|failed to resolve cluster endpoint|failed detecting cluster endpoint/,
    'aws-api-unreachable',
  ],
  // Launch configuration: AMIs, launch templates, user data, instance profiles.
  [
    /failed to discover (?:any )?amis for alias|no amis exist given constraints|failed discovering amis from ssm/,
    'ami-discovery-failed',
  ],
  [
    /requirements of amis|invalid ami id|user data is limited to|exceeding the size limit|no compatible launch templates|launch templates? not found|belong to different networks|not eligible for free tier|unsupported container runtime for ami family|al2 aliases are no longer supported|specify your ubuntu amis|multipart mime format|unreadable user data|parsing custom user ?data|unknown parameter in userdata|user data does not define a content-type|invalid userdata/,
    'launch-template-or-ami-error',
  ],
  [
    /karpenter version is not compatible|karpenter is not compatible with kubernetes|failed validating kubernetes version|requires eks version/,
    'kubernetes-version-unsupported',
  ],
  [/conversion webhook/, 'crd-conversion-failed'],
  [/webhook installed\?|webhook probe failed/, 'webhook-tls-error'],
  // NodePools, NodeClasses, discovery.
  [/no subnets|no security groups|has no subnets/, 'subnet-or-security-group-not-found'],
  [
    /exceed(?:s|ed)? (?:provisioner |nodepool )?limits|node limits have been exhausted|resource usage (?:of %v )?exceeds limit/,
    'nodepool-limits-exceeded',
  ],
  [
    /no (?:dynamic )?nodepools found|no provisioners found|no nodepools or provisioners found|nodepool not ready|ignoring nodepool, not ready|resolving nodeclass readiness|nodeclass status has not been reconciled|failed resolving (?:nodeclass|awsnodetemplate)|instance profile hasn't resolved|neither spec\.(?:provider\.)?instanceprofile/,
    'nodeclass-not-ready',
  ],
  [
    /nodepool failed validation|invalid key name|label is restricted|label domain not allowed|label %s is restricted|using label %s is not allowed|tags? (?:does not pass|failed) (?:tag )?validation|duplicate taint key/,
    'resource-validation-failed',
  ],
  // Scheduling simulation.
  [/did not tolerate/, 'scheduling-untolerated-taint'],
  [
    /unsatisfiable topology|pod (?:anti-)?affinity (?:rule .* )?is not supported|^unsupported topology/,
    'scheduling-affinity-topology',
  ],
  [
    /no instance type satisfied resources|exceeds node resources|failed to compute packing|failed to find instance type option/,
    'scheduling-insufficient-resources',
  ],
  [
    /incompatible requirements|has an unsupported operator|does not have known values|not in %[sv], key|key %s, %s not in|no feasible value for key|operator %s not in|requirements filtered out all|minvalues requirement is not met|meet minvalues|respecting minvalues|architecture %s (?:is )?not in|operating systems %s not in|instance type %s not in|require values for key|unsatisfiable due to unsupported operator|%s (?:prohibits|requires) %s, key/,
    'incompatible-requirements',
  ],
  [/would exceed (?:node )?volume limit/, 'volume-attach-limit'],
  [/in-tree storage plugin/, 'in-tree-storage-plugin'],
  // Disruption.
  [
    /prevents pod evictions|do-not-disrupt" annotation|do-not-evict|cannot (?:disrupt|deprovision)|disruption is blocked|not eligible for termination due to pdbs|violates a pdb|no allowed disruptions|would schedule against a non-initialized/,
    'consolidation-blocked',
  ],
  [/failed to evict pod .*due to pdb|cannot terminate .*since scheduling simulation failed/, 'consolidation-blocked'],
  // Node registration.
  [
    /taint which prevents registration|taint prevents registration|inflight check failed|node that failed to become ready/,
    'node-not-initialized',
  ],
  [/nodepool node limit reached/, 'nodepool-limits-exceeded'],
  [/registration ttl/, 'node-not-initialized'],
  [/skipped nodepools, not ready/, 'nodeclass-not-ready'],
  [/failed to migrate crd|expected storage version/, 'crd-conversion-failed'],
  [/spread placement group availability zone limit reached/, 'insufficient-instance-capacity'],
  [
    /^invalid (?:key|capacity|value).*restricted|key %s with operator %s must have|matchfields is not supported|invalid values found for key/,
    'resource-validation-failed',
  ],
  // Interruption queue.
  [/sqs|queue url|failed parsing interruption message/, 'interruption-queue-error'],
];

/** Template (lower-cased) → why it is benign. First match wins; `silent` ones must classify to nothing. */
const BENIGN: Array<[RegExp, string, boolean?]> = [
  [
    /interruption warning|rebalance recommendation|is stopping$|is terminating$|unhealthy warning|interruption triggered termination/,
    'interruption notice Karpenter handles by replacing the node: intended, not a scaling failure',
    true,
  ],
  [
    /^reconciler error$|^failed [a-z]+ing\b|^error while running server$|^received error while batching$/,
    'generic log message: the cause is in its error field, which is what is classified',
  ],
  [
    /^(?:could not|unable to|failed to) schedule|^all pending pods could not be scheduled|^failed scheduling pod to/,
    'scheduling failure context: the per-pod reasons in the same line pick the rule',
  ],
  [
    /pvc|persistentvolume|storage class|hostport/,
    'pod volume or host-port misconfiguration outside the catalog: the scheduler reports it to the pod owner',
  ],
  [
    /^(?:launching|launched|disrupting|deprovisioning|consolidating|evicted|waiting on|pod should schedule|nominated|registered|initialized|created|deleted|terminat|annotated|tainted|cordon|all pods will be deleted|deleting the pod to accommodate|the karpenter\.sh\/do-not-disrupt grace period|all %d virtual pods fit|buffer has zero|zonal shift cleared)/,
    'progress of a healthy lifecycle step (launch, registration, disruption, eviction, termination)',
    true,
  ],
  [
    /^(?:state node|candidate|a candidate|%d candidates|node is nominated|node is deleting|node isn't|node is not|node doesn't have required label|state node is|nodeclaim does not have|already being deleted|node is unschedulable|configured to not run on a karpenter)/,
    'disruption candidate filtering: why one node is skipped this round, normal bookkeeping',
  ],
  [
    /cannot be negative|must be at least|is required$|^%s is required|is not required|must be positive|cannot be less|invalid log.level|validating cli flags|missing field|may only be either|is not a valid value|must be true or false|not a valid cluster.endpoint|cluster endpoint url is not valid|not a well-known variant|variant is not well-known|watcher configured for wrong namespace|settingsstore|cluster_name is required/,
    'startup flag or settings validation: the controller refuses to start, seen as a crash loop, not a scaling failure',
  ],
  [
    /resourceclaim|resourceslice|deviceclass|claim %q|dynamic resource|allocation topology|cel expression|pool %s\/%s|capacitybuffer|buffer %q|virtual pods|scalableref|podtemplateref|nodeoverlay|node overla/,
    'alpha features outside the catalog (dynamic resource allocation, capacity buffers, node overlays)',
  ],
  [/pricing|gauge|metric|price/, 'pricing and metrics bookkeeping: a stale price or metric, no scaling effect'],
  [/zonal shift|zonally shifted/, 'zonal shift: an AZ taken out by the operator, reported as intended'],
];

/** Event reasons Karpenter emits (exact) → rule; reasons not named here are benign or carry their cause in the message. */
const REASONS: Record<string, string> = {
  Unconsolidatable: 'consolidation-blocked',
  DisruptionBlocked: 'consolidation-blocked',
  DeprovisioningBlocked: 'consolidation-blocked',
  BlockedDeprovisioning: 'consolidation-blocked',
  FailedInflightCheck: 'node-not-initialized',
  UnregisteredTaintMissing: 'node-not-initialized',
  NodeRepairBlocked: 'node-not-ready',
  InsufficientCapacityError: 'insufficient-instance-capacity',
  NodeClassNotReady: 'nodeclass-not-ready',
  ProviderNotReady: 'nodeclass-not-ready',
  NoCompatibleInstanceTypes: 'incompatible-requirements',
};
/** Event reasons that report healthy, intended steps: an event with only this reason must not fire. */
const HEALTHY_REASONS =
  /^(?:Launching|Disruption(?:Launching|WaitingReadiness|WaitingDeletion|Terminating)|Deprovisioning(?:Terminating|Launching|WaitingReadiness|WaitingDeletion|TerminatingNode|LaunchingNode)|Nominated|Evicted|Disrupted|KubeletReady|Resolved|WaitingOnNodeClaimTermination|AwaitingVolumeDetachment|DoNotDisruptUntil|DoNotDisruptGracePeriodElapsed|ZonalShiftCleared|FitsExistingCapacity|(?:Instance|Node|Capacity)?[A-Za-z]*(?:Interrupted|Interruption|RebalanceRecommendation|Stopping|Terminating)|TerminatingOnInterruption|NodeTerminatingOnInterruption)$/;

/** Conditions set False with a failure message (SetFalse in the status controllers) → rule, by condition type. */
const CONDITION_TYPE_RULES: Record<string, string> = {
  AMIsReady: 'ami-discovery-failed',
  SubnetsReady: 'subnet-or-security-group-not-found',
  SecurityGroupsReady: 'subnet-or-security-group-not-found',
  InstanceProfileReady: 'nodeclass-not-ready',
  PlacementGroupReady: 'nodeclass-not-ready',
  NodeClassReady: 'nodeclass-not-ready',
  NodeRegistrationHealthy: 'node-bootstrap-failed',
};
const WAITING =
  /^node not (?:launched|registered)|still exists$|was requested but not registered|^draining$|^awaitingvolumedetachment$/;

const FAILURE_WORDS =
  /fail|unable|cannot|could not|error|limit|unhealthy|exceed|breach|timed? ?out|not enough|avoiding/;

const WRAPPER = /(?:, |: | |\()%[wvs]\)?$|\(%[sv]\)$/;

export function mapTemplate(
  kind: MessageKind,
  level: string | undefined,
  template: string,
  status?: 'False' | 'Unknown',
  conditionType?: string,
): Mapping {
  const text = template.toLowerCase();
  if (status === 'False' && conditionType && CONDITION_TYPE_RULES[conditionType]) {
    return { rule: CONDITION_TYPE_RULES[conditionType]! };
  }
  if (status && WAITING.test(text)) {
    return {
      rule: null,
      benign_reason:
        'a NodeClaim waiting to launch, register or initialise (set False before v1, Unknown since): normal progress',
      silent: true,
    };
  }
  if (status && /^node status is notready/.test(text)) {
    return {
      rule: null,
      benign_reason:
        'a NodeClaim waiting for its node to turn Ready: node-not-ready fires on it, and only a lasting one is a finding',
    };
  }
  if (status === 'Unknown') {
    return {
      rule: null,
      benign_reason: 'a condition set Unknown while a launch, registration or reconciliation is still under way',
      silent: true,
    };
  }
  if (kind === 'condition' && !status) {
    return {
      rule: null,
      benign_reason: 'status condition type or reason: fires only on its failing transition (polarity, classify.ts)',
    };
  }
  if (kind === 'event' && REASONS[template]) return { rule: REASONS[template]! };
  if (kind === 'event' && HEALTHY_REASONS.test(template)) {
    return { rule: null, benign_reason: 'event reason of a healthy, intended step', silent: true };
  }
  for (const [pattern, rule] of RULES) if (pattern.test(text)) return { rule };
  for (const [pattern, reason, silent] of BENIGN) {
    if (pattern.test(text)) return { rule: null, benign_reason: reason, ...(silent ? { silent: true } : {}) };
  }
  if (kind === 'log' && (level === 'info' || level === 'debug')) {
    if (FAILURE_WORDS.test(text)) {
      return {
        rule: null,
        benign_reason: 'info/debug report of a setback Karpenter works around (retry, fallback, exclusion)',
      };
    }
    return { rule: null, benign_reason: 'info/debug progress log of a healthy controller', silent: true };
  }
  if (kind === 'event' && /^[A-Za-z]+$/.test(template)) {
    return {
      rule: null,
      benign_reason: 'event reason without a failure meaning on its own (its message is mined too)',
    };
  }
  if (WRAPPER.test(text)) {
    return {
      rule: null,
      benign_reason: 'wrapping context ("doing X, %w"): the wrapped cause is what is classified',
    };
  }
  return {
    rule: null,
    benign_reason: 'internal invariant or bookkeeping error: no catalog cause a user can act on',
  };
}

/**
 * EC2 API error codes (the families of the transcription scripts/mine-vocabulary.ts reads) → rule.
 * A family's default applies unless the code is named below; null families are benign with the
 * family's reason. Reviewed code by code against the page's meanings and Karpenter's own grouping
 * (pkg/errors/errors.go @ v1.14.1).
 */
export const EC2_FAMILY_RULES: Record<string, string | null> = {
  capacity: 'insufficient-instance-capacity',
  quota: 'ec2-quota-exceeded',
  permission: 'aws-permission-denied',
  'launch-configuration': 'launch-template-or-ami-error',
  network: null,
  volume: null,
  throttling: 'aws-api-throttled',
  'transient-server': null,
  other: null,
};

export const EC2_CODE_OVERRIDES: Record<string, string | null> = {
  // permission
  DryRunOperation: null,
  IncompleteSignature: 'aws-credentials-unavailable',
  InvalidClientTokenId: 'aws-credentials-unavailable',
  MissingAuthenticationToken: 'aws-credentials-unavailable',
  RequestExpired: 'aws-credentials-unavailable',
  SignatureDoesNotMatch: 'aws-credentials-unavailable',
  'InvalidSecurity.RequestHasExpired': 'aws-credentials-unavailable',
  // launch configuration: Karpenter treats Unsupported as an unavailable offering (unfulfillableCapacityErrorCodes)
  Unsupported: 'insufficient-instance-capacity',
  // network: the subnet and security group a launch names
  InsufficientFreeAddressesInSubnet: 'subnet-ip-exhaustion',
  InsufficientCidrBlocks: 'prefix-delegation-fragmentation',
  'InvalidSubnetID.NotFound': 'subnet-or-security-group-not-found',
  'InvalidSubnetId.NotFound': 'subnet-or-security-group-not-found',
  'InvalidSubnetID.Malformed': 'subnet-or-security-group-not-found',
  InvalidSubnet: 'subnet-or-security-group-not-found',
  'InvalidGroup.NotFound': 'subnet-or-security-group-not-found',
  'InvalidGroupId.Malformed': 'subnet-or-security-group-not-found',
  'InvalidSecurityGroupID.NotFound': 'subnet-or-security-group-not-found',
  'InvalidSecurityGroupId.Malformed': 'subnet-or-security-group-not-found',
  'InvalidVpcID.NotFound': 'subnet-or-security-group-not-found',
  VPCIdNotSpecified: 'subnet-or-security-group-not-found',
  VPCResourceNotSpecified: 'subnet-or-security-group-not-found',
  PrivateIpAddressLimitExceeded: null,
  'InvalidInterface.IpAddressLimitExceeded': null,
  // volume: what a launch's block device mappings or a pod's volume can hit
  AttachmentLimitExceeded: 'volume-attach-limit',
  'InvalidVolume.ZoneMismatch': 'volume-zone-conflict',
  'InvalidVolumeID.ZoneMismatch': 'volume-zone-conflict',
  VolumeTypeNotAvailableInZone: 'launch-template-or-ami-error',
  EncryptedVolumesNotSupported: 'launch-template-or-ami-error',
  CustomerKeyHasBeenRevoked: 'launch-template-or-ami-error',
  VolumeIOPSLimit: 'launch-template-or-ami-error',
};

/** Why an override to null is benign, by code. */
export const EC2_OVERRIDE_REASONS: Record<string, string> = {
  DryRunOperation: 'dryrun',
  PrivateIpAddressLimitExceeded: 'eni',
  'InvalidInterface.IpAddressLimitExceeded': 'eni',
};

/** Codes that are plain English words (or another tool's word): matched only where an error code stands. */
export const EC2_CODE_CONTEXT_ONLY = new Set(['Blocked', 'Unsupported', 'Unavailable', 'ValidationError']);
