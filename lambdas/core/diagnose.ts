import type { RuleId } from './catalog';
import type { FindingContext, NodegroupFacts, SubnetFacts } from './context';
import type { Entities } from './model';

/** An automatic remediation action (DESIGN §6); off unless the operator turns it on. */
export type ActionId = 'raise-system-nodegroup' | 'request-quota-increase' | 'plan-subnet-capacity';

export interface RemediationStep {
  title: string;
  detail: string;
  commands: string[];
  action?: ActionId;
}

export interface Diagnosis {
  diagnosis: string;
  remediation: RemediationStep[];
  docs: string[];
}

export interface DiagnoseInput {
  rule: RuleId;
  cluster: string;
  region?: string;
  entities: Entities;
  occurrences: number;
  context: FindingContext;
}

/**
 * Rule + entities + live context → what happened, why, and the commands that fix it, filled in
 * with the real names. Remedies follow the seed article for its scenarios and AWS / Karpenter /
 * Kubernetes documentation beyond it. Names that come from logs are quoted for the shell.
 */
export function diagnose(input: DiagnoseInput): Diagnosis {
  return DIAGNOSERS[input.rule](new Facts(input));
}

const DOCS = {
  karpenterTroubleshooting: 'https://karpenter.sh/docs/troubleshooting/',
  karpenterScheduling: 'https://karpenter.sh/docs/concepts/scheduling/',
  karpenterNodePools: 'https://karpenter.sh/docs/concepts/nodepools/',
  karpenterNodeClasses: 'https://karpenter.sh/docs/concepts/nodeclasses/',
  karpenterDisruption: 'https://karpenter.sh/docs/concepts/disruption/',
  taints: 'https://kubernetes.io/docs/concepts/scheduling-eviction/taint-and-toleration/',
  assignPods: 'https://kubernetes.io/docs/concepts/scheduling-eviction/assign-pod-node/',
  topologySpread: 'https://kubernetes.io/docs/concepts/scheduling-eviction/topology-spread-constraints/',
  limitRange: 'https://kubernetes.io/docs/concepts/policy/limit-range/',
  nodePressure: 'https://kubernetes.io/docs/concepts/scheduling-eviction/node-pressure-eviction/',
  pdb: 'https://kubernetes.io/docs/tasks/run-application/configure-pdb/',
  leases: 'https://kubernetes.io/docs/concepts/architecture/leases/',
  ebsCsi: 'https://docs.aws.amazon.com/eks/latest/userguide/ebs-csi.html',
  volumeLimits: 'https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/volume_limits.html',
  customNetworking: 'https://docs.aws.amazon.com/eks/latest/userguide/cni-custom-network.html',
  prefixDelegation: 'https://docs.aws.amazon.com/eks/latest/userguide/cni-increase-ip-addresses.html',
  vpcCidrs: 'https://docs.aws.amazon.com/vpc/latest/userguide/vpc-cidr-blocks.html',
  windows: 'https://docs.aws.amazon.com/eks/latest/userguide/windows-support.html',
  launchTroubleshooting: 'https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/troubleshooting-launch.html',
  quotaIncrease: 'https://docs.aws.amazon.com/servicequotas/latest/userguide/request-quota-increase.html',
  accessDenied: 'https://docs.aws.amazon.com/IAM/latest/UserGuide/troubleshoot_access-denied.html',
  privateClusters: 'https://docs.aws.amazon.com/eks/latest/userguide/private-clusters.html',
  managedNodegroups: 'https://docs.aws.amazon.com/eks/latest/userguide/managed-node-groups.html',
} as const;

