import { analyzeMessages } from '../../../lambdas/core/analyze';
import { emptyContext, type FindingContext } from '../../../lambdas/core/findings/context';
import { buildFinding, type Finding } from '../../../lambdas/core/findings/finding';
import { MANAGED_AT_MAX, SELF_MANAGED_SYSTEM } from '../../support/live-facts';

/**
 * The seed article's remedies (the AWS Knowledge Center article on troubleshooting Karpenter scaling),
 * scenario by scenario (§1-§13): each scenario's failure in the emitter's real wording goes through the whole pipeline
 * (analyze → finding), and the finding must carry the seed's remedy in its current form — the command
 * verb and resource, the object named in the record, the API field that makes the fix — or, where the
 * seed's advice is outdated or harmful, the durable fix instead and never the harmful command.
 *
 * seed.test.ts checks the rule each seed message yields; this checks what the finding tells you to do.
 */

function findings(lines: readonly string[], context?: Omit<FindingContext, 'enrichmentErrors'>): Finding[] {
  const { incidents } = analyzeMessages(
    lines.map((message, i) => ({ message, origin: { file: 'seed.txt', line: i + 1 } })),
    'prod',
  );
  return incidents.map((incident) =>
    buildFinding(incident, {
      region: 'us-west-2',
      context: context ? { ...emptyContext(), ...context, enrichmentErrors: [] } : emptyContext(),
    }),
  );
}

/** The one finding of the lines, of the rule the seed section stands for (or with it among its causes). */
function findingOf(rule: string, lines: readonly string[], context?: Omit<FindingContext, 'enrichmentErrors'>) {
  const all = findings(lines, context);
  const found = all.filter((f) => f.rule === rule || (f.causes ?? []).includes(rule as never));
  expect(found.map((f) => f.rule)).toHaveLength(1);
  return found[0]!;
}

const commands = (f: Finding): string[] => f.remediation.flatMap((step) => step.commands);
const details = (f: Finding): string => f.remediation.map((step) => step.detail).join('\n');
/** The one command that matches, so a remedy printed twice (or not at all) fails. */
function command(f: Finding, pattern: RegExp): string {
  const matching = commands(f).filter((c) => pattern.test(c));
  expect(matching).toHaveLength(1);
  return matching[0]!;
}
const numberArg = (c: string, name: string) => Number(new RegExp(`(?:--${name}[ =]|\\b${name}=)(\\d+)`).exec(c)?.[1]);

/** A YAML block of a step's detail, from its first line (`tolerations:`) to the end of its indentation. */
function yamlBlock(f: Finding, first: string): string {
  const text = details(f);
  const start = text.indexOf(`\n${first}`) >= 0 ? text.indexOf(`\n${first}`) + 1 : text.indexOf(first);
  expect(start).toBeGreaterThanOrEqual(0);
  const lines = text.slice(start).split('\n');
  const end = lines.findIndex((line, i) => i > 0 && !/^(?:\s|[A-Za-z][\w.-]*:(?:\s|$))/.test(line));
  return lines.slice(0, end < 0 ? undefined : end).join('\n');
}

const KARPENTER_POD_DESCRIBE = [
  'Name:             karpenter-5f689ff758-jhxdr',
  'Namespace:        kube-system',
  'Status:           Pending',
  'Events:',
  '  Type     Reason            Age   From               Message',
  '  ----     ------            ----  ----               -------',
  '  Warning  FailedScheduling  3m    default-scheduler  0/1 nodes are available: 1 Insufficient memory',
];

