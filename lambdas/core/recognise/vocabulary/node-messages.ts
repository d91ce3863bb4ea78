/**
 * Messages of the node agents that decide whether a new Karpenter node joins and gets pod IPs: the
 * CNI plugins' IP-pool exhaustion and readiness messages, and kubelet's registration and lease errors.
 * Each entry holds the stable, lower-case part of the message that recognition matches (`fragment`),
 * the message as the source writes it, the rule, and where it was read.
 */
export interface NodeMessage {
  emitter: 'vpc-cni' | 'calico' | 'kubelet' | 'kube-scheduler' | 'webhook-server';
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
];
