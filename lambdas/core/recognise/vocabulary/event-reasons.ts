/**
 * Kubernetes event reasons around a Karpenter node's life, each mapped to the rule it means alone or marked
 * benign; reviewed by hand from the emitters' own definitions (docs/architecture.md, Vocabulary sources).
 */
export interface EventReason {
  reason: string;
  emitter: 'kubelet' | 'pv-controller' | 'attach-detach' | 'kube-scheduler' | 'karpenter' | 'eks';
  /** The rule the reason alone means, or null; a test holds every id to the catalog. */
  rule: string | null;
  /** Why a null reason does not fire on its own. */
  benign?: string;
  /** repo@tag:path of the definition. */
  source: string;
}

const KUBELET = 'kubernetes/kubernetes@v1.22.11:pkg/kubelet/events/event.go';
const PV = 'kubernetes/kubernetes@v1.22.11:pkg/controller/volume/events/event.go';
const KARPENTER = 'kubernetes-sigs/karpenter (see test/fixtures/vocabulary/karpenter-messages.jsonl)';
const KARPENTER_AWS = 'aws/karpenter-provider-aws (see test/fixtures/vocabulary/karpenter-messages.jsonl)';
const SCHEDULER = 'kubernetes/kubernetes pkg/scheduler/schedule_one.go (FailedScheduling; not mirrorable)';

const HEALTHY = 'a healthy, intended step';
const IN_MESSAGE = 'its cause is in the message, which is classified on its own words';