describe('§1 Karpenter pods cannot be scheduled: not enough node group capacity', () => {
  const rule = 'karpenter-controller-unschedulable';

  it('raises the self-managed group from its live sizes (never the seed\'s fixed "--min-size 2 --desired-capacity 2")', () => {
    // Live: min 3, desired 5, max 6. The seed's command would take the group from 5 nodes to 2.
    const f = findingOf(rule, KARPENTER_POD_DESCRIBE, { nodegroups: [SELF_MANAGED_SYSTEM] });
    const raise = command(f, /^aws autoscaling update-auto-scaling-group /);
    expect(raise).toContain('--auto-scaling-group-name eks-system-asg-7f3a');
    expect(numberArg(raise, 'min-size')).toBe(4);
    expect(numberArg(raise, 'desired-capacity') || SELF_MANAGED_SYSTEM.desiredSize).toBeGreaterThanOrEqual(5);
  });

  it("raises the maximum of a managed group at 1/1/1 with the minimum (the seed's sizes would be a no-op)", () => {
    const f = findingOf(rule, KARPENTER_POD_DESCRIBE, { nodegroups: [MANAGED_AT_MAX] });
    const raise = command(f, /^aws eks update-nodegroup-config /);
    expect(raise).toContain('--nodegroup-name system');
    expect(numberArg(raise, 'minSize')).toBe(2);
    expect(numberArg(raise, 'maxSize')).toBeGreaterThanOrEqual(2);
    expect(numberArg(raise, 'desiredSize')).toBeGreaterThanOrEqual(2);
  });

  it('without live sizes, reads them first and fills in no number', () => {
    const f = findingOf(rule, KARPENTER_POD_DESCRIBE);
    expect(command(f, /^aws eks describe-nodegroup /)).toContain("--query 'nodegroup.scalingConfig'");
    const raise = command(f, /^aws eks update-nodegroup-config /);
    expect(raise).not.toMatch(/=\d/);
  });

  it("one replica through the chart, in the controller's own namespace (the seed's kubectl scale is undone by Helm)", () => {
    const f = findingOf(rule, KARPENTER_POD_DESCRIBE);
    const helm = command(f, /^helm .*upgrade /);
    expect(helm).toMatch(/^helm -n kube-system upgrade karpenter /);
    expect(helm).toContain('--set replicas=1');
    expect(helm).toContain('--reuse-values');
    expect(commands(f).filter((c) => /^kubectl .*scale\b/.test(c))).toEqual([]);
  });

  it('checks which nodes Karpenter manages (the seed\'s "kubectl get nodes --show-labels | grep karpenter.sh/nodepool")', () => {
    const f = findingOf(rule, KARPENTER_POD_DESCRIBE);
    expect(command(f, /^kubectl get nodes /)).toMatch(/-L karpenter\.sh\/nodepool\b/);
  });

  it('gives the durable fix, not the seed\'s "kubectl label nodes … karpenter.sh/nodepool-", and says why', () => {
    const f = findingOf(rule, KARPENTER_POD_DESCRIBE);
    expect(commands(f).filter((c) => /karpenter\.sh\/nodepool-/.test(c))).toEqual([]);
    expect(details(f)).toMatch(/voluntary disruption/);
    expect(command(f, /^aws eks create-fargate-profile /)).toContain('--selectors namespace=kube-system,');
  });
});