/** Quotes a value for a POSIX shell unless it is made only of characters that need no quoting. */
export function shellArg(value: string): string {
  if (/^[A-Za-z0-9._:/=@%+,-]+$/.test(value)) return value;
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/** Entity accessors with placeholders, so every command is complete and clearly marked where unknown. */
class Facts {
  constructor(readonly input: DiagnoseInput) {}

  get cluster(): string {
    return shellArg(this.input.cluster);
  }

  all(kind: keyof Entities): string[] {
    return this.input.entities[kind] ?? [];
  }

  first(kind: keyof Entities, placeholder: string): string {
    const value = this.all(kind)[0];
    return value ? shellArg(value) : placeholder;
  }

  list(kind: keyof Entities, max = 5): string {
    const values = this.all(kind);
    if (values.length === 0) return '';
    const shown = values.slice(0, max).join(', ');
    return values.length > max ? `${shown} and ${values.length - max} more` : shown;
  }

  /** `namespace`, `kind`, `name` of the first workload, with placeholders. */
  workload(): { namespace: string; kind: string; name: string; known: boolean } {
    const workload = this.all('workloads')[0];
    if (!workload) return { namespace: '<namespace>', kind: 'deployment', name: '<workload-name>', known: false };
    const [namespace, kind, name] = workload.split('/') as [string, string, string];
    return {
      namespace: shellArg(namespace),
      kind: kind === 'workload' ? 'deployment' : kind,
      name: shellArg(name),
      known: true,
    };
  }

  pod(): { namespace: string; name: string } {
    const pod = this.all('pods')[0];
    if (!pod) return { namespace: '<namespace>', name: '<pod-name>' };
    const slash = pod.indexOf('/');
    return slash > 0
      ? { namespace: shellArg(pod.slice(0, slash)), name: shellArg(pod.slice(slash + 1)) }
      : { namespace: 'default', name: shellArg(pod) };
  }

  get region(): string {
    return this.input.region ? ` --region ${shellArg(this.input.region)}` : '';
  }

  get occurrences(): number {
    return this.input.occurrences;
  }

  get context(): FindingContext {
    return this.input.context;
  }

  /** ` label a, b` when the entity is known, '' otherwise; a label of punctuation attaches to the word before. */
  where(kind: keyof Entities, label: string): string {
    const list = this.list(kind);
    if (!list) return '';
    return /^[:;,]/.test(label) ? `${label} ${list}` : ` ${label} ${list}`.replace(/ {2,}/g, ' ');
  }

  /** ` (a, b)` when the entity is known. */
  paren(kind: keyof Entities, label = ''): string {
    const list = this.list(kind);
    return list ? ` (${label ? `${label} ` : ''}${list})` : '';
  }
}

type Diagnoser = (f: Facts) => Diagnosis;

const DIAGNOSERS: Record<RuleId, Diagnoser> = {
  'karpenter-controller-unschedulable': (f) => {
    const pod = f.pod();
    const namespace = pod.namespace === '<namespace>' ? 'karpenter' : pod.namespace;
    const groups = f.context.nodegroups ?? [];
    const groupSteps =
      groups.length > 0 ? groups.map((group) => raiseNodegroupStep(f, group)) : [raiseNodegroupStep(f)];
    return {
      diagnosis:
        `The Karpenter controller pod${f.where('pods', '')} cannot be scheduled. Karpenter cannot launch nodes for ` +
        `its own pods, so while they are Pending nothing in the cluster scales. Since v0.16 the chart runs two ` +
        `replicas, and the nodes outside Karpenter's control (a managed node group or Fargate) do not have room for both.`,
      remediation: [
        ...groupSteps,
        {
          title: 'Or run a single Karpenter replica',
          detail: 'If the deployment does not need redundancy, one replica fits on the existing capacity.',
          commands: [`kubectl -n ${namespace} scale deployment karpenter --replicas=1`],
        },
        {
          title: 'Keep Karpenter off the nodes it manages',
          detail:
            "Karpenter must run on nodes it does not manage. Nodes that carry the karpenter.sh/nodepool label are Karpenter's; remove the label from nodes meant for the controller.",
          commands: [
            'kubectl get nodes --show-labels | grep karpenter.sh/nodepool',
            `kubectl label nodes ${f.first('nodes', '<node-name>')} karpenter.sh/nodepool-`,
          ],
        },
      ],
      docs: [DOCS.karpenterTroubleshooting, DOCS.managedNodegroups],
    };
  },

  'volume-attach-limit': (f) => {
    const node = f.first('nodes', '<node-name>');
    return {
      diagnosis:
        `Volumes cannot attach${f.where('nodes', 'to node')}${f.where('volumes', '; volumes')}. Several pods with ` +
        `persistent volumes were packed onto the same node and it reached its EBS attachment limit, so the next attachment ` +
        `stays in "attaching".`,
      remediation: [
        {
          title: 'See how many volumes the node can take and has',
          detail: "The EBS CSI driver reports the node's attachable volume count; compare with the attachments on it.",
          commands: [
            `kubectl get csinode ${node} -o jsonpath='{.spec.drivers[?(@.name=="ebs.csi.aws.com")].allocatable.count}'`,
            `kubectl get volumeattachments | grep ${node}`,
          ],
        },
        {
          title: 'Spread volume-heavy pods across nodes',
          detail:
            'Add topologySpreadConstraints (topologyKey kubernetes.io/hostname) and podAntiAffinity to the workloads with many PVCs, so their volumes do not pile up on one node.',
          commands: [],
        },
        {
          title: 'Use the EBS CSI driver and a startup taint on the NodePool',
          detail:
            'With aws-ebs-csi-driver, a startup taint keeps pods off a node until the driver is ready there:\n' +
            'spec:\n  template:\n    spec:\n      startupTaints:\n        - key: ebs.csi.aws.com/agent-not-ready\n          effect: NoExecute',
          commands: [`kubectl edit nodepool ${f.first('nodepools', '<nodepool-name>')}`],
        },
      ],
      docs: [DOCS.volumeLimits, DOCS.ebsCsi, DOCS.topologySpread],
    };
  },

  'volume-mount-timeout': (f) => {
    const pod = f.pod();
    return {
      diagnosis:
        `Volumes of ${f.all('pods').length ? `pod ${f.list('pods')}` : 'a pod'} were not attached or mounted in time` +
        `${f.paren('volumes')}. This follows attachment-limit problems when ` +
        `volume-heavy pods land on one node, or a CSI driver that is not ready on the node.`,
      remediation: [
        {
          title: 'See which volume is stuck and why',
          detail: 'The pod events and the VolumeAttachment objects name the volume and the node.',
          commands: [
            `kubectl -n ${pod.namespace} describe pod ${pod.name}`,
            'kubectl get volumeattachments',
            'kubectl -n kube-system logs deployment/ebs-csi-controller -c csi-attacher --since=1h',
          ],
        },
        {
          title: 'Spread volume-heavy pods and gate nodes on the CSI driver',
          detail:
            'Add topologySpreadConstraints and podAntiAffinity to the workload, and a startup taint ebs.csi.aws.com/agent-not-ready:NoExecute on the NodePool so pods wait for the driver.',
          commands: [],
        },
      ],
      docs: [DOCS.ebsCsi, DOCS.volumeLimits, DOCS.topologySpread],
    };
  },

  'in-tree-storage-plugin': (f) => ({
    diagnosis:
      `A PersistentVolume${f.where('volumes', '')} uses an in-tree storage plugin (such as AWSElasticBlockStore). ` +
      `Karpenter does not support in-tree plugins, so it cannot learn the node's volume attach limits and scale-ups may fail.`,
    remediation: [
      {
        title: 'Find the PersistentVolumes that use the in-tree plugin',
        detail: 'Volumes with awsElasticBlockStore set and no csi driver are in-tree.',
        commands: [
          'kubectl get pv -o custom-columns=NAME:.metadata.name,IN-TREE:.spec.awsElasticBlockStore.volumeID,CSI:.spec.csi.driver',
        ],
      },
      {
        title: 'Install the EBS CSI driver and move the volumes to it',
        detail:
          'Create new PersistentVolumes that reference the ebs.csi.aws.com driver (or a StorageClass with provisioner ebs.csi.aws.com) and move the claims to them.',
        commands: [`aws eks create-addon --cluster-name ${f.cluster} --addon-name aws-ebs-csi-driver${f.region}`],
      },
    ],
    docs: [DOCS.ebsCsi, DOCS.karpenterTroubleshooting],
  }),

  'oom-killed': (f) => {
    const w = f.workload();
    const pod = f.pod();
    return {
      diagnosis:
        `Containers${f.where('workloads', 'of')} were killed for running out of memory (${f.occurrences} times). Their ` +
        `memory requests are below what they use, so Karpenter packed them onto nodes that cannot hold them; with limits ` +
        `set, the kernel kills them at the limit.`,
      remediation: [
        {
          title: 'See the memory the containers use against their requests and limits',
          detail: 'Compare the last termination reason and the usage with the requests.',
          commands: [`kubectl -n ${pod.namespace} describe pod ${pod.name}`, `kubectl -n ${w.namespace} top pod`],
        },
        {
          title: 'Set memory requests to real usage',
          detail: "Requests drive Karpenter's packing; set them to observed peak usage and the limit above it.",
          commands: [
            `kubectl -n ${w.namespace} set resources ${w.kind} ${w.name} --requests=memory=<observed-peak> --limits=memory=<limit>`,
          ],
        },
        limitRangeStep(w.namespace),
      ],
      docs: [DOCS.limitRange, DOCS.karpenterScheduling],
    };
  },

  'missing-resource-requests': (f) => {
    const w = f.workload();
    return {
      diagnosis:
        `Pods${f.where('workloads', 'of')} run without resource requests. Karpenter packs pods by their requests, so ` +
        `pods without them are packed too densely, and the kubelet evicts them first under pressure.`,
      remediation: [
        {
          title: 'Give the workload requests',
          detail: 'Set CPU and memory requests to the observed usage.',
          commands: [
            `kubectl -n ${w.namespace} set resources ${w.kind} ${w.name} --requests=cpu=<cpu>,memory=<memory>`,
          ],
        },
        limitRangeStep(w.namespace),
      ],
      docs: [DOCS.limitRange, DOCS.karpenterScheduling],
    };
  },

  'windows-image-platform-mismatch': (f) => {
    const image = f.all('images')[0] ?? '';
    const build = image.includes('ltsc2019')
      ? '10.0.17763'
      : image.includes('ltsc2022')
        ? '10.0.20348'
        : '<windows-build>';
    const w = f.workload();
    return {
      diagnosis:
        `The Windows image${f.where('images', '')} has no variant for the node's Windows version, so the pull fails with ` +
        `"no match for platform in manifest". Windows containers must match the host OS build.`,
      remediation: [
        {
          title: 'See the Windows builds of the nodes',
          detail: 'Nodes carry their build in the node.kubernetes.io/windows-build label.',
          commands: ['kubectl get nodes -l kubernetes.io/os=windows -L node.kubernetes.io/windows-build'],
        },
        {
          title: 'Pin the pods to nodes of the matching build',
          detail: `Add a nodeSelector to the pod template:\nnodeSelector:\n  kubernetes.io/os: windows\n  node.kubernetes.io/windows-build: '${build}'`,
          commands: [`kubectl -n ${w.namespace} edit ${w.kind} ${w.name}`],
        },
      ],
      docs: [DOCS.windows],
    };
  },

  'node-not-initialized': (f) => {
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

  'node-not-ready': (f) => {
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
          detail: 'Bootstrap and kubelet errors appear in the console output and the journal.',
          commands: [
            `aws ec2 get-console-output --instance-id ${f.first('instances', '<instance-id>')} --latest --output text${f.region}`,
          ],
        },
      ],
      docs: [DOCS.karpenterTroubleshooting],
    };
  },

  'scheduling-affinity-topology': (f) => {
    const w = f.workload();
    return {
      diagnosis:
        `Pods${f.where('workloads', 'of')} cannot be placed: their pod affinity, anti-affinity or topology spread ` +
        `constraints require nodes or zones where no suitable node exists.`,
      remediation: [
        {
          title: 'Read the constraints of the workload',
          detail: 'Compare the required zones and spread with the zones the NodePools allow.',
          commands: [
            `kubectl -n ${w.namespace} get ${w.kind} ${w.name} -o jsonpath='{.spec.template.spec.affinity}{"\\n"}{.spec.template.spec.topologySpreadConstraints}'`,
            'kubectl get nodes -L topology.kubernetes.io/zone',
          ],
        },
        {
          title: 'Relax the constraints or add capacity where they point',
          detail:
            'Use whenUnsatisfiable: ScheduleAnyway or preferred (not required) affinity where strict placement is not needed, or allow the required zones in the NodePool requirements.',
          commands: [`kubectl -n ${w.namespace} edit ${w.kind} ${w.name}`],
        },
      ],
      docs: [DOCS.topologySpread, DOCS.assignPods, DOCS.karpenterScheduling],
    };
  },

  'scheduling-insufficient-resources': (f) => {
    const w = f.workload();
    const resources = f.list('resources');
    return {
      diagnosis:
        `Pods${f.where('workloads', 'of')} request more${resources ? ` ${resources}` : ' resources'} than any node or ` +
        `instance type allowed by the NodePools can offer. Karpenter normally launches a node for them; if this persists, ` +
        `no allowed instance type fits the request.`,
      remediation: [
        {
          title: 'Compare the requests with what nodes offer',
          detail: 'Requests that exceed the largest allowed instance type can never be placed.',
          commands: [
            `kubectl -n ${w.namespace} get ${w.kind} ${w.name} -o jsonpath='{.spec.template.spec.containers[*].resources}'`,
            'kubectl get nodepools -o jsonpath=\'{range .items[*]}{.metadata.name}{": "}{.spec.template.spec.requirements}{"\\n"}{end}\'',
          ],
        },
        {
          title: 'Right-size the requests or allow larger instance types',
          detail:
            'Set requests to real usage, or widen the NodePool requirements (karpenter.k8s.aws/instance-size, instance-family) so a large enough type is allowed. "Too many pods" means the max-pods of the instance type is reached.',
          commands: [
            `kubectl -n ${w.namespace} set resources ${w.kind} ${w.name} --requests=cpu=<cpu>,memory=<memory>`,
          ],
        },
      ],
      docs: [DOCS.karpenterScheduling, DOCS.karpenterNodePools],
    };
  },

  'scheduling-untolerated-taint': (f) => {
    const w = f.workload();
    const taints = f.all('taints');
    const custom = taints.filter((taint) => !isSystemTaint(taint));
    const system = taints.filter(isSystemTaint);
    const node = f.first('nodes', '<node-name>');
    const steps: RemediationStep[] = [
      {
        title: 'Add a matching toleration to the workload',
        detail: `Add to the pod template:\n${tolerationYaml(custom[0] ?? taints[0])}`,
        commands: [`kubectl -n ${w.namespace} edit ${w.kind} ${w.name}`],
      },
    ];
    if (custom.length > 0) {
      steps.push({
        title: 'Or remove the custom taint from the nodes if it is not needed',
        detail: 'Find the nodes that carry the taint, then remove it.',
        commands: [
          `kubectl get nodes -o custom-columns=NAME:.metadata.name,TAINTS:.spec.taints --no-headers | grep ${shellArg(taintKey(custom[0]!))}`,
          ...custom.map((taint) => `kubectl taint nodes ${node} ${shellArg(taintRemoval(taint))}`),
        ],
      });
    }
    if (system.length > 0) {
      steps.push({
        title: 'System taints are set by Kubernetes, Karpenter or EKS',
        detail: `${system.join(', ')}: set while a node starts, is disrupted, or for Fargate. Do not remove them by hand; if they persist, see why the node is not ready.`,
        commands: [],
      });
    }
    return {
      diagnosis:
        `Pods${f.where('workloads', 'of')} do not tolerate the taint${taints.length > 1 ? 's' : ''}` +
        `${taints.length ? ` ${f.list('taints')}` : ''} of the available nodes, so the scheduler cannot place them there.`,
      remediation: steps,
      docs: [DOCS.taints, DOCS.karpenterScheduling],
    };
  },

  'scheduling-node-selector-mismatch': (f) => {
    const w = f.workload();
    return {
      diagnosis:
        `Pods${f.where('workloads', 'of')} have a nodeSelector or required node affinity that no node and no NodePool ` +
        `satisfies, so they stay Pending.`,
      remediation: [
        {
          title: 'Compare the selector with node labels and NodePool requirements',
          detail: 'Every label the pod requires must be on a node or allowed by a NodePool requirement.',
          commands: [
            `kubectl -n ${w.namespace} get ${w.kind} ${w.name} -o jsonpath='{.spec.template.spec.nodeSelector}{"\\n"}{.spec.template.spec.affinity.nodeAffinity}'`,
            'kubectl get nodes --show-labels',
            'kubectl get nodepools -o jsonpath=\'{range .items[*]}{.metadata.name}{": "}{.spec.template.spec.requirements}{"\\n"}{end}\'',
          ],
        },
        {
          title: 'Make the selector less strict, or provision matching nodes',
          detail: 'Remove labels that only a managed node group carries, or add the value to a NodePool requirement.',
          commands: [`kubectl -n ${w.namespace} edit ${w.kind} ${w.name}`],
        },
      ],
      docs: [DOCS.assignPods, DOCS.karpenterScheduling],
    };
  },

  'subnet-ip-exhaustion': (f) => {
    const subnets = f.all('subnets');
    const facts = f.context.subnets ?? [];
    const vpc = facts.find((s) => s.vpcId)?.vpcId;
    const vpcArg = vpc ? shellArg(vpc) : '<vpc-id>';
    const subnetIds = subnets.length ? subnets.map(shellArg).join(' ') : '<subnet-id>';
    return {
      diagnosis:
        `Karpenter cannot launch nodes because subnet${subnets.length > 1 ? 's' : ''} ${subnets.length ? f.list('subnets') : 'of the cluster'} ` +
        `${subnets.length > 1 ? 'have' : 'has'} no free IP addresses left` +
        `${describeSubnetFacts(subnets.length ? facts.filter((s) => subnets.includes(s.subnetId)) : facts)}. ` +
        `The subnet CIDR is used up by nodes and, with the VPC CNI, by pod IPs.${roomElsewhere(facts, subnets)}`,
      remediation: [
        {
          title: 'See the free addresses of the subnets',
          detail: 'AvailableIpAddressCount already excludes the five addresses AWS reserves.',
          commands: [
            `aws ec2 describe-subnets --subnet-ids ${subnetIds} --query 'Subnets[].{Subnet:SubnetId,AZ:AvailabilityZone,Free:AvailableIpAddressCount,Cidr:CidrBlock,Vpc:VpcId}' --output table${f.region}`,
          ],
        },
        {
          title: 'Add a secondary CIDR to the VPC and new subnets for Karpenter',
          detail:
            "Associate an additional IPv4 block, create a subnet per zone in it, and tag them for Karpenter discovery. Beside an RFC 1918 primary, AWS allows 100.64.0.0/10 (shared address space) or more of the primary's own private range, not the other private ranges nor 198.19.0.0/16. The plan-subnet-capacity action computes non-overlapping candidates and the subnet layout.",
          commands: [
            `aws ec2 describe-vpcs --vpc-ids ${vpcArg} --query 'Vpcs[].CidrBlockAssociationSet[].CidrBlock'${f.region}`,
            `aws ec2 associate-vpc-cidr-block --vpc-id ${vpcArg} --cidr-block <new-cidr>${f.region}`,
            `aws ec2 create-subnet --vpc-id ${vpcArg} --availability-zone <zone> --cidr-block <subnet-cidr>${f.region}`,
            `aws ec2 create-tags --resources <new-subnet-id> --tags Key=karpenter.sh/discovery,Value=${f.cluster}${f.region}`,
          ],
          action: 'plan-subnet-capacity',
        },
        {
          title: 'Or give pods their own address space with custom networking',
          detail:
            'With VPC CNI custom networking, pods take IPs from subnets named in ENIConfig objects instead of the node subnet.',
          commands: ['kubectl set env daemonset aws-node -n kube-system AWS_VPC_K8S_CNI_CUSTOM_NETWORK_CFG=true'],
        },
      ],
      docs: [DOCS.vpcCidrs, DOCS.customNetworking, DOCS.karpenterTroubleshooting],
    };
  },

  'incompatible-requirements': (f) => {
    const w = f.workload();
    const labels = f.all('labels');
    const nodegroupLabel = labels.some((label) => label.startsWith('eks.amazonaws.com/nodegroup'));
    return {
      diagnosis:
        `Pods${f.where('workloads', 'of')} require${labels.length ? ` label${labels.length > 1 ? 's' : ''} ${f.list('labels')}` : ' labels'} ` +
        `with values that no NodePool can provide, so Karpenter does not create nodes for them.` +
        (nodegroupLabel
          ? ' eks.amazonaws.com/nodegroup is set only on managed node group nodes, never on Karpenter nodes.'
          : ''),
      remediation: [
        {
          title: 'Find the requirement that no NodePool satisfies',
          detail: "Compare the pod's nodeSelector and node affinity with the NodePool requirements and labels.",
          commands: [
            `kubectl -n ${w.namespace} get ${w.kind} ${w.name} -o jsonpath='{.spec.template.spec.nodeSelector}{"\\n"}{.spec.template.spec.affinity.nodeAffinity}'`,
            'kubectl get nodepools -o jsonpath=\'{range .items[*]}{.metadata.name}{": "}{.spec.template.spec.requirements}{" labels="}{.spec.template.metadata.labels}{"\\n"}{end}\'',
          ],
        },
        {
          title: 'Remove the node-group-specific selector, or allow the value in a NodePool',
          detail:
            'Edit the workload to drop selectors such as eks.amazonaws.com/nodegroup, or add the label or value to a NodePool.',
          commands: [`kubectl -n ${w.namespace} edit ${w.kind} ${w.name}`],
        },
      ],
      docs: [DOCS.karpenterScheduling, DOCS.karpenterNodePools],
    };
  },

  'consolidation-blocked': (f) => ({
    diagnosis:
      `Karpenter cannot consolidate or disrupt nodes${f.where('nodes', '')}${f.where('nodepools', 'of nodepool')}` +
      `${f.where('pdbs', ': PodDisruptionBudget')}. Pods with the karpenter.sh/do-not-disrupt annotation, PDBs that allow ` +
      `no eviction, pods without a controller, or scheduling constraints keep the nodes running, and the cluster costs more than it needs to.`,
    remediation: [
      {
        title: 'Find what blocks disruption',
        detail: 'The Unconsolidatable and DisruptionBlocked events name the pod or PDB.',
        commands: [
          'kubectl get events -A --field-selector reason=Unconsolidatable',
          'kubectl get events -A --field-selector reason=DisruptionBlocked',
          'kubectl get pdb -A',
          `kubectl get pods -A -o jsonpath='{range .items[?(@.metadata.annotations.karpenter\\.sh/do-not-disrupt=="true")]}{.metadata.namespace}/{.metadata.name}{"\\n"}{end}'`,
        ],
      },
      {
        title: 'Loosen what is stricter than it needs to be',
        detail:
          'Allow at least one disruption in each PDB (maxUnavailable ≥ 1), remove do-not-disrupt where it is not needed, and relax affinity or topology spread that pins pods. Spot-to-spot consolidation needs the SpotToSpotConsolidation feature gate.',
        commands: [],
      },
    ],
    docs: [DOCS.karpenterDisruption, DOCS.pdb],
  }),

  'insufficient-instance-capacity': (f) => {
    const types = f.all('instanceTypes');
    return {
      diagnosis:
        `EC2 has no capacity for${types.length ? ` ${f.list('instanceTypes')}` : ' the requested instance types'}` +
        `${f.where('zones', 'in')}${f.paren('capacityTypes')}. Karpenter ` +
        `retries other offerings, but a NodePool that allows few types, zones or capacity types runs out of options.`,
      remediation: [
        {
          title: 'See which zones offer the instance types',
          detail: 'An instance type offered in few zones of the region fails more often.',
          commands: [
            `aws ec2 describe-instance-type-offerings --location-type availability-zone --filters Name=instance-type,Values=${types.length ? types.map(shellArg).join(',') : '<instance-type>'}${f.region}`,
          ],
        },
        {
          title: 'Make the NodePool more flexible',
          detail:
            'Allow more instance families and sizes, every zone of the cluster, and both spot and on-demand where the workload can use them.',
          commands: [`kubectl edit nodepool ${f.first('nodepools', '<nodepool-name>')}`],
        },
      ],
      docs: [DOCS.karpenterNodePools, DOCS.launchTroubleshooting],
    };
  },

  'ec2-quota-exceeded': (f) => {
    const quota = ec2QuotaFor(f.all('quotas')[0], f.all('instanceTypes')[0]);
    const current = f.context.quotas?.find((q) => q.quotaCode === quota.code)?.value;
    return {
      diagnosis:
        `An EC2 service quota${f.where('quotas', '')} stops new instances` +
        `${current !== undefined ? ` (the ${quota.name} quota is ${current} today)` : ''}. Karpenter cannot launch ` +
        `more capacity of this kind in the account and region until the quota is raised or capacity is freed.`,
      remediation: [
        {
          title: 'See the current quota',
          detail: `The quota that applies: ${quota.name}.`,
          commands: [`aws service-quotas get-service-quota --service-code ec2 --quota-code ${quota.code}${f.region}`],
        },
        {
          title: 'Request an increase',
          detail:
            'Ask for enough for the NodePool limits. The request-quota-increase action can file it, up to a configured cap.',
          commands: [
            `aws service-quotas request-service-quota-increase --service-code ec2 --quota-code ${quota.code} --desired-value <new-value>${f.region}`,
          ],
          action: 'request-quota-increase',
        },
      ],
      docs: [DOCS.quotaIncrease, DOCS.launchTroubleshooting],
    };
  },

  'nodepool-limits-exceeded': (f) => {
    const pool = f.first('nodepools', '<nodepool-name>');
    return {
      diagnosis:
        `NodePool${f.where('nodepools', '')} has reached its resource limits: every instance type that fits the pending ` +
        `pods would take it past spec.limits, so Karpenter launches nothing more for it.`,
      remediation: [
        {
          title: 'Compare the limits with what the NodePool uses',
          detail: 'status.resources is what its nodes use now.',
          commands: [`kubectl get nodepool ${pool} -o jsonpath='{.spec.limits}{"\\n"}{.status.resources}{"\\n"}'`],
        },
        {
          title: 'Raise the limits, or let another NodePool take the pods',
          detail:
            'Raise spec.limits if the spend is intended; otherwise check why the NodePool grew (consolidation blocked, oversized requests).',
          commands: [`kubectl patch nodepool ${pool} --type merge -p '{"spec":{"limits":{"cpu":"<new-cpu-limit>"}}}'`],
        },
      ],
      docs: [DOCS.karpenterNodePools],
    };
  },

  'aws-permission-denied': (f) => {
    const actions = f.all('iamActions');
    const role = f.all('roles')[0];
    const roleArn = role ? shellArg(role) : '<karpenter-controller-role-arn>';
    const spotLinkedRole = f.all('errorCodes').some((code) => code.includes('ServiceLinkedRole'));
    const steps: RemediationStep[] = [
      {
        title: 'Check the controller role against the denied action',
        detail: 'The simulator says which statement denies it (or that none allows it).',
        commands: [
          `aws iam simulate-principal-policy --policy-source-arn ${roleArn} --action-names ${actions.length ? actions.map(shellArg).join(' ') : '<service:Action>'}`,
          "aws sts decode-authorization-message --encoded-message '<encoded-message>'",
        ],
      },
      {
        title: 'Grant the action in the Karpenter controller policy',
        detail:
          'Compare the policy with the one published for your Karpenter version (getting-started CloudFormation template) and add what is missing.',
        commands: [],
      },
    ];
    if (spotLinkedRole) {
      steps.unshift({
        title: 'Create the EC2 Spot service-linked role',
        detail: 'The account has never used Spot and the controller may not create the service-linked role.',
        commands: ['aws iam create-service-linked-role --aws-service-name spot.amazonaws.com'],
      });
    }
    return {
      diagnosis:
        `AWS denied Karpenter${actions.length ? ` ${f.list('iamActions')}` : ' an API call'}${role ? ` (role ${role})` : ''}` +
        `${f.where('errorCodes', ':')}. Karpenter cannot launch, price or clean up instances without it.`,
      remediation: steps,
      docs: [DOCS.accessDenied, DOCS.karpenterTroubleshooting],
    };
  },

  'aws-api-unreachable': (f) => ({
    diagnosis:
      `Karpenter cannot reach${f.all('endpoints').length ? ` ${f.list('endpoints')}` : ' AWS APIs or the cluster endpoint'}: ` +
      `requests time out or credentials cannot be fetched. In private clusters this means a missing VPC endpoint ` +
      `(sts, ec2, ssm, sqs, eks) or a security group that blocks it; elsewhere, IRSA or Pod Identity is misconfigured.`,
    remediation: [
      {
        title: 'Check the VPC endpoints of the cluster VPC',
        detail:
          'Private clusters need interface endpoints for sts, ec2, ssm and sqs, and the cluster endpoint set in the chart (settings.clusterEndpoint).',
        commands: [
          `aws eks describe-cluster --name ${f.cluster} --query 'cluster.resourcesVpcConfig'${f.region}`,
          `aws ec2 describe-vpc-endpoints --filters Name=vpc-id,Values=<vpc-id> --query 'VpcEndpoints[].ServiceName'${f.region}`,
        ],
      },
      {
        title: 'Check the controller identity',
        detail:
          'With IRSA the service account carries eks.amazonaws.com/role-arn; with Pod Identity an association exists.',
        commands: [
          'kubectl -n karpenter get serviceaccount karpenter -o yaml',
          `aws eks list-pod-identity-associations --cluster-name ${f.cluster}${f.region}`,
        ],
      },
    ],
    docs: [DOCS.privateClusters, DOCS.karpenterTroubleshooting],
  }),

  'launch-template-or-ami-error': (f) => {
    const nodeclass = f.first('nodeclasses', '<ec2nodeclass-name>');
    const amis = f.all('amis');
    return {
      diagnosis:
        `EC2 rejected the launch configuration${f.where('errorCodes', ':')}${amis.length ? ` (AMIs ${f.list('amis')})` : ''}. ` +
        `The EC2NodeClass resolves to an AMI, block device mapping or user data that does not fit the instance types ` +
        `(for example an arm64 AMI for amd64 types), or that no longer exists.`,
      remediation: [
        {
          title: 'Read the EC2NodeClass status',
          detail: 'Its conditions and status.amis show what was resolved.',
          commands: [`kubectl describe ec2nodeclass ${nodeclass}`],
        },
        {
          title: 'Check the AMIs against the NodePool architecture',
          detail: 'The AMI architecture must match the kubernetes.io/arch requirement of the NodePool.',
          commands: [
            `aws ec2 describe-images --image-ids ${amis.length ? amis.map(shellArg).join(' ') : '<ami-id>'} --query 'Images[].{Id:ImageId,Arch:Architecture,State:State,Name:Name}' --output table${f.region}`,
          ],
        },
      ],
      docs: [DOCS.karpenterNodeClasses, DOCS.launchTroubleshooting],
    };
  },

  'nodeclass-not-ready': (f) => ({
    diagnosis:
      `Karpenter has no usable NodePool${f.where('nodeclasses', ': EC2NodeClass')}${f.paren('nodepools', 'NodePool')} ` +
      `is missing or not ready, so no nodes can be launched for it.`,
    remediation: [
      {
        title: 'See which NodePool and EC2NodeClass are not ready, and why',
        detail: 'The Ready condition message names the missing subnets, security groups, AMIs or instance profile.',
        commands: [
          'kubectl get nodepools,ec2nodeclasses',
          `kubectl describe ec2nodeclass ${f.first('nodeclasses', '<ec2nodeclass-name>')}`,
          'kubectl get nodepools -o jsonpath=\'{range .items[*]}{.metadata.name}{" -> "}{.spec.template.spec.nodeClassRef.name}{"\\n"}{end}\'',
        ],
      },
    ],
    docs: [DOCS.karpenterNodeClasses, DOCS.karpenterNodePools],
  }),

  'subnet-or-security-group-not-found': (f) => {
    const tag = f.all('tags')[0];
    const [tagKey, tagValue] = tag
      ? [tag.slice(0, tag.indexOf(':')), tag.slice(tag.indexOf(':') + 1)]
      : ['karpenter.sh/discovery', f.input.cluster];
    return {
      diagnosis:
        `The EC2NodeClass${f.where('nodeclasses', '')} selects no subnets or no security groups` +
        `${tag ? ` (selector ${tag})` : ''}, so Karpenter has nowhere to launch. The discovery tags are missing or do not match.`,
      remediation: [
        {
          title: 'See what the selector finds',
          detail: 'Both lists must be non-empty.',
          commands: [
            `aws ec2 describe-subnets --filters Name=tag:${shellArg(tagKey)},Values=${shellArg(tagValue)} --query 'Subnets[].{Subnet:SubnetId,AZ:AvailabilityZone,Free:AvailableIpAddressCount}' --output table${f.region}`,
            `aws ec2 describe-security-groups --filters Name=tag:${shellArg(tagKey)},Values=${shellArg(tagValue)} --query 'SecurityGroups[].GroupId'${f.region}`,
          ],
        },
        {
          title: 'Tag the cluster subnets and node security group',
          detail:
            'Or change subnetSelectorTerms / securityGroupSelectorTerms of the EC2NodeClass to match existing tags.',
          commands: [
            `aws ec2 create-tags --resources <subnet-id> <security-group-id> --tags Key=${shellArg(tagKey)},Value=${shellArg(tagValue)}${f.region}`,
          ],
        },
      ],
      docs: [DOCS.karpenterNodeClasses],
    };
  },

  'interruption-queue-error': (f) => {
    const queue = f.first('queues', '<queue-name>');
    return {
      diagnosis:
        `Karpenter cannot use its interruption queue${f.where('queues', '')}: the queue is missing, or it receives ` +
        `messages that are not the EC2 events Karpenter expects. Spot interruptions and rebalance notices are then missed.`,
      remediation: [
        {
          title: 'Check that the queue exists and what sends to it',
          detail: 'Only the EventBridge rules for Karpenter should target the queue.',
          commands: [
            `aws sqs get-queue-url --queue-name ${queue}${f.region}`,
            `aws events list-rule-names-by-target --target-arn arn:aws:sqs:<region>:<account>:${queue}${f.region}`,
          ],
        },
        {
          title: 'Point Karpenter at the right queue',
          detail: 'The chart value settings.interruptionQueue must name the queue created for the cluster.',
          commands: ['kubectl -n karpenter get deployment karpenter -o yaml | grep -A1 INTERRUPTION_QUEUE'],
        },
      ],
      docs: [`${DOCS.karpenterDisruption}`],
    };
  },

  'webhook-tls-error': () => ({
    diagnosis:
      'Calls to a webhook fail on TLS (unknown authority or expired certificate). Stale Karpenter webhook configurations ' +
      'left from an upgrade, or a certificate the API server does not trust, block creating or updating Karpenter resources.',
    remediation: [
      {
        title: 'List the webhook configurations that point at Karpenter',
        detail: 'Configurations from older versions can outlive the upgrade.',
        commands: ['kubectl get validatingwebhookconfigurations,mutatingwebhookconfigurations | grep -i karpenter'],
      },
      {
        title: 'Remove stale ones and let Karpenter reissue its certificate',
        detail: 'Delete only configurations your installed version no longer ships, then restart the controller.',
        commands: ['kubectl -n karpenter rollout restart deployment karpenter'],
      },
    ],
    docs: [DOCS.karpenterTroubleshooting],
  }),

  'leader-election-lost': () => ({
    diagnosis:
      'Karpenter cannot renew its leader lease, so the controller restarts and stops provisioning meanwhile. The API ' +
      'server is slow or unreachable from the pod, or the controller is starved of CPU.',
    remediation: [
      {
        title: 'Check the lease and the controller pods',
        detail: 'Frequent restarts and CPU throttling show in the pod status and metrics.',
        commands: [
          'kubectl -n karpenter get lease karpenter-leader-election -o yaml',
          'kubectl -n karpenter get pods -o wide',
          'kubectl -n karpenter top pod',
        ],
      },
      {
        title: 'Give the controller room',
        detail:
          'Raise the CPU request of the controller (controller.resources in the chart) and check API server health.',
        commands: ["kubectl get --raw='/readyz?verbose'"],
      },
    ],
    docs: [DOCS.leases, DOCS.karpenterTroubleshooting],
  }),

  'volume-zone-conflict': (f) => {
    const w = f.workload();
    return {
      diagnosis:
        `Pods${f.where('workloads', 'of')} use a volume bound to one Availability Zone, but the nodes (or NodePools) ` +
        `that could take them are in other zones. An EBS volume can only attach in its own zone.`,
      remediation: [
        {
          title: 'See the zone of the volume',
          detail: 'The PersistentVolume node affinity names the zone.',
          commands: [
            `kubectl -n ${w.namespace} get pvc`,
            `kubectl get pv ${f.first('volumes', '<pv-name>')} -o jsonpath='{.spec.nodeAffinity}'`,
          ],
        },
        {
          title: 'Allow that zone in a NodePool, and bind new volumes late',
          detail:
            'Use volumeBindingMode: WaitForFirstConsumer in the StorageClass so new volumes are created where the pod lands.',
          commands: ['kubectl get storageclass -o custom-columns=NAME:.metadata.name,BINDING:.volumeBindingMode'],
        },
      ],
      docs: [DOCS.karpenterScheduling, DOCS.ebsCsi],
    };
  },

  'node-disk-pressure': (f) => ({
    diagnosis:
      `Nodes${f.where('nodes', '')} are short of disk: image garbage collection cannot free enough space, and the ` +
      `kubelet evicts pods. The root volume of the EC2NodeClass is too small for the images in use.`,
    remediation: [
      {
        title: 'See the disk pressure on the node',
        detail: 'Check the DiskPressure condition and the images it holds.',
        commands: [`kubectl describe node ${f.first('nodes', '<node-name>')}`],
      },
      {
        title: 'Give nodes a larger root volume',
        detail: 'Raise blockDeviceMappings[].ebs.volumeSize in the EC2NodeClass; new nodes get the larger disk.',
        commands: [`kubectl edit ec2nodeclass ${f.first('nodeclasses', '<ec2nodeclass-name>')}`],
      },
    ],
    docs: [DOCS.nodePressure, DOCS.karpenterNodeClasses],
  }),

  'windows-ipam-not-enabled': () => ({
    diagnosis:
      'Pods on Windows nodes cannot get an IP address: the vpc-bridge CNI finds no address because Windows IPAM is not ' +
      'enabled in the VPC CNI configuration.',
    remediation: [
      {
        title: 'Enable Windows IPAM',
        detail: 'Set enable-windows-ipam in the amazon-vpc-cni ConfigMap, then recreate the failing pods.',
        commands: [
          `kubectl -n kube-system patch configmap amazon-vpc-cni --type merge -p '{"data":{"enable-windows-ipam":"true"}}'`,
        ],
      },
    ],
    docs: [DOCS.windows],
  }),

  'prefix-delegation-fragmentation': (f) => ({
    diagnosis:
      `With prefix delegation, the VPC CNI needs free contiguous /28 blocks, and subnets${f.where('subnets', '')} ` +
      `have none left even though single IPs are free. AvailableIpAddressCount is not proof of capacity here.`,
    remediation: [
      {
        title: 'Reserve prefix space in the subnets, or add subnets',
        detail: 'A subnet CIDR reservation of type prefix keeps a range for /28 prefixes.',
        commands: [
          `aws ec2 create-subnet-cidr-reservation --subnet-id ${f.first('subnets', '<subnet-id>')} --cidr <reserved-cidr> --reservation-type prefix${f.region}`,
        ],
        action: 'plan-subnet-capacity',
      },
    ],
    docs: [DOCS.prefixDelegation, DOCS.vpcCidrs],
  }),

  'subnet-ip-headroom-low': (f) => {
    const facts = f.context.subnets ?? [];
    const low = f.all('subnets');
    const shown = low.length ? facts.filter((s) => low.includes(s.subnetId)) : facts;
    return {
      diagnosis:
        `${low.length > 1 ? 'Subnets' : 'The subnets'} Karpenter launches into ${low.length ? `(${f.list('subnets')}) ` : ''}` +
        `are running low on free IP addresses${describeSubnetFacts(shown)}. New nodes and pods will fail with ` +
        `InsufficientFreeAddressesInSubnet once they run out.${roomElsewhere(facts, low)}`,
      remediation: DIAGNOSERS['subnet-ip-exhaustion'](f).remediation,
      docs: [DOCS.vpcCidrs, DOCS.customNetworking],
    };
  },
};