export const EVENT_REASONS: readonly EventReason[] = [
  // kubelet: containers, images, probes
  { reason: 'Created', emitter: 'kubelet', rule: null, benign: HEALTHY, source: KUBELET },
  { reason: 'Started', emitter: 'kubelet', rule: null, benign: HEALTHY, source: KUBELET },
  { reason: 'Killing', emitter: 'kubelet', rule: null, benign: HEALTHY, source: KUBELET },
  { reason: 'Preempting', emitter: 'kubelet', rule: null, benign: HEALTHY, source: KUBELET },
  { reason: 'Pulling', emitter: 'kubelet', rule: null, benign: HEALTHY, source: KUBELET },
  { reason: 'Pulled', emitter: 'kubelet', rule: null, benign: HEALTHY, source: KUBELET },
  { reason: 'Failed', emitter: 'kubelet', rule: null, benign: IN_MESSAGE, source: KUBELET },
  {
    reason: 'BackOff',
    emitter: 'kubelet',
    rule: null,
    benign: 'workload crash or image back-off: the pod owner’s, not scaling',
    source: KUBELET,
  },
  { reason: 'ExceededGracePeriod', emitter: 'kubelet', rule: null, benign: IN_MESSAGE, source: KUBELET },
  { reason: 'FailedKillPod', emitter: 'kubelet', rule: null, benign: IN_MESSAGE, source: KUBELET },
  { reason: 'FailedCreatePodContainer', emitter: 'kubelet', rule: null, benign: IN_MESSAGE, source: KUBELET },
  { reason: 'InspectFailed', emitter: 'kubelet', rule: null, benign: IN_MESSAGE, source: KUBELET },
  {
    reason: 'ErrImageNeverPull',
    emitter: 'kubelet',
    rule: null,
    benign: 'image pull policy of the workload',
    source: KUBELET,
  },
  { reason: 'Unhealthy', emitter: 'kubelet', rule: null, benign: 'a workload probe failing', source: KUBELET },
  { reason: 'ProbeWarning', emitter: 'kubelet', rule: null, benign: 'a workload probe warning', source: KUBELET },
  {
    reason: 'FailedPostStartHook',
    emitter: 'kubelet',
    rule: null,
    benign: 'a workload lifecycle hook',
    source: KUBELET,
  },
  { reason: 'FailedPreStopHook', emitter: 'kubelet', rule: null, benign: 'a workload lifecycle hook', source: KUBELET },
  // kubelet: node
  { reason: 'NodeReady', emitter: 'kubelet', rule: null, benign: HEALTHY, source: KUBELET },
  { reason: 'NodeNotReady', emitter: 'kubelet', rule: 'node-not-ready', source: KUBELET },
  { reason: 'NodeSchedulable', emitter: 'kubelet', rule: null, benign: HEALTHY, source: KUBELET },
  {
    reason: 'NodeNotSchedulable',
    emitter: 'kubelet',
    rule: null,
    benign: 'a cordon, which Karpenter does itself when it disrupts',
    source: KUBELET,
  },
  { reason: 'Starting', emitter: 'kubelet', rule: null, benign: HEALTHY, source: KUBELET },
  { reason: 'KubeletSetupFailed', emitter: 'kubelet', rule: 'node-bootstrap-failed', source: KUBELET },
  { reason: 'Rebooted', emitter: 'kubelet', rule: null, benign: 'a reboot the node recovers from', source: KUBELET },
  { reason: 'ContainerGCFailed', emitter: 'kubelet', rule: null, benign: IN_MESSAGE, source: KUBELET },
  { reason: 'ImageGCFailed', emitter: 'kubelet', rule: 'node-disk-pressure', source: KUBELET },
  { reason: 'FreeDiskSpaceFailed', emitter: 'kubelet', rule: 'node-disk-pressure', source: KUBELET },
  {
    reason: 'InvalidDiskCapacity',
    emitter: 'kubelet',
    rule: null,
    benign: 'logged once at kubelet start before the image filesystem is measured',
    source: KUBELET,
  },
  { reason: 'FailedNodeAllocatableEnforcement', emitter: 'kubelet', rule: null, benign: IN_MESSAGE, source: KUBELET },
  { reason: 'NodeAllocatableEnforced', emitter: 'kubelet', rule: null, benign: HEALTHY, source: KUBELET },
  { reason: 'NetworkNotReady', emitter: 'kubelet', rule: 'node-not-ready', source: KUBELET },
  { reason: 'SandboxChanged', emitter: 'kubelet', rule: null, benign: 'a pod sandbox recreated', source: KUBELET },
  { reason: 'FailedCreatePodSandBox', emitter: 'kubelet', rule: null, benign: IN_MESSAGE, source: KUBELET },
  { reason: 'FailedPodSandBoxStatus', emitter: 'kubelet', rule: null, benign: IN_MESSAGE, source: KUBELET },
  { reason: 'FailedSync', emitter: 'kubelet', rule: null, benign: IN_MESSAGE, source: KUBELET },
  { reason: 'FailedValidation', emitter: 'kubelet', rule: null, benign: IN_MESSAGE, source: KUBELET },
  // kubelet and attach/detach controller: volumes
  { reason: 'FailedAttachVolume', emitter: 'attach-detach', rule: 'volume-mount-timeout', source: KUBELET },
  { reason: 'FailedMount', emitter: 'kubelet', rule: 'volume-mount-timeout', source: KUBELET },
  { reason: 'FailedMapVolume', emitter: 'kubelet', rule: 'volume-mount-timeout', source: KUBELET },
  { reason: 'FailedMountOnFilesystemMismatch', emitter: 'kubelet', rule: 'volume-mount-timeout', source: KUBELET },
  { reason: 'AlreadyMountedVolume', emitter: 'kubelet', rule: null, benign: HEALTHY, source: KUBELET },
  { reason: 'SuccessfulAttachVolume', emitter: 'attach-detach', rule: null, benign: HEALTHY, source: KUBELET },
  { reason: 'SuccessfulMountVolume', emitter: 'kubelet', rule: null, benign: HEALTHY, source: KUBELET },
  {
    reason: 'VolumeResizeFailed',
    emitter: 'kubelet',
    rule: null,
    benign: 'a volume resize, not scaling',
    source: KUBELET,
  },
  { reason: 'VolumeResizeSuccessful', emitter: 'kubelet', rule: null, benign: HEALTHY, source: KUBELET },
  {
    reason: 'FileSystemResizeFailed',
    emitter: 'kubelet',
    rule: null,
    benign: 'a volume resize, not scaling',
    source: KUBELET,
  },
  { reason: 'FileSystemResizeSuccessful', emitter: 'kubelet', rule: null, benign: HEALTHY, source: KUBELET },
  // PV controller
  { reason: 'FailedBinding', emitter: 'pv-controller', rule: null, benign: IN_MESSAGE, source: PV },
  { reason: 'VolumeMismatch', emitter: 'pv-controller', rule: null, benign: IN_MESSAGE, source: PV },
  { reason: 'ProvisioningFailed', emitter: 'pv-controller', rule: null, benign: IN_MESSAGE, source: PV },
  { reason: 'ProvisioningSucceeded', emitter: 'pv-controller', rule: null, benign: HEALTHY, source: PV },
  { reason: 'ExternalProvisioning', emitter: 'pv-controller', rule: null, benign: HEALTHY, source: PV },
  { reason: 'WaitForFirstConsumer', emitter: 'pv-controller', rule: null, benign: HEALTHY, source: PV },
  { reason: 'WaitForPodScheduled', emitter: 'pv-controller', rule: null, benign: HEALTHY, source: PV },
  // kube-scheduler
  {
    reason: 'FailedScheduling',
    emitter: 'kube-scheduler',
    rule: null,
    benign: 'scheduling context: the predicates in the message pick the rule',
    source: SCHEDULER,
  },
  { reason: 'Scheduled', emitter: 'kube-scheduler', rule: null, benign: HEALTHY, source: SCHEDULER },
  // Karpenter
  { reason: 'Unconsolidatable', emitter: 'karpenter', rule: 'consolidation-blocked', source: KARPENTER },
  { reason: 'DisruptionBlocked', emitter: 'karpenter', rule: 'consolidation-blocked', source: KARPENTER },
  { reason: 'DeprovisioningBlocked', emitter: 'karpenter', rule: 'consolidation-blocked', source: KARPENTER },
  { reason: 'BlockedDeprovisioning', emitter: 'karpenter', rule: 'consolidation-blocked', source: KARPENTER },
  { reason: 'FailedInflightCheck', emitter: 'karpenter', rule: 'node-not-initialized', source: KARPENTER },
  { reason: 'UnregisteredTaintMissing', emitter: 'karpenter', rule: 'node-not-initialized', source: KARPENTER },
  { reason: 'NodeRepairBlocked', emitter: 'karpenter', rule: 'node-not-ready', source: KARPENTER },
  {
    reason: 'InsufficientCapacityError',
    emitter: 'karpenter',
    rule: 'insufficient-instance-capacity',
    source: KARPENTER,
  },
  {
    reason: 'MissingIAMPermissions',
    emitter: 'eks',
    rule: 'aws-permission-denied',
    source: 'EKS managed node provisioning, as seen in https://github.com/eksctl-io/eksctl/issues/8768',
  },
  { reason: 'NodeClassNotReady', emitter: 'karpenter', rule: 'nodeclass-not-ready', source: KARPENTER },
  { reason: 'ProviderNotReady', emitter: 'karpenter', rule: 'nodeclass-not-ready', source: KARPENTER },
  { reason: 'NoCompatibleInstanceTypes', emitter: 'karpenter', rule: 'incompatible-requirements', source: KARPENTER },
  // "Failed to drain node, %s": the drain of a node being deleted does not finish (PDB, do-not-disrupt)
  { reason: 'FailedDraining', emitter: 'karpenter', rule: 'consolidation-blocked', source: KARPENTER },
  {
    reason: 'FailedConsistencyCheck',
    emitter: 'karpenter',
    rule: null,
    benign: 'Karpenter’s own node-shape consistency check',
    source: KARPENTER,
  },
  { reason: 'Nominated', emitter: 'karpenter', rule: null, benign: HEALTHY, source: KARPENTER },
  { reason: 'Launching', emitter: 'karpenter', rule: null, benign: HEALTHY, source: KARPENTER },
  { reason: 'DisruptionLaunching', emitter: 'karpenter', rule: null, benign: HEALTHY, source: KARPENTER },
  { reason: 'DisruptionTerminating', emitter: 'karpenter', rule: null, benign: HEALTHY, source: KARPENTER },
  { reason: 'DisruptionWaitingReadiness', emitter: 'karpenter', rule: null, benign: HEALTHY, source: KARPENTER },
  { reason: 'Evicted', emitter: 'karpenter', rule: null, benign: HEALTHY, source: KARPENTER },
  { reason: 'Disrupted', emitter: 'karpenter', rule: null, benign: HEALTHY, source: KARPENTER },
  {
    reason: 'SpotInterrupted',
    emitter: 'karpenter',
    rule: null,
    benign: 'an interruption Karpenter handles by replacing the node',
    source: KARPENTER_AWS,
  },
  {
    reason: 'SpotRebalanceRecommendation',
    emitter: 'karpenter',
    rule: null,
    benign: 'an interruption notice Karpenter handles',
    source: KARPENTER_AWS,
  },
  {
    reason: 'InstanceStopping',
    emitter: 'karpenter',
    rule: null,
    benign: 'an interruption notice Karpenter handles',
    source: KARPENTER_AWS,
  },
  {
    reason: 'InstanceTerminating',
    emitter: 'karpenter',
    rule: null,
    benign: 'an interruption notice Karpenter handles',
    source: KARPENTER_AWS,
  },
  {
    reason: 'TerminatingOnInterruption',
    emitter: 'karpenter',
    rule: null,
    benign: 'an interruption notice Karpenter handles',
    source: KARPENTER_AWS,
  },
];