describe('§2 volume attach and mount failures of PVC-heavy pods', () => {
  const ATTACH = [
    '{"kind":"Event","involvedObject":{"kind":"Pod","namespace":"data","name":"postgres-2"},"reason":"FailedAttachVolume","type":"Warning","source":{"component":"attachdetach-controller"},"message":"AttachVolume.Attach failed for volume \\"pvc-0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0\\" : rpc error: code = Internal desc = Could not attach volume \\"vol-0abc123def4567890\\" to node \\"i-0123456789abcdef0\\": attachment of disk \\"vol-0abc123def4567890\\" failed, expected device to be attached but was attaching"}',
  ];
  const MOUNT = [
    '{"kind":"Event","involvedObject":{"kind":"Pod","namespace":"data","name":"postgres-2"},"reason":"FailedMount","type":"Warning","source":{"component":"kubelet"},"message":"Unable to attach or mount volumes: unmounted volumes=[data], unattached volumes=[data kube-api-access-x7k2p]: timed out waiting for the condition"}',
  ];

  it('attach: spreads the pods (topologySpreadConstraints, podAntiAffinity) and adds the EBS CSI startup taint to the NodePool', () => {
    const f = findingOf('volume-attach-limit', ATTACH);
    expect(details(f)).toMatch(/topologySpreadConstraints/);
    expect(details(f)).toMatch(/podAntiAffinity/);
    const taint = yamlBlock(f, 'spec:');
    expect(taint).toMatch(/startupTaints:\n\s+- key: ebs\.csi\.aws\.com\/agent-not-ready\n\s+effect: NoExecute/);
    expect(command(f, /^kubectl edit nodepool /)).toBeDefined();
    expect(f.remediation.find((s) => s.commands.some((c) => c.startsWith('kubectl edit nodepool')))!.detail).toMatch(
      /drift/,
    );
  });

  it('attach: counts what the node can take against what it has, for the volume and node of the record', () => {
    const f = findingOf('volume-attach-limit', ATTACH);
    expect(command(f, /^kubectl get csinode /)).toContain('ebs.csi.aws.com');
    expect(command(f, /^kubectl get volumeattachments/)).toBeDefined();
  });

  it('mount: the same spread and startup taint, and the stuck pod described in its own namespace', () => {
    const f = findingOf('volume-mount-timeout', MOUNT);
    expect(details(f)).toMatch(/topologySpreadConstraints/);
    expect(details(f)).toMatch(/podAntiAffinity/);
    expect(details(f)).toContain('ebs.csi.aws.com/agent-not-ready:NoExecute');
    expect(command(f, /^kubectl .*describe pod /)).toBe('kubectl -n data describe pod postgres-2');
  });
});

describe('§3 deprecated in-tree storage plugin', () => {
  // Karpenter v0.2x-v0.3x (pkg/scheduling/volumeusage.go), with the fields it logs.
  const LINE =
    '2023-04-05T23:56:53.363Z        ERROR   controller.node_state   PersistentVolume source \'AWSElasticBlockStore\' uses an in-tree storage plugin which is unsupported by Karpenter and is deprecated by Kubernetes. Scale-ups may fail because Karpenter will not discover driver limits. Use a PersistentVolume that references the \'CSIPersistentVolumeSource\' instead      {"commit": "d7e22b1", "pod": "default/inflate0-6c4bdb8b75-7qmfd", "volume": "mypd", "persistent-volume": "pvc-11db7489-3c6e-46f3-a958-91f9d5009d41"}';

  it('installs the EBS CSI driver with its IAM role', () => {
    const f = findingOf('in-tree-storage-plugin', [LINE]);
    const addon = command(f, /^aws eks create-addon /);
    expect(addon).toContain('--addon-name aws-ebs-csi-driver');
    expect(addon).toMatch(
      /--pod-identity-associations serviceAccount=ebs-csi-controller-sa,roleArn=|--service-account-role-arn /,
    );
  });

  it('moves the named PV to the CSI driver, setting Retain first so the EBS volume survives', () => {
    const f = findingOf('in-tree-storage-plugin', [LINE]);
    const retain = command(f, /^kubectl patch pv /);
    expect(retain).toContain('kubectl patch pv pvc-11db7489-3c6e-46f3-a958-91f9d5009d41 ');
    expect(retain).toContain('"persistentVolumeReclaimPolicy":"Retain"');
    expect(details(f)).toMatch(/spec\.csi/);
    expect(details(f)).toMatch(/ebs\.csi\.aws\.com/);
    expect(commands(f).filter((c) => /kubectl patch pv mypd\b/.test(c))).toEqual([]);
  });
});