function raiseNodegroupStep(f: Facts, group?: NodegroupFacts): RemediationStep {
  if (group?.kind === 'managed') {
    const max = group.maxSize ?? 2;
    const min = Math.min(Math.max((group.minSize ?? 0) + 1, 2), max);
    return {
      title: `Raise the minimum size of node group ${group.name}`,
      detail: `Managed node group: min ${group.minSize ?? '?'}, desired ${group.desiredSize ?? '?'}, max ${group.maxSize ?? '?'}. Two nodes give room for both replicas.`,
      commands: [
        `aws eks update-nodegroup-config --cluster-name ${f.cluster} --nodegroup-name ${shellArg(group.name)} --scaling-config minSize=${min},maxSize=${Math.max(max, min)},desiredSize=${Math.max(min, group.desiredSize ?? 0)}${f.region}`,
      ],
      action: 'raise-system-nodegroup',
    };
  }
  const asg = group?.autoScalingGroups[0] ? shellArg(group.autoScalingGroups[0]) : '<node-group-asg-name>';
  return {
    title: group
      ? `Raise the minimum size of node group ${group.name}`
      : 'Scale out the node group that runs Karpenter',
    detail: group
      ? `Auto Scaling group ${group.autoScalingGroups.join(', ')}: min ${group.minSize ?? '?'}, desired ${group.desiredSize ?? '?'}, max ${group.maxSize ?? '?'}.`
      : 'Raise the minimum of the Auto Scaling group (or managed node group) that runs the controller, so both replicas fit.',
    commands: [
      `aws autoscaling update-auto-scaling-group --auto-scaling-group-name ${asg} --min-size 2 --desired-capacity 2${f.region}`,
      ...(group ? [] : [`aws eks list-nodegroups --cluster-name ${f.cluster}${f.region}`]),
    ],
    action: 'raise-system-nodegroup',
  };
}

