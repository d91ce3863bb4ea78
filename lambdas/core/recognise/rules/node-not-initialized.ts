import { DOCS } from '../../advice/docs-links';
import { anyOf, defineRule } from './types';

export default defineRule({
  info: {
    id: 'node-not-initialized',
    title: 'Karpenter nodes do not finish initialisation',
    shortTitle: 'nodes not initialising',
    severity: 'high',
    source: 6,
    family: 'node',
    emittedBy: 'logs',
    recognises: 'inflight check failed, expected resource did not register, startup taints left, registration timeout',
    keyEntity: 'nodepools',
  },
  recognition: {
    clauses: [
      ...anyOf(
        'inflight check failed',
        "didn't register on the node",
        'did not register on the node',
        'missing required startup taint',
        'startup taint',
        "hasn't registered",
        'has not registered',
        'registration ttl',
        'registrationtimeout',
        'registration timeout',
        'failed to run kubelet',
        'not initialized within',
        // CSI node plugins that never register with the kubelet (node-driver-registrar, pkg/kubelet/csi)
        'registration process failed with error',
        'plugin registration failed with err',
        'failed to initialize csinode',
        'error updating csinode object with csi driver node info',
        'error updating csinode annotation',
        'not found in the list of registered csi drivers',
      ),
      ['expected resource', 'register'],
    ],
    // Karpenter's NodeClaim condition message, quoted alone from a NodeClaim stuck unregistered. In the
    // status it comes from (describe row, transition event) it is every launch's normal progress: silent.
    patterns: [{ gate: 'not registered with cluster', pattern: /^node not registered with cluster\.?$/ }],
    conditions: [{ type: 'registered' }, { type: 'initialized' }],
  },
  diagnose: (f) => {
    const node = f.first('nodes', '<node-name>');
    const claim = f.first('nodeclaims', '<nodeclaim-name>');
    return {
      diagnosis:
        `Nodes${f.where('nodeclaims', 'of nodeclaims')}${f.where('nodepools', 'in nodepool')} launched but did not ` +
        `initialise: Karpenter waits for the node to be Ready, for every expected resource (such as nvidia.com/gpu or ` +
        `vpc.amazonaws.com/pod-eni) to register, and for the NodePool's startup taints to be removed. Until then the node ` +
        `cannot be used for scheduling or consolidation.`,
      remediation: [
        {
          title: 'See what the nodeclaim is waiting for',
          detail: 'The nodeclaim conditions say which step failed; the node shows its taints and registered resources.',
          commands: [`kubectl describe nodeclaim ${claim}`, `kubectl describe node ${node}`],
        },
        {
          title: 'Check that the device plugins and agents are running',
          detail:
            'Extended resources such as nvidia.com/gpu appear under Capacity only when their daemonset runs on the node; a startup taint is removed by the agent that owns it.',
          commands: [
            'kubectl get ds -A',
            `kubectl get nodepool ${f.first('nodepools', '<nodepool-name>')} -o jsonpath='{.spec.template.spec.startupTaints}'`,
          ],
        },
        {
          title: 'Read the kubelet log on the instance',
          detail: 'Permissions, security groups or networking problems show in the kubelet log.',
          commands: [
            `aws ssm start-session --target ${f.first('instances', '<instance-id>')}${f.region}`,
            'journalctl -u kubelet --since "1 hour ago"',
          ],
        },
      ],
      docs: [DOCS.karpenterTroubleshooting],
    };
  },
  examples: {
    fires: [
      {
        line: 'E1123 12:42:02.529792       1 main.go:123] Registration process failed with error: plugin registration failed with err: error uninstalling CSI driver from CSINodeInfo object error updating CSINodeInfo: timed out waiting for the condition; caused by: [csinodeinfos.csi.storage.k8s.io "ip-172-18-0-74.ec2.internal" not found, csinodeinfos.csi.storage.k8s.io "ip-172-18-0-74.ec2.internal" not found, csinodeinfos.csi.storage.k8s.io "ip-172-18-0-74.ec2.internal" not found, csinodeinfos.csi.storage.k8s.io "ip-172-18-0-74.ec2.internal" not found], restarting registration container.',
        source: 'https://github.com/kubernetes/kubernetes/issues/71378 (train-273, node-driver-registrar)',
      },
      {
        line: 'Feb 02 03:49:02 ip-10-0-1-2 kubelet[2101]: E0202 03:49:02.551870    2101 plugin_watcher.go:193] "RegisterPlugin error -- plugin registration failed with err: error updating CSINode object with CSI driver node info: error updating CSINode: timed out waiting for the condition" plugin="ebs.csi.aws.com"',
        source:
          'constructed from kubernetes/kubernetes@v1.31.0-alpha.2:pkg/volume/csi/nodeinfomanager "error updating CSINode object with CSI driver node info: %v"',
      },
      {
        line: 'E0202 03:49:03.110022    2101 csi_plugin.go:300] Failed to initialize CSINode: error updating CSINode annotation: timed out waiting for the condition; caused by: nodes "ip-10-0-1-2.us-west-2.compute.internal" not found',
        source:
          'constructed from kubernetes/kubernetes@v1.31.0-alpha.2:pkg/volume/csi/csi_plugin.go "Failed to initialize CSINode: %v"',
      },
      {
        line: '{"involvedObject":{"kind":"NodeClaim","name":"default-abcde"},"reason":"Initialized","message":"Status condition transitioned, Type: Initialized, Status: Unknown -> False, Reason: ResourceNotRegistered"}',
        source:
          "constructed from Karpenter v1's status condition event template 'Status condition transitioned, Type: %s, Status: %s -> %s, Reason: %s'",
      },
      {
        line: '{"level":"ERROR","time":"2024-08-21T12:03:10.958Z","logger":"controller","caller":"controller/controller.go:261","message":"Reconciler error","commit":"5bdf9c3","controller":"nodeclaim.lifecycle","controllerGroup":"karpenter.sh","controllerKind":"NodeClaim","NodeClaim":{"name":"default-v64qz"},"namespace":"","name":"default-v64qz","reconcileID":"30d5bee9-399d-42fa-87a0-533677cbb908","error":"missing required startup taint, karpenter.sh/unregistered"}',
        source:
          'https://github.com/aws/karpenter-provider-aws/issues/6821 (test/fixtures/karpenter-samples.jsonl ref-018)',
      },
      {
        line: '{"level":"ERROR","time":"2024-11-15T18:18:38.433Z","logger":"controller","caller":"controller/controller.go:261","message":"Reconciler error","commit":"a2875e3","controller":"nodeclaim.lifecycle","controllerGroup":"karpenter.sh","controllerKind":"NodeClaim","NodeClaim":{"name":"default-g8nd2"},"namespace":"","name":"default-g8nd2","reconcileID":"c771433a-5731-4e0b-99f7-ad33361ec0d6","error":"missing required startup taint, karpenter.sh/unregistered"}',
        source:
          'https://github.com/aws/karpenter-provider-aws/issues/7399 (test/fixtures/karpenter-samples.jsonl ref-019)',
      },
    ],
    silent: [
      {
        line: 'I0914 09:25:04.068253       1 node_register.go:62] Registration Server started at: /registration/ebs.csi.aws.com-reg.sock',
        source: 'https://github.com/kubernetes-csi/node-driver-registrar/issues/218 (train-287)',
      },
      {
        line: '    Message:               Node not registered with cluster',
        source:
          'constructed from kubernetes-sigs/karpenter@v1.14.1:pkg/controllers/nodeclaim/lifecycle/initialization.go: the NodeClaim status while it registers, normal progress',
      },
      {
        line: '2m39s       Normal    Registered                nodeclaim/general-purpose-5c74h   Status condition transitioned, Type: Registered, Status: Unknown -> True, Reason: Registered',
        source:
          'https://github.com/aws-samples/eks-workshop-v2/blob/bb1b30007ba61a406d5efc18e48dff87ea879a36/website/docs/fastpaths/operator/karpenter/node-provisioning.md (test/fixtures/karpenter-samples.jsonl ref-064)',
      },
      {
        line: '2m36s       Normal    Initialized               nodeclaim/general-purpose-5c74h   Status condition transitioned, Type: Initialized, Status: Unknown -> True, Reason: Initialized',
        source:
          'https://github.com/aws-samples/eks-workshop-v2/blob/bb1b30007ba61a406d5efc18e48dff87ea879a36/website/docs/fastpaths/operator/karpenter/node-provisioning.md (test/fixtures/karpenter-samples.jsonl ref-065)',
      },
    ],
  },
});