describe('§4 unspecified resource requests: OOM kills', () => {
  const OOM = [
    '{"kind":"Event","involvedObject":{"kind":"Pod","namespace":"shop","name":"checkout-7d9f8c6b5d-x2z4q"},"reason":"OOMKilled","type":"Warning","message":"Container \\"checkout\\" was killed due to OOM (Out of Memory). Memory limit: 512Mi, Memory usage: 513Mi"}',
  ];

  it('gives the namespace a LimitRange of default requests, without the default memory limit that causes OOM kills', () => {
    const f = findingOf('oom-killed', OOM);
    const limitRange = yamlBlock(f, 'apiVersion: v1');
    expect(limitRange).toMatch(/kind: LimitRange/);
    expect(limitRange).toMatch(/namespace: shop/);
    expect(limitRange).toMatch(/defaultRequest:\n\s+cpu: \S+\n\s+memory: \S+/);
    expect(limitRange).not.toMatch(/\bdefault:/);
    expect(command(f, /get limitrange/)).toBe('kubectl -n shop get limitrange');
  });

  it("raises the request of the workload that owns the pod, in the pod's namespace", () => {
    const f = findingOf('oom-killed', OOM);
    expect(command(f, /^kubectl .*describe pod /)).toBe('kubectl -n shop describe pod checkout-7d9f8c6b5d-x2z4q');
    const change = commands(f).filter((c) => /^kubectl .*(edit|set resources) /.test(c));
    expect(change.length).toBeGreaterThan(0);
    for (const c of change) expect(c).toMatch(/^kubectl -n shop .*deployment.? checkout\b/);
  });
});

describe('§5 Windows pods: image pull fails for the OS version', () => {
  const PULL = [
    '{"kind":"Event","involvedObject":{"kind":"Pod","namespace":"win","name":"iis-6b7c8d9f5b-x2z4q"},"reason":"Failed","type":"Warning","source":{"component":"kubelet"},"message":"Failed to pull image \\"mcr.microsoft.com/windows/servercore:ltsc2022\\": rpc error: code = NotFound desc = failed to pull and unpack image \\"mcr.microsoft.com/windows/servercore:ltsc2022\\": no match for platform in manifest: not found"}',
  ];

  it("pins the pods with a nodeSelector on the host's Windows build", () => {
    const f = findingOf('windows-image-platform-mismatch', PULL);
    const selector = yamlBlock(f, 'nodeSelector:');
    expect(selector).toMatch(/kubernetes\.io\/os: windows/);
    expect(selector).toMatch(/node\.kubernetes\.io\/windows-build: /);
    expect(command(f, /^kubectl get nodes /)).toContain('-L node.kubernetes.io/windows-build');
    for (const c of commands(f).filter((c) => / edit /.test(c))) expect(c).toBe('kubectl -n win edit deployment iis');
  });
});

describe('§6 nodes not initialised: NotReady', () => {
  const NOT_READY = [
    '{"kind":"Event","involvedObject":{"kind":"Node","name":"ip-10-0-1-7.us-west-2.compute.internal"},"reason":"NodeNotReady","type":"Normal","source":{"component":"node-controller"},"message":"Node ip-10-0-1-7.us-west-2.compute.internal status is now: NodeNotReady"}',
  ];

  it("checks the node's Ready condition, its kubelet log, its registered resources and the DaemonSets that register them", () => {
    const f = findingOf('node-not-ready', NOT_READY);
    expect(command(f, /^kubectl describe node /)).toBe('kubectl describe node ip-10-0-1-7.us-west-2.compute.internal');
    expect(command(f, /^journalctl /)).toMatch(/-u kubelet/);
    expect(command(f, /^kubectl get ds /)).toBeDefined();
    expect(command(f, /allocatable/)).toContain('kubectl get node ip-10-0-1-7.us-west-2.compute.internal ');
  });
});

