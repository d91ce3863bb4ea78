/**
 * Messages of the node agents that decide whether a new Karpenter node joins and gets pod IPs: the
 * CNI plugins' IP-pool exhaustion and readiness messages, and kubelet's registration and lease errors.
 * Each entry holds the stable, lower-case part of the message that recognition matches (`fragment`),
 * the message as the source writes it, the rule, and where it was read.
 */
export interface NodeMessage {
  emitter:
    | 'vpc-cni'
    | 'calico'
    | 'cilium'
    | 'kubelet'
    | 'node-lifecycle'
    | 'kube-scheduler'
    | 'webhook-server'
    | 'nodeadm'
    | 'bottlerocket'
    | 'ebs-csi';
  /** The message as the emitter's source writes it (Go format verbs kept). */
  message: string;
  /** Lower-case text every rendering of the message contains. */
  fragment: string;
  /** A rule of the catalog (test/core/vocabulary-coverage.test.ts holds every id to it). */
  rule: string;
  source: string;
}

const VPC_CNI = 'aws/amazon-vpc-cni-k8s@v1.23.0';
const CALICO = 'projectcalico/calico@v3.32.1';
/** The kubernetes repository is over the mirror size limit: these kubelet strings were not re-read at a tag. */
const KUBELET = 'kubernetes/kubernetes pkg/kubelet (wording of v1.2x kubelet logs; not mirrorable, not re-read)';

/** kube-scheduler plugin reasons and kubelet eviction events: the kubernetes repository is over the mirror limit too. */
const SCHEDULER =
  'kubernetes/kubernetes pkg/scheduler/framework/plugins (plugin failure reasons; not mirrorable, not re-read)';
const EVICTION =
  'kubernetes/kubernetes pkg/kubelet/eviction/eviction_manager.go (EvictionThresholdMet; not mirrorable, not re-read)';
/** Read for issue 29 (the shared node-and-scheduler message reference, which names file and commit per line). */
const KUBELET_131 = 'kubernetes/kubernetes@v1.31.0-alpha.2 (vendored in kubernetes/autoscaler@2244a049)';
const VPC_CNI_HEAD = 'aws/amazon-vpc-cni-k8s@b5218838 (v1.23.1 release prep)';
const CILIUM = 'cilium/cilium pkg/ipam (single files read without a tag)';
const CALICO_HEAD = 'projectcalico/calico@87c15906 (v3.34 dev)';
const NODEADM = 'awslabs/amazon-eks-ami@v20260724:nodeadm';
const BOTTLEROCKET_CORE = 'bottlerocket-os/bottlerocket-core-kit@a10182f9 (v3.1.0-26)';
const EBS_CSI = 'kubernetes-sigs/aws-ebs-csi-driver@429e202e (v1.64.0+4)';
const GO_TLS = 'golang/go crypto/tls alert.go (alertUnknownCA text), as a webhook server logs a rejected handshake';

