import { DOCS } from '../advice/docs-links';
import { anyOf, defineRule, seedSection } from './types';

export default defineRule({
  info: {
    id: 'node-not-ready',
    title: 'Nodes provisioned by Karpenter are NotReady',
    severity: 'high',
    source: 6,
    family: 'node',
    emittedBy: 'logs',
    recognises: 'NotReady nodes, NodeNotReady, kubelet or CNI not ready, node repair blocked',
    keyEntity: 'nodepools',
  },
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
      ),
      ...[
        ['/pause', 'failed to pull'],
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