describe('§7 pod affinity, anti-affinity or topology spread cannot be satisfied', () => {
  const SEED =
    '{"kind":"Event","involvedObject":{"kind":"Pod","namespace":"shop","name":"checkout-7d9f8c6b5d-x2z4q"},"reason":"FailedScheduling","type":"Warning","message":"0/3 nodes are available: 1 node(s) didn\'t match pod affinity rules, 2 node(s) didn\'t match pod topology spread constraints rules, 3 node(s) didn\'t match inter-pod anti-affinity rules"}';

  it("reads the pod's affinity and topology spread, and the zones nodes and NodePools offer", () => {
    const f = findingOf('scheduling-affinity-topology', [SEED]);
    const read = command(f, /^kubectl .*get (pod|deployment) /);
    expect(read).toMatch(/^kubectl -n shop get (pod checkout-7d9f8c6b5d-x2z4q|deployment checkout) /);
    expect(read).toContain('.spec.affinity');
    expect(read).toContain('.spec.topologySpreadConstraints');
    expect(commands(f).some((c) => /^kubectl get nodes? .*topology\.kubernetes\.io\/zone/.test(c))).toBe(true);
  });

  it('relaxes the constraints by their fields (whenUnsatisfiable: ScheduleAnyway, preferred affinity) on the owner', () => {
    const f = findingOf('scheduling-affinity-topology', [SEED]);
    expect(details(f)).toContain('whenUnsatisfiable: ScheduleAnyway');
    expect(details(f)).toMatch(/preferredDuringSchedulingIgnoredDuringExecution|preferred/);
    expect(command(f, / edit /)).toBe('kubectl -n shop edit deployment checkout');
  });
});

describe('§8 not enough resources', () => {
  const SEED =
    '{"kind":"Event","involvedObject":{"kind":"Pod","namespace":"shop","name":"checkout-7d9f8c6b5d-x2z4q"},"reason":"FailedScheduling","type":"Warning","message":"0/5 nodes are available: 1 Insufficient memory. preemption: 0/5 nodes are available: 5 No preemption victims found for incoming pod"}';

  it('compares the requests with what the NodePools allow, then right-sizes the requests of the owner', () => {
    const f = findingOf('scheduling-insufficient-resources', [SEED]);
    // The owner's pod template when the pod names it, the pod otherwise.
    expect(command(f, /^kubectl .*get (pod|deployment) /)).toMatch(
      /^kubectl -n shop get (pod checkout-7d9f8c6b5d-x2z4q|deployment checkout) .*\.spec\.(template\.spec\.)?containers\[\*\]\.resources/,
    );
    expect(command(f, /^kubectl get nodepools /)).toContain('.spec.template.spec.requirements');
    expect(commands(f).some((c) => /^kubectl -n shop (edit|set resources) deployment.? checkout\b/.test(c))).toBe(true);
  });
});

describe('§9 taints keep pods off nodes', () => {
  const SEED =
    "0/5 nodes are available: 3 node(s) had taint {dedicated: gpu}, that the pod didn't tolerate, 2 node(s) had taint {dedicated: non-gpu}, that the pod didn't tolerate";

  it('adds the matching toleration to the pod template', () => {
    const f = findingOf('scheduling-untolerated-taint', [SEED]);
    const toleration = yamlBlock(f, 'tolerations:');
    expect(toleration).toMatch(/- key: "dedicated"/);
    expect(toleration).toMatch(/value: "gpu"/);
  });

  it('removes a custom taint with the seed\'s "kubectl taint nodes <node> <taint>-", once per key, after finding who sets it', () => {
    const f = findingOf('scheduling-untolerated-taint', [SEED]);
    expect(command(f, /^kubectl taint nodes /)).toBe('kubectl taint nodes <node-name> dedicated-');
    expect(command(f, /^kubectl get nodepools /)).toContain('.spec.template.spec.taints');
  });
});

describe('§10 node affinity or node selector matches no node', () => {
  const SEED =
    "Warning FailedScheduling  3m    default-scheduler 0/4 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, 3 node(s) didn't satisfy existing pods anti-affinity rules, 4 node(s) didn't match Pod's node affinity rules";

  it("reads the pod's nodeSelector and node affinity against node labels and NodePool requirements", () => {
    const f = findingOf('scheduling-node-selector-mismatch', [SEED]);
    const read = commands(f).filter((c) => /get (pod|deployment) /.test(c) && c.includes('.spec.nodeSelector'));
    expect(read).toHaveLength(1);
    expect(read[0]).toContain('.spec.affinity.nodeAffinity');
    expect(
      commands(f).some((c) => /^kubectl get nodepools /.test(c) && c.includes('.spec.template.spec.requirements')),
    ).toBe(true);
  });
});