export const NODE_MESSAGES: readonly NodeMessage[] = [
  // kube-scheduler: wordings older than the ones the rule modules name
  {
    emitter: 'kube-scheduler',
    message: "0/3 nodes are available: 3 node(s) didn't match pod affinity/anti-affinity.",
    fragment: 'match pod affinity/anti-affinity',
    rule: 'scheduling-affinity-topology',
    source: `${SCHEDULER} interpodaffinity (Kubernetes ≤1.19 wording)`,
  },
  {
    emitter: 'kube-scheduler',
    message: '0/3 nodes are available: 3 node(s) had no available volume zone.',
    fragment: 'had no available volume zone',
    rule: 'volume-zone-conflict',
    source: `${SCHEDULER} volumezone`,
  },
  {
    emitter: 'kubelet',
    message: 'EvictionThresholdMet Attempting to reclaim ephemeral-storage',
    fragment: 'attempting to reclaim ephemeral-storage',
    rule: 'node-disk-pressure',
    source: EVICTION,
  },
  {
    emitter: 'kubelet',
    message: 'EvictionThresholdMet Attempting to reclaim nodefs',
    fragment: 'attempting to reclaim nodefs',
    rule: 'node-disk-pressure',
    source: EVICTION,
  },
  {
    emitter: 'kubelet',
    message: 'EvictionThresholdMet Attempting to reclaim imagefs',
    fragment: 'attempting to reclaim imagefs',
    rule: 'node-disk-pressure',
    source: EVICTION,
  },
  {
    emitter: 'webhook-server',
    message: 'http: TLS handshake error from 10.0.3.7:41712: remote error: tls: unknown certificate authority',
    fragment: 'tls: unknown certificate authority',
    rule: 'webhook-tls-error',
    source: GO_TLS,
  },
  // VPC CNI: the node's warm pool has no address for a pod, or EC2 refuses to assign more
  {
    emitter: 'vpc-cni',
    message: 'AssignPodIPAddress: no available IP/Prefix addresses',
    fragment: 'no available ip/prefix',
    rule: 'subnet-ip-exhaustion',
    source: `${VPC_CNI}:pkg/ipamd/datastore/data_store.go`,
  },
  {
    emitter: 'vpc-cni',
    message: 'assignPodIPv4AddressUnsafe: no available IP addresses',
    fragment: 'no available ip addresses',
    rule: 'subnet-ip-exhaustion',
    source: 'aws/amazon-vpc-cni-k8s@v1.7.10:pkg/ipamd/datastore/data_store.go',
  },
  {
    emitter: 'vpc-cni',
    message: 'add cmd: failed to assign an IP address to container',
    fragment: 'failed to assign an ip address to container',
    rule: 'subnet-ip-exhaustion',
    source: `${VPC_CNI}:cmd/routed-eni-cni-plugin/cni.go`,
  },
  {
    emitter: 'vpc-cni',
    message: 'Failed to allocate a private IP address  %v',
    fragment: 'failed to allocate a private ip',
    rule: 'subnet-ip-exhaustion',
    source: `${VPC_CNI}:pkg/awsutils/awsutils.go`,
  },
  {
    emitter: 'vpc-cni',
    message: 'Insufficient IP Addresses due to: %v',
    fragment: 'insufficient ip addresses due to',
    rule: 'subnet-ip-exhaustion',
    source: `${VPC_CNI}:pkg/ipamd/ipamd.go`,
  },
  {
    emitter: 'vpc-cni',
    message: 'Failed to allocate %d IP addresses on an ENI: %v',
    fragment: 'ip addresses on an eni',
    rule: 'subnet-ip-exhaustion',
    source: `${VPC_CNI}:pkg/ipamd/ipamd.go`,
  },
  {
    emitter: 'vpc-cni',
    message: 'Failed to allocate a private IP/Prefix addresses on ENI %v: %v',
    fragment: 'failed to allocate a private ip/prefix',
    rule: 'subnet-ip-exhaustion',
    source: `${VPC_CNI}:pkg/awsutils/awsutils.go`,
  },
  // VPC CNI: aws-node cannot start, so the node never turns Ready
  {
    emitter: 'vpc-cni',
    message: 'Timed out waiting for IPAM daemon to start',
    fragment: 'timed out waiting for ipam daemon',
    rule: 'node-not-ready',
    source: `${VPC_CNI}:cmd/aws-vpc-cni/main.go`,
  },
  {
    emitter: 'vpc-cni',
    message: 'Failed to check API server connectivity: %s',
    fragment: 'failed to check api server connectivity',
    rule: 'node-not-ready',
    source: `${VPC_CNI}:cmd/aws-k8s-agent/main.go`,
  },
  // Calico IPAM: the IP pool (not the VPC subnet) is exhausted
  {
    emitter: 'calico',
    message: 'All addresses exhausted in pool %s',
    fragment: 'addresses exhausted in pool',
    rule: 'subnet-ip-exhaustion',
    source: `${CALICO}:libcalico-go/lib/ipam/ipam.go`,
  },
  {
    emitter: 'calico',
    message: 'Assigned %d out of %d requested IPv%d addresses',
    fragment: 'assigned 0 out of',
    rule: 'subnet-ip-exhaustion',
    source: `${CALICO}:libcalico-go/lib/ipam/ipam.go`,
  },
  {
    emitter: 'calico',
    message: 'cannot allocate new block due to per host block limit',
    fragment: 'per host block limit',
    rule: 'subnet-ip-exhaustion',
    source: `${CALICO}:libcalico-go/lib/ipam/ipam.go`,
  },
  // kubelet: registration and node lease
  {
    emitter: 'kubelet',
    message: 'Unable to register node with API server',
    fragment: 'unable to register node',
    rule: 'node-bootstrap-failed',
    source: `${KUBELET} kubelet_node_status.go`,
  },
  {
    emitter: 'kubelet',
    message: 'Failed to ensure lease exists, will retry',
    fragment: 'failed to ensure lease exists',
    rule: 'node-not-ready',
    source: `${KUBELET} component-helpers/apimachinery/lease/controller.go`,
  },
  {
    emitter: 'kubelet',
    message: 'Error updating node status, will retry',
    fragment: 'error updating node status',
    rule: 'node-not-ready',
    source: `${KUBELET} kubelet_node_status.go`,
  },
  // Issue 29: node-level families, each template as the shared node-and-scheduler message reference records it
  {
    emitter: 'kubelet',
    message: 'PLEG is not healthy: pleg was last seen active 3m0.1s ago; threshold is 3m0s',
    fragment: 'pleg is not healthy',
    rule: 'node-not-ready',
    source: `${KUBELET_131}:pkg/kubelet/runtime.go, pkg/kubelet/pleg/generic.go`,
  },
  {
    emitter: 'kubelet',
    message: 'container runtime is down',
    fragment: 'container runtime is down',
    rule: 'node-not-ready',
    source: `${KUBELET_131}:pkg/kubelet/runtime.go`,
  },
  {
    emitter: 'kubelet',
    message: 'container runtime not ready: %v',
    fragment: 'container runtime not ready',
    rule: 'node-not-ready',
    source: `${KUBELET_131}:pkg/kubelet/kubelet.go`,
  },
  {
    emitter: 'kubelet',
    message: 'missing node capacity for resources: %s',
    fragment: 'missing node capacity for resources',
    rule: 'node-not-ready',
    source: `${KUBELET_131}:pkg/kubelet/nodestatus/setters.go`,
  },
  {
    emitter: 'kubelet',
    message: 'Node not becoming ready in time after startup',
    fragment: 'node not becoming ready in time after startup',
    rule: 'node-not-ready',
    source: `${KUBELET_131}:pkg/kubelet/kubelet_node_status.go`,
  },
  {
    emitter: 'kubelet',
    message: 'update node status exceeds retry count',
    fragment: 'update node status exceeds retry count',
    rule: 'node-not-ready',
    source: `${KUBELET_131}:pkg/kubelet/kubelet_node_status.go`,
  },
  {
    emitter: 'kubelet',
    message: 'failed %d attempts to update lease',
    fragment: 'attempts to update lease',
    rule: 'node-not-ready',
    source: `${KUBELET_131}:staging/src/k8s.io/component-helpers/apimachinery/lease/controller.go`,
  },
  {
    emitter: 'kubelet',
    message: 'Will retry updating lease',
    fragment: 'will retry updating lease',
    rule: 'node-not-ready',
    source: `${KUBELET_131}:staging/src/k8s.io/component-helpers/apimachinery/lease/controller.go`,
  },
  {
    emitter: 'kubelet',
    message: 'Error getting the current node from lister',
    fragment: 'error getting the current node from lister',
    rule: 'node-bootstrap-failed',
    source: `${KUBELET_131}:pkg/kubelet/kubelet_node_status.go (v1.27+ wording of "Error getting node")`,
  },
  {
    emitter: 'kubelet',
    message: 'Unable to construct v1.Node object for kubelet',
    fragment: 'unable to construct v1.node object for kubelet',
    rule: 'node-bootstrap-failed',
    source: `${KUBELET_131}:pkg/kubelet/kubelet_node_status.go`,
  },
  {
    emitter: 'kubelet',
    message: 'cloud provider %q was specified, but built-in cloud providers are disabled',
    fragment: 'built-in cloud providers are disabled',
    rule: 'node-bootstrap-failed',
    source: `${KUBELET_131}:cmd/kubelet/app/server.go`,
  },
  {
    emitter: 'kubelet',
    message: 'failed to parse kubelet flag: %w',
    fragment: 'failed to parse kubelet flag',
    rule: 'node-bootstrap-failed',
    source: `${KUBELET_131}:cmd/kubelet/app/server.go`,
  },
  {
    emitter: 'kubelet',
    message: 'System OOM encountered, victim process: %s, pid: %d',
    fragment: 'system oom encountered',
    rule: 'oom-killed',
    source: `${KUBELET_131}:pkg/kubelet/oom/oom_watcher_linux.go`,
  },
  {
    emitter: 'kubelet',
    message: 'Registration process failed with error: %v, restarting registration container.',
    fragment: 'registration process failed with error',
    rule: 'node-not-initialized',
    source: `kubernetes-csi/node-driver-registrar cmd/csi-node-driver-registrar/node_register.go (wording of v1.x-v2.x; not re-read at a tag)`,
  },
  {
    emitter: 'kubelet',
    message: 'Failed to initialize CSINode after retrying: %v',
    fragment: 'failed to initialize csinode',
    rule: 'node-not-initialized',
    source: `${KUBELET_131}:pkg/volume/csi/csi_plugin.go`,
  },
  {
    emitter: 'kubelet',
    message: 'timed out waiting for external-attacher of %v CSI driver to %v volume %v',
    fragment: 'timed out waiting for external-attacher',
    rule: 'volume-mount-timeout',
    source: `${KUBELET_131}:pkg/volume/csi/csi_attacher.go`,
  },
  {
    emitter: 'node-lifecycle',
    message: 'Kubelet never posted node status.',
    fragment: 'kubelet never posted node status',
    rule: 'node-not-ready',
    source: `kubernetes/kubernetes@025f2834:pkg/controller/nodelifecycle/node_lifecycle_controller.go`,
  },
  {
    emitter: 'node-lifecycle',
    message: 'Node is unresponsive. Adding it to the Taint queue',
    fragment: 'node is unresponsive',
    rule: 'node-not-ready',
    source: `kubernetes/kubernetes@025f2834:pkg/controller/nodelifecycle/node_lifecycle_controller.go`,
  },
  {
    emitter: 'vpc-cni',
    message:
      "Unable to attach IPs/Prefixes for the ENI, subnet doesn't seem to have enough IPs/Prefixes. Consider using new subnet or carve a reserved range using create-subnet-cidr-reservation",
    fragment: "subnet doesn't seem to have enough ips",
    rule: 'subnet-ip-exhaustion',
    source: `${VPC_CNI_HEAD}:pkg/ipamd/ipamd.go`,
  },
  {
    emitter: 'vpc-cni',
    message: 'Recently we had InsufficientCidr error hence will wait for %v before retrying',
    fragment: 'insufficientcidr',
    rule: 'prefix-delegation-fragmentation',
    source: `${VPC_CNI_HEAD}:pkg/ipamd/ipamd.go`,
  },
  {
    emitter: 'vpc-cni',
    message: 'no free IP available in the prefix - %s/%s',
    fragment: 'no free ip available in the prefix',
    rule: 'subnet-ip-exhaustion',
    source: `${VPC_CNI_HEAD}:pkg/ipamd/datastore/data_store.go`,
  },
  {
    emitter: 'vpc-cni',
    message: 'Skipping ENI allocation as the max ENI limit is already reached',
    fragment: 'max eni limit is already reached',
    rule: 'subnet-ip-exhaustion',
    source: `${VPC_CNI_HEAD}:pkg/ipamd/ipamd.go`,
  },
  {
    emitter: 'vpc-cni',
    message: 'add cmd: Error received from AddNetwork gRPC call: %v',
    fragment: 'error received from addnetwork grpc call',
    rule: 'node-not-ready',
    source: `${VPC_CNI_HEAD}:cmd/routed-eni-cni-plugin/cni.go`,
  },
  {
    emitter: 'vpc-cni',
    message: 'add cmd: failed to connect to backend server',
    fragment: 'add cmd: failed to connect to backend server',
    rule: 'node-not-ready',
    source: `${VPC_CNI_HEAD}:cmd/routed-eni-cni-plugin/cni.go`,
  },
  {
    emitter: 'cilium',
    message: 'unable to allocate IP via local cilium agent: %w',
    fragment: 'unable to allocate ip via local cilium agent',
    rule: 'subnet-ip-exhaustion',
    source: `${CILIUM}: plugins/cilium-cni/cmd/cmd.go`,
  },
  {
    emitter: 'cilium',
    message: 'range is full',
    fragment: 'range is full',
    rule: 'subnet-ip-exhaustion',
    source: `${CILIUM}: pkg/ipam/allocator (cluster-pool)`,
  },
  {
    emitter: 'cilium',
    message: 'No more IPs available',
    fragment: 'no more ips available',
    rule: 'subnet-ip-exhaustion',
    source: `${CILIUM}: pkg/ipam/crd.go (older agents)`,
  },
  {
    emitter: 'cilium',
    message: 'all CIDR ranges are exhausted',
    fragment: 'all cidr ranges are exhausted',
    rule: 'subnet-ip-exhaustion',
    source: `${CILIUM}: pkg/ipam/multipool.go`,
  },
  {
    emitter: 'cilium',
    message: 'unable to connect to Cilium agent: %w',
    fragment: 'unable to connect to cilium agent',
    rule: 'node-not-ready',
    source: `${CILIUM}: plugins/cilium-cni/cmd/cmd.go`,
  },
  {
    emitter: 'calico',
    message: 'failed to request IPv4 addresses: %w',
    fragment: 'failed to request ipv4 addresses',
    rule: 'subnet-ip-exhaustion',
    source: `${CALICO_HEAD}:cni-plugin/pkg/ipamplugin/ipam_plugin.go`,
  },
  {
    emitter: 'calico',
    message: 'No more free affine blocks and strict affinity enabled',
    fragment: 'no more free affine blocks',
    rule: 'subnet-ip-exhaustion',
    source: `${CALICO_HEAD}:libcalico-go/lib/ipam/ipam.go`,
  },
  {
    emitter: 'calico',
    message: 'No IPs available in pools: %v',
    fragment: 'no ips available in pools',
    rule: 'subnet-ip-exhaustion',
    source: `${CALICO_HEAD}:cni-plugin/pkg/ipamplugin/ipam_plugin.go`,
  },
  {
    emitter: 'nodeadm',
    message: 'no config in chain',
    fragment: 'no config in chain',
    rule: 'node-bootstrap-failed',
    source: `${NODEADM}/internal/configprovider/chain.go`,
  },
  {
    emitter: 'nodeadm',
    message: 'reservation or instance not found',
    fragment: 'reservation or instance not found',
    rule: 'node-bootstrap-failed',
    source: `${NODEADM}/internal/aws/imds`,
  },
  {
    emitter: 'bottlerocket',
    message: "Failed to start provider '%s': %v",
    fragment: "failed to start provider '",
    rule: 'node-bootstrap-failed',
    source: `${BOTTLEROCKET_CORE}:sources/early-boot-config/early-boot-config/src/main.rs`,
  },
  {
    emitter: 'bottlerocket',
    message: 'Timed-out waiting for EKS Describe Cluster API response: %v',
    fragment: 'timed-out waiting for eks describe cluster api response',
    rule: 'node-bootstrap-failed',
    source: `${BOTTLEROCKET_CORE}:sources/api/pluto`,
  },
  {
    emitter: 'bottlerocket',
    message: 'Timed out retrieving private DNS name from EC2: %v',
    fragment: 'timed out retrieving private dns name from ec2',
    rule: 'node-bootstrap-failed',
    source: `${BOTTLEROCKET_CORE}:sources/api/pluto`,
  },
  {
    emitter: 'bottlerocket',
    message: 'Failed to set generated settings: %v',
    fragment: 'failed to set generated settings',
    rule: 'node-bootstrap-failed',
    source: `${BOTTLEROCKET_CORE}:sources/api/sundog`,
  },
  {
    emitter: 'ebs-csi',
    message: 'rpc error: code = ResourceExhausted desc = Attachment limit exceeded for volume %q on node %q: %v',
    fragment: 'attachment limit exceeded for volume',
    rule: 'volume-attach-limit',
    source: `${EBS_CSI}:pkg/driver/controller.go`,
  },
  {
    emitter: 'ebs-csi',
    message: 'error waiting for volume attachment: %w',
    fragment: 'error waiting for volume attachment',
    rule: 'volume-mount-timeout',
    source: `${EBS_CSI}:pkg/cloud/cloud.go`,
  },
  {
    emitter: 'ebs-csi',
    message: 'volume %q has multiple attachments',
    fragment: 'has multiple attachments',
    rule: 'volume-mount-timeout',
    source: `${EBS_CSI}:pkg/cloud/cloud.go`,
  },
];
