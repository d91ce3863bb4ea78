import type { EntityKind, Severity } from './model';

/**
 * The rule catalog (DESIGN §4). Ids are a public contract: they appear in findings, SNS message
 * attributes, EventBridge rules and users' subscription filter policies. Never rename one.
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
] as const;
export type RuleId = (typeof RULE_IDS)[number];

export interface RuleInfo {
  id: RuleId;
  title: string;
  severity: Severity;
  /** Section of the seed article (1-13), or where the rule comes from when the seed does not cover it. */
  source: number | 'beyond' | 'proactive';
  /** What emits the rule: the log classifier, or the scheduled headroom check. */
  emittedBy: 'logs' | 'headroom';
  /** One line: what the rule recognises. */
  recognises: string;
  /**
   * The entity that separates one incident from another inside a cluster. Signals without it share
   * the cluster-wide incident of their rule.
   */
  keyEntity?: EntityKind;
}

const rule = (info: RuleInfo): RuleInfo => info;

export const CATALOG: Readonly<Record<RuleId, RuleInfo>> = {
  'karpenter-controller-unschedulable': rule({
    id: 'karpenter-controller-unschedulable',
    title: 'Karpenter controller pods cannot be scheduled',
    severity: 'critical',
    source: 1,
    emittedBy: 'logs',
    recognises: 'FailedScheduling on a pod of the Karpenter deployment: Karpenter cannot launch capacity for itself',
  }),
  'volume-attach-limit': rule({
    id: 'volume-attach-limit',
    title: 'Node reached its EBS volume attachment limit',
    severity: 'medium',
    source: 2,
    emittedBy: 'logs',
    recognises:
      'FailedAttachVolume, "expected device to be attached but was attaching", AttachmentLimitExceeded, max volume count',
    keyEntity: 'nodes',
  }),
  'volume-mount-timeout': rule({
    id: 'volume-mount-timeout',
    title: 'Volumes cannot be attached or mounted in time',
    severity: 'medium',
    source: 2,
    emittedBy: 'logs',
    recognises:
      'FailedMount "Unable to attach or mount volumes … timed out waiting for the condition", MountVolume failures',
    keyEntity: 'workloads',
  }),
  'in-tree-storage-plugin': rule({
    id: 'in-tree-storage-plugin',
    title: 'PersistentVolume uses an in-tree storage plugin Karpenter does not support',
    severity: 'medium',
    source: 3,
    emittedBy: 'logs',
    recognises: '"uses an in-tree storage plugin which is unsupported by Karpenter"',
  }),
  'oom-killed': rule({
    id: 'oom-killed',
    title: 'Containers are killed for running out of memory',
    severity: 'medium',
    source: 4,
    emittedBy: 'logs',
    recognises: 'OOMKilled, OOMKilling, "killed due to OOM", kernel OOM killer lines',
    keyEntity: 'workloads',
  }),
  'missing-resource-requests': rule({
    id: 'missing-resource-requests',
    title: 'Pods run without resource requests',
    severity: 'low',
    source: 4,
    emittedBy: 'logs',
    recognises: '"exceeds its request of 0": pods packed onto nodes without requests',
    keyEntity: 'workloads',
  }),
  'windows-image-platform-mismatch': rule({
    id: 'windows-image-platform-mismatch',
    title: 'Windows container image does not match the node OS version',
    severity: 'medium',
    source: 5,
    emittedBy: 'logs',
    recognises: '"no match for platform in manifest" when pulling a Windows image',
    keyEntity: 'workloads',
  }),
  'node-not-initialized': rule({
    id: 'node-not-initialized',
    title: 'Karpenter nodes do not finish initialisation',
    severity: 'high',
    source: 6,
    emittedBy: 'logs',
    recognises: 'inflight check failed, expected resource did not register, startup taints left, registration timeout',
    keyEntity: 'nodepools',
  }),
  'node-not-ready': rule({
    id: 'node-not-ready',
    title: 'Nodes provisioned by Karpenter are NotReady',
    severity: 'high',
    source: 6,
    emittedBy: 'logs',
    recognises: 'NotReady nodes, NodeNotReady, kubelet or CNI not ready, node repair blocked',
    keyEntity: 'nodepools',
  }),
  'scheduling-affinity-topology': rule({
    id: 'scheduling-affinity-topology',
    title: 'Pod affinity, anti-affinity or topology spread cannot be satisfied',
    severity: 'medium',
    source: 7,
    emittedBy: 'logs',
    recognises: "didn't match pod affinity / anti-affinity rules, topology spread constraints",
    keyEntity: 'workloads',
  }),
  'scheduling-insufficient-resources': rule({
    id: 'scheduling-insufficient-resources',
    title: 'Pods request more resources than any node offers',
    severity: 'medium',
    source: 8,
    emittedBy: 'logs',
    recognises: 'Insufficient cpu/memory, Too many pods, No preemption victims, no instance type satisfied resources',
    keyEntity: 'workloads',
  }),
  'scheduling-untolerated-taint': rule({
    id: 'scheduling-untolerated-taint',
    title: 'Pods do not tolerate the taints of the available nodes',
    severity: 'medium',
    source: 9,
    emittedBy: 'logs',
    recognises: "had (untolerated) taint {…} that the pod didn't tolerate, did not tolerate",
    keyEntity: 'workloads',
  }),
  'scheduling-node-selector-mismatch': rule({
    id: 'scheduling-node-selector-mismatch',
    title: "Pods' node selector or node affinity matches no node",
    severity: 'medium',
    source: 10,
    emittedBy: 'logs',
    recognises: "didn't match Pod's node affinity/selector",
    keyEntity: 'workloads',
  }),
  'subnet-ip-exhaustion': rule({
    id: 'subnet-ip-exhaustion',
    title: 'Subnets are out of free IP addresses',
    severity: 'critical',
    source: 11,
    emittedBy: 'logs',
    recognises:
      'InsufficientFreeAddressesInSubnet, "not enough free addresses in subnet", failed to assign an IP address to container',
  }),
  'incompatible-requirements': rule({
    id: 'incompatible-requirements',
    title: 'Pod requirements are incompatible with every NodePool',
    severity: 'medium',
    source: 12,
    emittedBy: 'logs',
    recognises: '"incompatible requirements", "does not have known values", "… not in … In […]"',
    keyEntity: 'workloads',
  }),
  'consolidation-blocked': rule({
    id: 'consolidation-blocked',
    title: 'Consolidation or disruption is blocked',
    severity: 'low',
    source: 13,
    emittedBy: 'logs',
    recognises: 'Unconsolidatable, DisruptionBlocked, PDB prevents pod evictions, do-not-disrupt',
  }),
  'insufficient-instance-capacity': rule({
    id: 'insufficient-instance-capacity',
    title: 'EC2 has no capacity for the requested instance types',
    severity: 'high',
    source: 'beyond',
    emittedBy: 'logs',
    recognises: 'InsufficientInstanceCapacity, UnfulfillableCapacity, "insufficient capacity"',
    keyEntity: 'nodepools',
  }),
  'ec2-quota-exceeded': rule({
    id: 'ec2-quota-exceeded',
    title: 'An EC2 service quota blocks new instances',
    severity: 'high',
    source: 'beyond',
    emittedBy: 'logs',
    recognises: 'VcpuLimitExceeded, MaxSpotInstanceCountExceeded, InstanceLimitExceeded',
  }),
  'nodepool-limits-exceeded': rule({
    id: 'nodepool-limits-exceeded',
    title: 'NodePool limits stop Karpenter from adding capacity',
    severity: 'high',
    source: 'beyond',
    emittedBy: 'logs',
    recognises: '"all available instance types exceed limits for nodepool/provisioner"',
    keyEntity: 'nodepools',
  }),
  'aws-permission-denied': rule({
    id: 'aws-permission-denied',
    title: 'Karpenter lacks an AWS permission',
    severity: 'high',
    source: 'beyond',
    emittedBy: 'logs',
    recognises: 'UnauthorizedOperation, AccessDenied, "is not authorized to perform"',
  }),
  'aws-api-unreachable': rule({
    id: 'aws-api-unreachable',
    title: 'Karpenter cannot reach AWS APIs or the cluster endpoint',
    severity: 'high',
    source: 'beyond',
    emittedBy: 'logs',
    recognises: 'send request failed / i/o timeout to AWS endpoints, WebIdentityErr, cluster endpoint not resolved',
  }),
  'launch-template-or-ami-error': rule({
    id: 'launch-template-or-ami-error',
    title: 'Launch template or AMI is invalid',
    severity: 'high',
    source: 'beyond',
    emittedBy: 'logs',
    recognises: 'InvalidLaunchTemplate*, InvalidBlockDeviceMapping, AMI resolution, fleet InvalidParameterValue',
    keyEntity: 'nodepools',
  }),
  'nodeclass-not-ready': rule({
    id: 'nodeclass-not-ready',
    title: 'NodePool or EC2NodeClass is missing or not ready',
    severity: 'critical',
    source: 'beyond',
    emittedBy: 'logs',
    recognises: '"no nodepools found", "ignoring nodepool, not ready", EC2NodeClass not found / not ready',
    keyEntity: 'nodeclasses',
  }),
  'subnet-or-security-group-not-found': rule({
    id: 'subnet-or-security-group-not-found',
    title: 'EC2NodeClass selects no subnets or security groups',
    severity: 'critical',
    source: 'beyond',
    emittedBy: 'logs',
    recognises: '"no subnets found", "no subnets matched selector", "no security groups exist given constraints"',
    keyEntity: 'nodeclasses',
  }),
  'interruption-queue-error': rule({
    id: 'interruption-queue-error',
    title: 'Karpenter cannot use its interruption queue',
    severity: 'medium',
    source: 'beyond',
    emittedBy: 'logs',
    recognises: 'SQS interruption queue missing or its messages unparsable',
  }),
  'webhook-tls-error': rule({
    id: 'webhook-tls-error',
    title: 'Webhook calls fail on TLS',
    severity: 'high',
    source: 'beyond',
    emittedBy: 'logs',
    recognises: 'failed calling webhook, x509 certificate errors, TLS handshake errors',
  }),
  'leader-election-lost': rule({
    id: 'leader-election-lost',
    title: 'Karpenter loses leader election',
    severity: 'high',
    source: 'beyond',
    emittedBy: 'logs',
    recognises: 'failed to renew lease, error retrieving resource lock, leader election lost',
  }),
  'volume-zone-conflict': rule({
    id: 'volume-zone-conflict',
    title: 'Pods are pinned to a zone by their volume',
    severity: 'medium',
    source: 'beyond',
    emittedBy: 'logs',
    recognises: 'volume node affinity conflict, zone DoesNotExist caused by a zonal PersistentVolume',
    keyEntity: 'workloads',
  }),
  'node-disk-pressure': rule({
    id: 'node-disk-pressure',
    title: 'Nodes are under disk pressure',
    severity: 'medium',
    source: 'beyond',
    emittedBy: 'logs',
    recognises: 'image garbage collection failing, DiskPressure, evictions for ephemeral storage',
    keyEntity: 'nodes',
  }),
  'windows-ipam-not-enabled': rule({
    id: 'windows-ipam-not-enabled',
    title: 'Windows IPAM is not enabled in the VPC CNI',
    severity: 'high',
    source: 'beyond',
    emittedBy: 'logs',
    recognises: 'vpc-bridge sandbox failures on Windows nodes',
  }),
  'prefix-delegation-fragmentation': rule({
    id: 'prefix-delegation-fragmentation',
    title: 'Subnets have free IPs but no free /28 prefix',
    severity: 'high',
    source: 'beyond',
    emittedBy: 'logs',
    recognises: 'InsufficientCidrBlocks: free addresses exist but no contiguous /28 for prefix delegation',
  }),
  'subnet-ip-headroom-low': rule({
    id: 'subnet-ip-headroom-low',
    title: 'Karpenter subnets are running low on free IPs',
    severity: 'high',
    source: 'proactive',
    emittedBy: 'headroom',
    recognises: 'free IPs in the discovered subnets under threshold, or forecast to run out within the horizon',
  }),
};

export const isRuleId = (value: string): value is RuleId => (RULE_IDS as readonly string[]).includes(value);