function limitRangeStep(namespace: string): RemediationStep {
  return {
    title: 'Set default requests for the namespace with a LimitRange',
    detail:
      `A LimitRange gives containers without requests a default, so they are packed accurately:\n` +
      `apiVersion: v1\nkind: LimitRange\nmetadata:\n  name: default-requests\n  namespace: ${namespace}\nspec:\n  limits:\n` +
      `    - type: Container\n      defaultRequest:\n        cpu: 100m\n        memory: 128Mi\n      default:\n        memory: 512Mi`,
    commands: [`kubectl -n ${namespace} get limitrange`],
  };
}

/** Names the other Karpenter subnets that still have room, so the reader knows which zones can still launch. */
function roomElsewhere(facts: SubnetFacts[], failing: string[]): string {
  if (failing.length === 0) return '';
  const roomy = facts
    .filter((s) => !failing.includes(s.subnetId) && (s.availableIps ?? 0) >= ROOMY_SUBNET_IPS)
    .sort((a, b) => (b.availableIps ?? 0) - (a.availableIps ?? 0));
  if (roomy.length === 0) {
    return facts.length > failing.length ? ' None of the other known Karpenter subnets has room either.' : '';
  }
  const list = roomy
    .slice(0, 3)
    .map((s) => `${s.subnetId}${s.availabilityZone ? ` (${s.availabilityZone})` : ''}: ${s.availableIps} free`)
    .join('; ');
  return ` Other Karpenter subnets still have room (${list}): Karpenter keeps launching there unless zone or topology constraints pin pods to the full zones.`;
}