describe('§11 not enough IP addresses in the subnet', () => {
  const SEED =
    '{"level":"ERROR","message":"creating machine, creating instance, with fleet error(s), InsufficientFreeAddressesInSubnet: There are not enough free addresses in subnet \'subnet-0783288fba3453a60\' to satisfy the requested number of instances"}';

  it('adds a secondary CIDR, with routed subnets tagged for Karpenter', () => {
    const f = findingOf('subnet-ip-exhaustion', [SEED]);
    expect(command(f, /^aws ec2 associate-vpc-cidr-block /)).toContain('--cidr-block');
    expect(command(f, /^aws ec2 create-subnet /)).toContain('--availability-zone');
    expect(command(f, /^aws ec2 associate-route-table /)).toContain('--subnet-id');
    expect(command(f, /^aws ec2 create-tags /)).toContain('Key=karpenter.sh/discovery,Value=prod');
  });

  it("custom networking: the seed's aws-node env var, with the parts without which it does nothing", () => {
    const f = findingOf('subnet-ip-exhaustion', [SEED]);
    const env = command(f, /^kubectl set env daemonset aws-node /);
    expect(env).toContain('-n kube-system');
    expect(env).toContain('AWS_VPC_K8S_CNI_CUSTOM_NETWORK_CFG=true');
    expect(env).toContain('ENI_CONFIG_LABEL_DEF=topology.kubernetes.io/zone');
    expect(yamlBlock(f, 'apiVersion: crd.k8s.amazonaws.com/v1alpha1')).toMatch(/kind: ENIConfig[\s\S]*subnet: /);
    // The seed's line is of Karpenter v0.31 or before ("creating machine"): chart values under settings.aws.
    expect(command(f, /reservedENIs/)).toMatch(/^helm .*upgrade .*--set settings\.aws\.reservedENIs=1/);
    // Where the EKS add-on owns aws-node, the same env goes through its configuration values.
    const addon = command(f, /^aws eks update-addon /);
    expect(addon).toContain('--addon-name vpc-cni');
    expect(JSON.parse(/--configuration-values '([^']+)'/.exec(addon)![1]!)).toEqual({
      env: { AWS_VPC_K8S_CNI_CUSTOM_NETWORK_CFG: 'true', ENI_CONFIG_LABEL_DEF: 'topology.kubernetes.io/zone' },
    });
  });
});

describe('§12 incompatible requirements', () => {
  it("a managed-node-group label: drops the selector on the owner, never on the pod (a pod's nodeSelector cannot be edited)", () => {
    const f = findingOf('incompatible-requirements', [
      '{"level":"ERROR","message":"could not schedule pod","Pod":{"name":"checkout-7d9f8c6b5d-x2z4q","namespace":"shop"},"error":"incompatible with nodepool \\"default\\", incompatible requirements, label \\"eks.amazonaws.com/nodegroup\\" does not have known values"}',
    ]);
    expect(command(f, /^kubectl .*get (pod|deployment) /)).toContain('.spec.nodeSelector');
    expect(command(f, / edit /)).toBe('kubectl -n shop edit deployment checkout');
    expect(commands(f).filter((c) => /edit pod\b/.test(c))).toEqual([]);
    expect(f.diagnosis).toContain('eks.amazonaws.com/nodegroup');
  });

  it('a zone: the zone the pod wants against the zones the NodePool offers, and where the EC2NodeClass has subnets', () => {
    const f = findingOf('incompatible-requirements', [
      'incompatible requirements, key topology.kubernetes.io/zone, topology.kubernetes.io/zone In [us-east-1a] not in topology.kubernetes.io/zone In [us-east-1b us-east-1c]',
    ]);
    expect(f.diagnosis).toMatch(/us-east-1a\b[^.]*us-east-1b, us-east-1c/);
    expect(command(f, /^kubectl get ec2nodeclasses /)).toContain('.status.subnets[*].zone');
  });

  it('a custom label: the value the pod requires against the value the NodePool allows', () => {
    const f = findingOf('incompatible-requirements', [
      'incompatible requirements, key nodes.ktp.io/role, nodes.ktp.io/role In [ktp-atom-apps] not in nodes.ktp.io/role In [kube-apps]',
    ]);
    expect(f.diagnosis).toMatch(/nodes\.ktp\.io\/role ktp-atom-apps\b[^.]*kube-apps/);
    expect(command(f, /^kubectl get nodepools /)).toContain('.spec.template.spec.requirements');
  });
});

