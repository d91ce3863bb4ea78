import { DOCS } from '../../advice/docs-links';
import { anyOf, defineRule, seedSection } from './types';

export default defineRule({
  info: {
    id: 'node-not-ready',
    title: 'Nodes provisioned by Karpenter are NotReady',
    shortTitle: 'Karpenter nodes NotReady',
    severity: 'high',
    source: 6,
    family: 'node',
    emittedBy: 'logs',
    recognises: 'NotReady nodes, NodeNotReady, kubelet or CNI not ready, node repair blocked',
    keyEntity: 'nodepools',
  },
  filterTerms: ['NotReady', 'NodeNotReady', 'PLEG'],
  recognition: {
    clauses: [
      ...anyOf(
        ' notready',
        'nodenotready',
        'not ready state',
        'noderepairblocked',
        'nodes are unhealthy',
        'kubelet stopped posting node status',
        'container runtime network not ready',
        'cni plugin not initialized',
        'failed to run kubelet',
        'node is not ready',
        // kubelet health (pkg/kubelet/runtime.go, pleg/generic.go, kubelet.go): runtime, PLEG, network
        'pleg is not healthy',
        'node became not ready',
        'pleg was last seen active',
        'container runtime is down',
        'container runtime not ready',
        'container runtime sanity check failed',
        'network is not ready',
        'missing node capacity for resources',
        'node not becoming ready in time after startup',
        'unable to update node status',
        'update node status exceeds retry count',
        // the node lease controller (component-helpers/apimachinery/lease/controller.go), on a running kubelet
        'will retry updating lease',
        'attempts to update lease',
        'failed to prepare lease',
        // node lifecycle controller: the kubelet stopped (or never started) posting status
        'kubelet never posted node status',
        'nodestatusneverupdated',
        'node is unresponsive',
        "node hasn't been updated",
        'unresponsive node',
        'all nodes are not-ready',
        // CNI not ready: the pod sandbox fails before any IP is asked for (VPC CNI, Cilium, Calico, libcni)
        'error received from addnetwork grpc call',
        'add cmd: failed to connect to backend server',
        'add cmd: error loading config from args',
        'failed to setup network policy',
        'unable to connect to cilium agent',
        'unable to connect to cilium daemon',
        'check that the calico/node container is running',
        'no networks found in /etc/cni/net.d',
        'cni config uninitialized',
        // the pause (sandbox) image cannot be pulled: no pod starts on the node
        'failed to get sandbox image',
        // a node agent that cannot start threads (pids limit): aws-node, kubelet and containerd crash
        'failed to create new os thread',
        'pthread_create failed: resource temporarily unavailable',
        // aws-node (ipamd ≤ v1.5 wording, before "Failed to check API server connectivity") cannot reach the API server
        'error communicating with apiserver',
        // ipamd cannot start, or returns AddNetwork a failure other than an empty pool (that one is
        // subnet-ip-exhaustion, which supersedes this rule on the same record)
        'ipamd init: failed to retrieve attached enis info',
        'ipamd init: failed to set up host network',
        'failed to get eni limits from file:vpc_ip_limits',
        'failed to wait for ipam daemon to complete',
        'failed to attach any enis for custom networking',
      ),
      ...[
        ['/pause', 'failed to pull'],
        // aws-node's readiness probe (grpc-health-probe) cannot reach ipamd
        ['failed to connect service', ':50051'],
        ['/pause', 'no basic auth credentials'],
        ['failed to find plugin', 'in path [/opt/cni/bin'],
      ],
    ],
    conditions: [{ type: 'ready', kinds: ['nodeclaim', 'node'] }],
  },
  diagnose: (f) => {
    const node = f.first('nodes', '<node-name>');
    return {
      diagnosis:
        `Nodes${f.where('nodes', '')}${f.where('nodepools', 'of nodepool')} are NotReady. A node that never becomes Ready ` +
        `cannot take pods, and Karpenter cannot consolidate it. Usual causes: the kubelet cannot reach the API server, ` +
        `the VPC CNI is not running, or the instance profile lacks permissions.`,
      remediation: [
        {
          title: 'See the node conditions and the system pods on it',
          detail:
            'The Ready condition message names the cause (kubelet stopped posting status, network plugin not ready, …).',
          commands: [
            `kubectl describe node ${node}`,
            `kubectl -n kube-system get pods -o wide --field-selector spec.nodeName=${node}`,
          ],
        },
        {
          title: 'Read the instance console and kubelet log',
          detail:
            'Bootstrap and kubelet errors appear in the console output and the journal: permissions (the node role), security groups that block the API server, or networking.',
          commands: [
            `aws ec2 get-console-output --instance-id ${f.first('instances', '<instance-id>')} --latest --output text${f.region}`,
            `aws ssm start-session --target ${f.first('instances', '<instance-id>')}${f.region}`,
            'journalctl -u kubelet --since "1 hour ago"',
          ],
        },
        {
          title: 'Check that the node agents run and its resources registered',
          detail:
            'The VPC CNI (aws-node), kube-proxy and the device plugins run as DaemonSets; extended resources such as nvidia.com/gpu or vpc.amazonaws.com/pod-eni appear in the allocatable resources only once their DaemonSet runs on the node, and Karpenter does not initialise the node before.',
          commands: ['kubectl get ds -A', `kubectl get node ${node} -o jsonpath='{.status.allocatable}{"\\n"}'`],
        },
      ],
      docs: [DOCS.karpenterTroubleshooting],
    };
  },
  examples: {
    fires: [
      {
        line: 'aws-node-6kgps aws-node runtime: failed to create new OS thread (have 22 already; errno=11)',
        source:
          'https://github.com/awslabs/amazon-eks-ami/issues/899 (train-275, stern prefix; aws-node cannot start threads)',
      },
      {
        line: 'Warning  FailedCreatePodSandBox  3m31s (x210 over 48m)  kubelet            Failed to create pod sandbox: rpc error: code = Unknown desc = failed to get sandbox image "602401143452.dkr.ecr.eu-central-1.amazonaws.com/eks/pause:3.5": failed to pull image "602401143452.dkr.ecr.eu-central-1.amazonaws.com/eks/pause:3.5": failed to pull and unpack image "602401143452.dkr.ecr.eu-central-1.amazonaws.com/eks/pause:3.5": failed to resolve reference "602401143452.dkr.ecr.eu-central-1.amazonaws.com/eks/pause:3.5": pull access denied, repository does not exist or may require authorization: authorization failed: no basic auth credentials',
        source: 'https://github.com/awslabs/amazon-eks-ami/issues/2061 (train-277, pause image cannot be re-pulled)',
      },
      {
        line: '2019-08-07T02:24:04.835Z [ERROR]        Failed to create client: error communicating with apiserver: Get https://100.127.0.1:443/version?timeout=32s: dial tcp 100.127.0.1:443: i/o timeout',
        source: 'https://github.com/aws/amazon-vpc-cni-k8s/issues/575 (train-244, ipamd v1.5 text format)',
      },
      {
        line: 'Feb 02 03:52:10 ip-10-0-1-2 kubelet[2101]: E0202 03:52:10.771402    2101 kubelet.go:2422] "Skipping pod synchronization" err="PLEG is not healthy: pleg was last seen active 3m5.2s ago; threshold is 3m0s"',
        source:
          'constructed from kubernetes/kubernetes@v1.31.0-alpha.2:pkg/kubelet/kubelet.go "Skipping pod synchronization", pkg/kubelet/pleg/generic.go "pleg was last seen active %v ago; threshold is %v"',
      },
      {
        line: '  Ready            False   Mon, 02 Feb 2025 03:52:12 +0000   Mon, 02 Feb 2025 03:40:02 +0000   KubeletNotReady              container runtime is down,PLEG is not healthy: pleg was last seen active 4m1s ago; threshold is 3m0s',
        source:
          'constructed from kubernetes/kubernetes@v1.31.0-alpha.2:pkg/kubelet/nodestatus/setters.go KubeletNotReady message, as a kubectl describe node row',
      },
      {
        line: 'kube-system   2m   Warning   FailedCreatePodSandBox   pod/coredns-5d8f7c9b6-x2x4q   Failed to create pod sandbox: rpc error: code = Unknown desc = failed to setup network for sandbox "4c1f": plugin type="aws-cni" name="aws-cni" failed (add): add cmd: Error received from AddNetwork gRPC call: rpc error: code = Unavailable desc = connection error: desc = "transport: Error while dialing: dial tcp 127.0.0.1:50051: connect: connection refused"',
        source:
          'constructed from aws/amazon-vpc-cni-k8s@b5218838:cmd/routed-eni-cni-plugin/cni.go "add cmd: Error received from AddNetwork gRPC call: %v", as a kubectl get events row',
      },
      {
        line: '{"kind":"Event","involvedObject":{"kind":"Pod","namespace":"web","name":"api-0"},"reason":"FailedCreatePodSandBox","type":"Warning","source":{"component":"kubelet"},"message":"Failed to create pod sandbox: rpc error: code = Unknown desc = failed to setup network for sandbox \\"9ab1\\": plugin type=\\"cilium-cni\\" failed (add): unable to connect to Cilium agent: failed to create cilium agent client after 30.000000 seconds timeout"}',
        source:
          'constructed from cilium/cilium plugins/cilium-cni/cmd/cmd.go "unable to connect to Cilium agent: %w", as Event JSON',
      },
      {
        line: 'E0202 03:52:40.118274    2101 controller.go:145] "Failed to ensure lease exists, will retry" err="Get \\"https://A1B2.gr7.us-west-2.eks.amazonaws.com/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/ip-10-0-1-2\\": context deadline exceeded" interval="7s"',
        source:
          'constructed from kubernetes/kubernetes@v1.31.0-alpha.2:staging/src/k8s.io/component-helpers/apimachinery/lease/controller.go',
      },
      {
        line: 'E0202 03:52:41.002112    2101 controller.go:195] "Failed to update lease" err="Put \\"https://A1B2.gr7.us-west-2.eks.amazonaws.com/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/ip-10-0-1-2\\": net/http: request canceled" ; E0202 03:52:41.002200 2101 controller.go:121] failed 5 attempts to update lease',
        source:
          'constructed from kubernetes/kubernetes@v1.31.0-alpha.2:staging/src/k8s.io/component-helpers/apimachinery/lease/controller.go "failed %d attempts to update lease"',
      },
      {
        line: 'Nodes provisioned by Karpenter are in a NotReady state',
        source: seedSection(6),
      },
      {
        line: '{"involvedObject":{"kind":"NodeClaim","name":"default-abcde"},"reason":"Ready","message":"Status condition transitioned, Type: Ready, Status: True -> False"}',
        source:
          "constructed from Karpenter v1's status condition event template 'Status condition transitioned, Type: %s, Status: %s -> %s, Reason: %s'",
      },
      {
        line: '  Warning  NodeRepairBlocked        88s (x19 over 142m)  karpenter        more then 20% nodes are unhealthy in the nodepool',
        source:
          'https://github.com/kubernetes-sigs/karpenter/issues/2134 (test/fixtures/karpenter-samples.jsonl ref-021)',
      },
    ],
    silent: [
      {
        line: '  Normal   NodeReady                19m (x6 over 5d1h)   kubelet, kube-node-9f4e     Node kube-node-9f4e status is now: NodeReady',
        source: 'https://github.com/k3s-io/k3s/issues/838 (train-123)',
      },
      {
        line: '19m         Normal    Ready                     node/i-0322e9d8dd1b95a51          Status condition transitioned, Type: Ready, Status: False -> True, Reason: KubeletReady, Message: kubelet is posting ready status',
        source: 'https://github.com/aws/aws-cdk/pull/33373 (train-203)',
      },
      {
        line: '  Normal   Starting                 2m19s                  kubelet                Starting kubelet.',
        source: 'https://github.com/aws/karpenter-provider-aws/issues/7559 (train-133)',
      },
      {
        line: 'Normal   Pulling    63s   kubelet            Pulling image "602401143452.dkr.ecr.ap-southeast-1.amazonaws.com/amazon-k8s-cni-init:v1.7.5-eksbuild.1"',
        source: 'https://github.com/aws-samples/eks-workshop/issues/1311 (train-291)',
      },
      {
        line: 'Normal   Started         56m                   kubelet            Started container aws-vpc-cni-init',
        source: 'https://github.com/eksctl-io/eksctl/pull/5696 (train-301)',
      },
      {
        line: 'I0202 03:52:40.118274    2101 kubelet_node_status.go:500] "Fast updating node status as it just became ready"',
        source: 'constructed from kubernetes/kubernetes@v1.31.0-alpha.2:pkg/kubelet/kubelet_node_status.go',
      },
      {
        line: 'I0202 03:41:02.002112    2101 generic.go:334] "Generic (PLEG): container finished" podID="7e37" containerID="ab12" exitCode=0',
        source:
          'constructed from kubernetes/kubernetes@v1.31.0-alpha.2:pkg/kubelet/pleg/generic.go "Generic (PLEG): container finished"',
      },
      {
        line: 'Normal  NodeReady  node/ip-10-0-1-7.ec2.internal  kubelet  Node ip-10-0-1-7.ec2.internal status is now: NodeReady',
        source: "constructed from kubelet's node status event 'Node %s status is now: %s'",
      },
      {
        line: '2m36s       Normal    Initialized               nodeclaim/general-purpose-5c74h   Status condition transitioned, Type: Initialized, Status: Unknown -> True, Reason: Initialized',
        source:
          'https://github.com/aws-samples/eks-workshop-v2/blob/bb1b30007ba61a406d5efc18e48dff87ea879a36/website/docs/fastpaths/operator/karpenter/node-provisioning.md (test/fixtures/karpenter-samples.jsonl ref-065)',
      },
    ],
  },
});