/** Free IPs below which a subnet is not worth pointing at: one node with a handful of pods takes more. */
const ROOMY_SUBNET_IPS = 32;

function describeSubnetFacts(facts: SubnetFacts[]): string {
  const known = facts.filter((s) => s.availableIps !== undefined);
  if (known.length === 0) return '';
  const parts = known
    .slice(0, 6)
    .map(
      (s) =>
        `${s.subnetId}${s.availabilityZone ? ` (${s.availabilityZone})` : ''}: ${s.availableIps}${s.totalIps ? ` of ${s.totalIps}` : ''} free` +
        (s.hoursToExhaustion !== undefined && s.ipsPerHour !== undefined
          ? `, about ${s.hoursToExhaustion} h left at ${Math.abs(s.ipsPerHour)} fewer an hour`
          : ''),
    );
  return ` (${parts.join('; ')})`;
}

const SYSTEM_TAINT_PREFIXES = [
  'node.kubernetes.io/',
  'node.cloudprovider.kubernetes.io/',
  'karpenter.sh/',
  'eks.amazonaws.com/compute-type',
  'ebs.csi.aws.com/',
];
const isSystemTaint = (taint: string): boolean => SYSTEM_TAINT_PREFIXES.some((prefix) => taint.startsWith(prefix));

const taintKey = (taint: string): string => taint.split(/[=:]/)[0]!;