describe('§13 consolidation blocked', () => {
  // sigs.k8s.io/karpenter v1.14.1 state/statenode.go and disruption events.
  it('a PDB: reads the named PDB in its namespace first, then tunes the NodePool disruption fields', () => {
    const f = findingOf('consolidation-blocked', [
      '{"kind":"Event","involvedObject":{"kind":"Node","name":"ip-10-0-1-7.us-west-2.compute.internal"},"reason":"DisruptionBlocked","type":"Normal","source":{"component":"karpenter"},"message":"Pdb prevents pod evictions (PodDisruptionBudget=[shop/checkout-pdb])"}',
    ]);
    expect(f.remediation[0]!.commands[0]).toBe('kubectl -n shop get pdb checkout-pdb -o wide');
    const patch = command(f, /^kubectl patch nodepool /);
    expect(patch).toContain('"consolidationPolicy"');
    expect(patch).toContain('"consolidateAfter"');
    expect(details(f)).toMatch(/budgets:/);
  });

  it('scheduling constraints: the running pod that would fit nowhere else, one consolidation finding, its placement read first', () => {
    // scheduling/scheduler.go NonPendingPodSchedulingErrors: `not all pods would schedule, ns/name => <reason>`.
    const all = findings([
      '{"kind":"Event","involvedObject":{"kind":"Node","name":"ip-10-0-1-7.us-west-2.compute.internal"},"reason":"Unconsolidatable","type":"Normal","source":{"component":"karpenter"},"message":"Not all pods would schedule, shop/checkout-7d9f8c6b5d-x2z4q => incompatible with nodepool \\"default\\", unsatisfiable topology constraint for topology spread, key=topology.kubernetes.io/zone (counts = us-west-2a: 1, podDomains = topology.kubernetes.io/zone Exists, nodeDomains = topology.kubernetes.io/zone In [us-west-2a] "}',
    ]);
    // The pod runs: no "cannot be placed" finding beside the consolidation one.
    expect(all.map((f) => f.rule)).toEqual(['consolidation-blocked']);
    const f = all[0]!;
    expect(f.diagnosis).toContain('shop/checkout-7d9f8c6b5d-x2z4q');
    const read = f.remediation[0]!.commands[0]!;
    expect(read).toMatch(/^kubectl -n shop get deployment checkout /);
    expect(read).toContain('.affinity');
    expect(read).toContain('.topologySpreadConstraints');
  });

  it('a do-not-disrupt pod: names the pod and its annotation', () => {
    const f = findingOf('consolidation-blocked', [
      '{"kind":"Event","involvedObject":{"kind":"Node","name":"ip-10-0-1-7.us-west-2.compute.internal"},"reason":"DisruptionBlocked","type":"Normal","source":{"component":"karpenter"},"message":"Pod has \\"karpenter.sh/do-not-disrupt\\" annotation (Pod=shop/checkout-7d9f8c6b5d-x2z4q)"}',
    ]);
    expect(commands(f).some((c) => c.includes('checkout-7d9f8c6b5d-x2z4q') && c.includes('-n shop'))).toBe(true);
    expect(details(f)).toContain('karpenter.sh/do-not-disrupt');
  });
});
