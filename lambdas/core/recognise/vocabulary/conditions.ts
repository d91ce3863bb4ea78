/**
 * Status condition types of Nodes, NodeClaims (and v0.x Machines), NodePools and EC2NodeClasses, with
 * the status that means failure and the rule that failure means. The other statuses are healthy: a
 * `Drifted=True` or `Consolidatable=True` is Karpenter doing its job, a `Ready=True` is recovery.
 */
export interface ConditionVocabulary {
  type: string;
  kinds: readonly string[];
  /** The status that reports a failure; the others report health. */
  failing: readonly ('True' | 'False' | 'Unknown')[];
  /** Null: no failure meaning of its own (lifecycle markers), or outside the catalog. */
  rule: string | null;
  source: string;
}

const CORE = 'kubernetes-sigs/karpenter';
const AWS = 'aws/karpenter-provider-aws';
const K8S = 'k8s.io/api@v0.22.11 core/v1/types.go (vendored in kubernetes-sigs/aws-ebs-csi-driver@v1.10.0)';
const REPAIR = `${AWS}@v1.14.1:pkg/cloudprovider/cloudprovider.go (RepairPolicies)`;

export const CONDITIONS: readonly ConditionVocabulary[] = [
  // Node (kubelet; node monitoring agent conditions Karpenter repairs on)
  { type: 'Ready', kinds: ['Node'], failing: ['False', 'Unknown'], rule: 'node-not-ready', source: K8S },
  { type: 'DiskPressure', kinds: ['Node'], failing: ['True'], rule: 'node-disk-pressure', source: K8S },
  { type: 'MemoryPressure', kinds: ['Node'], failing: ['True'], rule: null, source: K8S },
  { type: 'PIDPressure', kinds: ['Node'], failing: ['True'], rule: null, source: K8S },
  { type: 'NetworkUnavailable', kinds: ['Node'], failing: ['True'], rule: 'node-not-ready', source: K8S },
  { type: 'AcceleratedHardwareReady', kinds: ['Node'], failing: ['False'], rule: 'node-not-ready', source: REPAIR },
  { type: 'StorageReady', kinds: ['Node'], failing: ['False'], rule: 'node-not-ready', source: REPAIR },
  { type: 'NetworkingReady', kinds: ['Node'], failing: ['False'], rule: 'node-not-ready', source: REPAIR },
  { type: 'KernelReady', kinds: ['Node'], failing: ['False'], rule: 'node-not-ready', source: REPAIR },
  { type: 'ContainerRuntimeReady', kinds: ['Node'], failing: ['False'], rule: 'node-not-ready', source: REPAIR },
  // NodeClaim (v0.31+), NodeClaim v1beta1 (v0.30) and Machine (v0.22–v0.32)
  {
    type: 'Launched',
    kinds: ['NodeClaim'],
    failing: ['False'],
    rule: null,
    source: `${CORE}:pkg/apis/v1/nodeclaim_status.go`,
  },
  {
    type: 'Registered',
    kinds: ['NodeClaim'],
    failing: ['False'],
    rule: 'node-not-initialized',
    source: `${CORE}:pkg/apis/v1/nodeclaim_status.go`,
  },
  {
    type: 'Initialized',
    kinds: ['NodeClaim'],
    failing: ['False'],
    rule: 'node-not-initialized',
    source: `${CORE}:pkg/apis/v1/nodeclaim_status.go`,
  },
  {
    type: 'Ready',
    kinds: ['NodeClaim'],
    failing: ['False'],
    rule: 'node-not-ready',
    source: `${CORE}:pkg/apis/v1/nodeclaim_status.go`,
  },
  {
    type: 'NodeRegistered',
    kinds: ['NodeClaim'],
    failing: ['False'],
    rule: 'node-not-initialized',
    source: `${CORE}@v0.30.0:pkg/apis/v1beta1/nodeclaim_status.go`,
  },
  {
    type: 'NodeInitialized',
    kinds: ['NodeClaim'],
    failing: ['False'],
    rule: 'node-not-initialized',
    source: `${CORE}@v0.30.0:pkg/apis/v1beta1/nodeclaim_status.go`,
  },
  {
    type: 'MachineRegistered',
    kinds: ['Machine'],
    failing: ['False'],
    rule: 'node-not-initialized',
    source: `${CORE}@v0.32.10:pkg/apis/v1alpha5/machine_status.go`,
  },
  {
    type: 'MachineInitialized',
    kinds: ['Machine'],
    failing: ['False'],
    rule: 'node-not-initialized',
    source: `${CORE}@v0.32.10:pkg/apis/v1alpha5/machine_status.go`,
  },
  { type: 'Drifted', kinds: ['NodeClaim'], failing: [], rule: null, source: `${CORE}:pkg/apis/v1/nodeclaim_status.go` },
  {
    type: 'Consolidatable',
    kinds: ['NodeClaim'],
    failing: [],
    rule: null,
    source: `${CORE}:pkg/apis/v1/nodeclaim_status.go`,
  },
  {
    type: 'ConsistentStateFound',
    kinds: ['NodeClaim'],
    failing: ['False'],
    rule: null,
    source: `${CORE}:pkg/apis/v1/nodeclaim_status.go`,
  },
  {
    type: 'InstanceTerminating',
    kinds: ['NodeClaim'],
    failing: [],
    rule: null,
    source: `${CORE}:pkg/apis/v1/nodeclaim_status.go`,
  },
  { type: 'Drained', kinds: ['NodeClaim'], failing: [], rule: null, source: `${CORE}:pkg/apis/v1/nodeclaim_status.go` },
  {
    type: 'VolumesDetached',
    kinds: ['NodeClaim'],
    failing: [],
    rule: null,
    source: `${CORE}:pkg/apis/v1/nodeclaim_status.go`,
  },
  // NodePool
  {
    type: 'Ready',
    kinds: ['NodePool'],
    failing: ['False'],
    rule: 'nodeclass-not-ready',
    source: `${CORE}:pkg/apis/v1/nodepool_status.go`,
  },
  {
    type: 'NodeClassReady',
    kinds: ['NodePool'],
    failing: ['False'],
    rule: 'nodeclass-not-ready',
    source: `${CORE}:pkg/apis/v1/nodepool_status.go`,
  },
  {
    type: 'ValidationSucceeded',
    kinds: ['NodePool'],
    failing: ['False'],
    rule: 'resource-validation-failed',
    source: `${CORE}:pkg/apis/v1/nodepool_status.go`,
  },
  {
    type: 'NodeRegistrationHealthy',
    kinds: ['NodePool'],
    failing: ['False'],
    rule: 'node-bootstrap-failed',
    source: `${CORE}@v1.4.2:pkg/apis/v1/nodepool_status.go`,
  },
  // EC2NodeClass
  {
    type: 'Ready',
    kinds: ['EC2NodeClass'],
    failing: ['False'],
    rule: 'nodeclass-not-ready',
    source: `${AWS}:pkg/apis/v1/ec2nodeclass_status.go`,
  },
  {
    type: 'SubnetsReady',
    kinds: ['EC2NodeClass'],
    failing: ['False'],
    rule: 'subnet-or-security-group-not-found',
    source: `${AWS}:pkg/apis/v1/ec2nodeclass_status.go`,
  },
  {
    type: 'SecurityGroupsReady',
    kinds: ['EC2NodeClass'],
    failing: ['False'],
    rule: 'subnet-or-security-group-not-found',
    source: `${AWS}:pkg/apis/v1/ec2nodeclass_status.go`,
  },
  {
    type: 'AMIsReady',
    kinds: ['EC2NodeClass'],
    failing: ['False'],
    rule: 'ami-discovery-failed',
    source: `${AWS}:pkg/apis/v1/ec2nodeclass_status.go`,
  },
  {
    type: 'InstanceProfileReady',
    kinds: ['EC2NodeClass'],
    failing: ['False'],
    rule: 'nodeclass-not-ready',
    source: `${AWS}:pkg/apis/v1/ec2nodeclass_status.go`,
  },
  {
    type: 'ValidationSucceeded',
    kinds: ['EC2NodeClass'],
    failing: ['False'],
    rule: 'resource-validation-failed',
    source: `${AWS}@v1.2.8:pkg/apis/v1/ec2nodeclass_status.go`,
  },
  {
    type: 'CapacityReservationsReady',
    kinds: ['EC2NodeClass'],
    failing: ['False'],
    rule: 'nodeclass-not-ready',
    source: `${AWS}@v1.3.8:pkg/apis/v1/ec2nodeclass_status.go`,
  },
  {
    type: 'PlacementGroupReady',
    kinds: ['EC2NodeClass'],
    failing: ['False'],
    rule: 'nodeclass-not-ready',
    source: `${AWS}@v1.11.3:pkg/apis/v1/ec2nodeclass_status.go`,
  },
];

/** EC2NodeClass ValidationSucceeded=False reasons (pkg/controllers/nodeclass/validation.go, v1.3.8+) → the precise rule. */
export const VALIDATION_REASONS: Readonly<Record<string, string>> = {
  CreateFleetAuthCheckFailed: 'aws-permission-denied',
  CreateLaunchTemplateAuthCheckFailed: 'aws-permission-denied',
  RunInstancesAuthCheckFailed: 'aws-permission-denied',
  TagValidationFailed: 'resource-validation-failed',
  DependenciesNotReady: 'nodeclass-not-ready',
  UserDataSizeLimitExceeded: 'launch-template-or-ami-error',
  ClusterCIDRResolutionFailed: 'resource-validation-failed',
};