/** `key=value:Effect` → `key:Effect-`; without an effect, `key-` removes the key whatever its effect. */
function taintRemoval(taint: string): string {
  const effect = /:(NoSchedule|PreferNoSchedule|NoExecute)$/.exec(taint)?.[1];
  return effect ? `${taintKey(taint)}:${effect}-` : `${taintKey(taint)}-`;
}

function tolerationYaml(taint: string | undefined): string {
  if (!taint) return 'tolerations:\n  - key: "<taint-key>"\n    operator: "Exists"';
  const effect = /:(NoSchedule|PreferNoSchedule|NoExecute)$/.exec(taint)?.[1];
  const withoutEffect = effect ? taint.slice(0, -(effect.length + 1)) : taint;
  const [key, value] = withoutEffect.includes('=') ? withoutEffect.split('=', 2) : [withoutEffect, undefined];
  return [
    'tolerations:',
    `  - key: ${JSON.stringify(key)}`,
    value ? `    operator: "Equal"\n    value: ${JSON.stringify(value)}` : '    operator: "Exists"',
    ...(effect ? [`    effect: "${effect}"`] : []),
  ].join('\n');
}

/** The EC2 vCPU quota for an instance family (Service Quotas codes for EC2); the enrichment reads its value. */
export function ec2QuotaFor(
  code: string | undefined,
  instanceType: string | undefined,
): { code: string; name: string } {
  const spot = code === 'MaxSpotInstanceCountExceeded';
  const family = instanceType?.split('.')[0]?.replace(/\d.*$/, '') ?? '';
  if (family === 'g' || family === 'vt') {
    return spot
      ? { code: 'L-3819A6DF', name: 'All G and VT Spot Instance Requests' }
      : { code: 'L-DB2E81BA', name: 'Running On-Demand G and VT instances' };
  }
  if (family === 'p') {
    return spot
      ? { code: 'L-7212CCBC', name: 'All P Spot Instance Requests' }
      : { code: 'L-417A185B', name: 'Running On-Demand P instances' };
  }
  return spot
    ? { code: 'L-34B43A08', name: 'All Standard (A, C, D, H, I, M, R, T, Z) Spot Instance Requests' }
    : { code: 'L-1216C47A', name: 'Running On-Demand Standard (A, C, D, H, I, M, R, T, Z) instances' };
}
