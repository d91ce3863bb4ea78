import { extractEntities } from '../../../lambdas/core/recognise/entities';
import type { Entities } from '../../../lambdas/core/model';
import { parseMessage } from '../../../lambdas/core/parse/parse-message';

const entitiesOf = (line: string): Entities => extractEntities(parseMessage(line, {})!);

/**
 * The names a fix needs, from the wordings of each emitter and version: kube-scheduler reasons,
 * Karpenter v0.x text and v1.x wrapped errors (`message (NodePool=name)`, pkg/utils serrors), EC2
 * fleet errors. A name never keeps the punctuation that ends the sentence around it.
 */
describe('entities from new and old wordings', () => {
  it.each<[string, keyof Entities, string[]]>([
    ['0/3 nodes are available: 3 Insufficient cpu.', 'resources', ['cpu']],
    [
      '0/3 nodes are available: 1 Insufficient memory, 2 Insufficient nvidia.com/gpu.',
      'resources',
      ['memory', 'nvidia.com/gpu'],
    ],
    [
      '0/2 nodes are available: 2 Insufficient vpc.amazonaws.com/pod-eni. preemption: 0/2 nodes are available',
      'resources',
      ['vpc.amazonaws.com/pod-eni'],
    ],
    ['all available instance types exceed limits for nodepool (NodePool=batch)', 'nodepools', ['batch']],
    ['all available instance types exceed limits for nodepool: "batch".', 'nodepools', ['batch']],
    ['node limits have been exhausted for nodepool (NodePool=gpu-spot)', 'nodepools', ['gpu-spot']],
    [
      'Not all pods would schedule, pod default/web-1 would schedule against uninitialized nodeclaim/default-abcde',
      'pods',
      ['default/web-1'],
    ],
    [
      'pod has "karpenter.sh/do-not-disrupt" annotation (Pod=shop/api-6f7c9d8b4-x2x2x)',
      'pods',
      ['shop/api-6f7c9d8b4-x2x2x'],
    ],
    [
      'pod has "karpenter.sh/do-not-disrupt" annotation (Pod=shop/api-6f7c9d8b4-x2x2x)',
      'workloads',
      ['shop/deployment/api'],
    ],
    ["0/3 nodes are available: 3 node(s) didn't match pod affinity/anti-affinity rules.", 'pods', []],
    [
      'Not all pods would schedule, pod default/web-1 would schedule against uninitialized nodeclaim/default-abcde.',
      'nodeclaims',
      ['default-abcde'],
    ],
    ['launching nodeclaim (NodeClaim=default-x7k2p)', 'nodeclaims', ['default-x7k2p']],
    ["not enough free addresses in subnet 'subnet-0783288fba3453a60'.", 'subnets', ['subnet-0783288fba3453a60']],
    [
      'InsufficientFreeAddressesInSubnet: subnet-0783288fba3453a60, subnet-0a1b2c3d4e5f60718.',
      'subnets',
      ['subnet-0783288fba3453a60', 'subnet-0a1b2c3d4e5f60718'],
    ],
    [
      'We currently do not have sufficient g5.xlarge capacity in the Availability Zone you requested (us-east-1a).',
      'instanceTypes',
      ['g5.xlarge'],
    ],
    [
      'no capacity for u7i-12tb.224xlarge, c7i-flex.large and r7iz.metal-16xl.',
      'instanceTypes',
      ['c7i-flex.large', 'r7iz.metal-16xl', 'u7i-12tb.224xlarge'],
    ],
    [
      'incompatible with nodepool "od", did not tolerate intent=workload-split:NoSchedule.',
      'taints',
      ['intent=workload-split:NoSchedule'],
    ],
    [
      'incompatible with nodepool "od", did not tolerate taint (taint=team=x:NoSchedule)',
      'taints',
      ['team=x:NoSchedule'],
    ],
    [
      'incompatible with nodepool "od", did not tolerate taint (taint=dedicated:NoExecute)',
      'taints',
      ['dedicated:NoExecute'],
    ],
    [
      'Not all pods would schedule, shop/checkout-7d9f8c6b5d-x2z4q => incompatible with nodepool "default", did not tolerate team=a:NoSchedule',
      'pods',
      ['shop/checkout-7d9f8c6b5d-x2z4q'],
    ],
    ['pdb "payments/api" prevents pod evictions.', 'pdbs', ['payments/api']],
    ['pdb payments/api. prevents pod evictions', 'pdbs', ['payments/api']],
  ])('%s → %s %j', (line, kind, expected) => {
    expect(entitiesOf(line)[kind] ?? []).toEqual(expected);
  });
});

/**
 * A PDB is named as `namespace/name` in every Karpenter wording (kubernetes-sigs/karpenter: v0.32
 * disruption/helpers.go and nodeclaim/consistency/termination.go, v0.37 disruption/types.go, v1.0-v1.7
 * state/statenode.go, v1.8+ serrors `PodDisruptionBudget=[…]`); a word after "PDB" is otherwise prose.
 */
describe('PDB names', () => {
  it.each<[string, string[]]>([
    [
      'Normal  DisruptionBlocked  node/ip-10-0-1-7.ec2.internal  PDB "shop/checkout" prevents pod evictions',
      ['shop/checkout'],
    ],
    ['disrupting via consolidation, pdb "shop/checkout" prevents pod evictions', ['shop/checkout']],
    ['can\'t drain node, PDB "shop/checkout" is blocking evictions', ['shop/checkout']],
    ["can't drain node, PDB shop/checkout is blocking evictions", ['shop/checkout']],
    ['Pdb prevents pod evictions (PodDisruptionBudget=[shop/checkout])', ['shop/checkout']],
    // Every PDB of the list is named, not only the first (Go prints a slice space-separated).
    ['Eviction does not support multiple PDBs (PodDisruptionBudget(s)=[shop/a shop/b])', ['shop/a', 'shop/b']],
    ['pdb prevents pod evictions (PodDisruptionBudget=[shop/a shop/b shop/c.v2])', ['shop/a', 'shop/b', 'shop/c.v2']],
    // A list entry without its namespace is not a PDB name.
    ['pdb prevents pod evictions (PodDisruptionBudget=[checkout])', []],
    // Prose after "PDB": never a name.
    ['evicting pod shop/checkout-7d9f8c6b5d-x2z4q violates a PDB', []],
    ['The PDB is blocking the drain of the node', []],
    [
      'Deleting the pod to accommodate the terminationTime 2025-01-01 of the node. The pod was granted 30 seconds of grace-period of its 30 terminationGracePeriodSeconds. This bypasses the PDB of the pod and the do-not-disrupt annotation.',
      [],
    ],
    ['pdb prevents pod evictions', []],
  ])('%s → %j', (line, expected) => {
    expect(entitiesOf(line).pdbs ?? []).toEqual(expected);
  });
});
