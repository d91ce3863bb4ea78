import {
  describeRequirement,
  disruptionBlockers,
  nodesConsidered,
  placementRefusals,
  topologyConstraints,
  requestedResources,
  requirementConflicts,
  taintsByNodepool,
} from '../../../lambdas/core/advice/scheduling-evidence';

describe('requirementConflicts', () => {
  it("reads Karpenter's `key K, <pod's> not in <NodePool's>` with the NodePool that said it", () => {
    const [conflict, ...rest] = requirementConflicts([
      'could not schedule pod: incompatible with nodepool "default", incompatible requirements, key topology.kubernetes.io/zone, topology.kubernetes.io/zone In [us-east-1a] not in topology.kubernetes.io/zone In [us-east-1b us-east-1c]; incompatible with nodepool "gpu", did not tolerate nvidia.com/gpu=true:NoSchedule',
    ]);
    expect(rest).toEqual([]);
    expect(conflict).toEqual({
      key: 'topology.kubernetes.io/zone',
      pod: { key: 'topology.kubernetes.io/zone', operator: 'In', values: ['us-east-1a'] },
      nodepool: { key: 'topology.kubernetes.io/zone', operator: 'In', values: ['us-east-1b', 'us-east-1c'] },
      nodepoolName: 'default',
    });
    expect(describeRequirement(conflict!.nodepool)).toBe('us-east-1b, us-east-1c');
  });

  it('reads DoesNotExist and the "and N others" Karpenter writes past five values', () => {
    const [conflict] = requirementConflicts([
      'incompatible requirements, key nvidia.com/gpu.present, nvidia.com/gpu.present In [true] not in nvidia.com/gpu.present DoesNotExist',
      'incompatible requirements, key node.kubernetes.io/instance-type, node.kubernetes.io/instance-type In [p5.48xlarge] not in node.kubernetes.io/instance-type In [c5.large c5.xlarge m5.large m5.xlarge r5.large and 12 others]',
    ]);
    expect(describeRequirement(conflict!.nodepool)).toBe('no value (the label absent)');
    const second = requirementConflicts([
      'incompatible requirements, key node.kubernetes.io/instance-type, node.kubernetes.io/instance-type In [p5.48xlarge] not in node.kubernetes.io/instance-type In [c5.large c5.xlarge m5.large m5.xlarge r5.large and 12 others]',
    ])[0]!;
    expect(second.nodepool.values).toEqual([
      'c5.large',
      'c5.xlarge',
      'm5.large',
      'm5.xlarge',
      'r5.large',
      'and 12 others',
    ]);
  });

  it('finds nothing in lines of another shape', () => {
    expect(
      requirementConflicts([
        'incompatible requirements, label "eks.amazonaws.com/nodegroup" does not have known values',
      ]),
    ).toEqual([]);
  });
});

describe('taintsByNodepool and requestedResources', () => {
  it('says which NodePool sets a taint, and what the pods asked for', () => {
    const line =
      'incompatible with nodepool "gpu", did not tolerate nvidia.com/gpu=true:NoSchedule; incompatible with nodepool "default", daemonset overhead={"cpu":"200m"}, no instance type satisfied resources {"cpu":"96","pods":"1"} and requirements karpenter.sh/capacity-type In [on-demand spot]';
    expect([...taintsByNodepool([line])]).toEqual([['nvidia.com/gpu=true:NoSchedule', ['gpu']]]);
    expect(requestedResources([line])).toEqual({ cpu: '96', pods: '1' });
    expect(requestedResources(['no instance type satisfied resources {"cpu":"9'])).toBeUndefined();
  });
});

describe('disruptionBlockers', () => {
  // sigs.k8s.io/karpenter@v1.14.1 state/statenode.go, wrapped by operatorpkg serrors and pretty.Sentence
  it.each([
    ['Pdb prevents pod evictions (PodDisruptionBudget=[shop/api-pdb]).', { kind: 'pdb', pdbs: ['shop/api-pdb'] }],
    [
      'Eviction does not support multiple PDBs (PodDisruptionBudget(s)=[shop/a shop/b]).',
      { kind: 'pdb', pdbs: ['shop/a', 'shop/b'], overlapping: true },
    ],
    ['pdb "payments/payments-api" prevents pod evictions', { kind: 'pdb', pdbs: ['payments/payments-api'] }],
    [
      'Pod has "karpenter.sh/do-not-disrupt" annotation (Pod=shop/api-7d4b9c6f5d-x2x9k).',
      { kind: 'pod-annotation', pods: ['shop/api-7d4b9c6f5d-x2x9k'] },
    ],
    ['Disruption is blocked through the "karpenter.sh/do-not-disrupt" annotation.', { kind: 'node-annotation' }],
    [
      'No allowed disruptions for disruption reason Underutilized due to blocking budget',
      { kind: 'budget', reason: 'Underutilized' },
    ],
    [
      'NodePool "default" has consolidation policy WhenEmpty, but node is not empty',
      { kind: 'when-empty', nodepool: 'default' },
    ],
    ["SpotToSpotConsolidation is disabled, can't replace a spot node with a spot node", { kind: 'spot-to-spot' }],
  ])('reads %s', (line, blocker) => {
    expect(disruptionBlockers([line])[0]).toEqual(blocker);
  });
});

describe('topologyConstraints', () => {
  // sigs.k8s.io/karpenter pkg/controllers/provisioning/scheduling/topology.go: v1 prints the counts with
  // pretty.Map and leaves the parenthesis open; v0.32 prints a Go map and closes it.
  it('reads the type, key, counts and both domains of the v1 wording', () => {
    expect(
      topologyConstraints([
        'could not schedule pod, unsatisfiable topology constraint for topology spread, key=topology.kubernetes.io/zone (counts = us-west-2a: 2, us-west-2b: 0, podDomains = topology.kubernetes.io/zone In [us-west-2b us-west-2c], nodeDomains = topology.kubernetes.io/zone In [us-west-2a]',
      ]),
    ).toEqual([
      {
        type: 'topology spread',
        key: 'topology.kubernetes.io/zone',
        counts: 'us-west-2a: 2, us-west-2b: 0',
        podDomains: { key: 'topology.kubernetes.io/zone', operator: 'In', values: ['us-west-2b', 'us-west-2c'] },
        nodeDomains: { key: 'topology.kubernetes.io/zone', operator: 'In', values: ['us-west-2a'] },
      },
    ]);
  });

  it('reads the v0.32 wording, anti-affinity on the hostname and Exists domains', () => {
    expect(
      topologyConstraints([
        'unsatisfiable topology constraint for pod anti-affinity, key=kubernetes.io/hostname (counts = map[ip-10-0-1-7.ec2.internal:1], podDomains = kubernetes.io/hostname Exists, nodeDomains = kubernetes.io/hostname Exists)',
      ]),
    ).toEqual([
      {
        type: 'pod anti-affinity',
        key: 'kubernetes.io/hostname',
        counts: 'ip-10-0-1-7.ec2.internal:1',
        podDomains: { key: 'kubernetes.io/hostname', operator: 'Exists', values: [] },
        nodeDomains: { key: 'kubernetes.io/hostname', operator: 'Exists', values: [] },
      },
    ]);
  });

  it('finds nothing in the scheduler wording, which names no key', () => {
    expect(
      topologyConstraints(["0/3 nodes are available: 3 node(s) didn't match pod topology spread constraints."]),
    ).toEqual([]);
  });
});

describe('placementRefusals and nodesConsidered', () => {
  // kube-scheduler's InterPodAffinity, PodTopologySpread and NodeAffinity reason strings.
  it.each<[string, ReturnType<typeof placementRefusals>]>([
    [
      "0/6 nodes are available: 6 node(s) didn't satisfy existing pods anti-affinity rules. preemption: 0/6 nodes are available: 6 No preemption victims found for incoming pod.",
      [{ reason: 'existing-anti-affinity', nodes: 6 }],
    ],
    [
      "0/5 nodes are available: 2 node(s) didn't match pod topology spread constraints (missing required label), 3 node(s) didn't match pod topology spread constraints.",
      [
        { reason: 'topology-label-missing', nodes: 2 },
        { reason: 'topology-spread', nodes: 3 },
      ],
    ],
    [
      "0/3 nodes are available: 1 node(s) didn't match pod affinity rules, 2 node(s) didn't match pod anti-affinity rules.",
      [
        { reason: 'pod-affinity', nodes: 1 },
        { reason: 'pod-anti-affinity', nodes: 2 },
      ],
    ],
    [
      "0/4 nodes are available: 4 node(s) didn't match Pod's node affinity/selector. preemption: 0/4 nodes are available: 4 Preemption is not helpful for scheduling.",
      [{ reason: 'node-selector', nodes: 4 }],
    ],
    ["0/2 nodes are available: 2 node(s) didn't match node selector.", [{ reason: 'node-selector', nodes: 2 }]],
    ['0/3 nodes are available: 3 Insufficient cpu.', []],
  ])('%s', (line, expected) => {
    expect(placementRefusals([line])).toEqual(expected);
  });

  it('counts the nodes the scheduler considered', () => {
    expect(
      nodesConsidered(["0/6 nodes are available: 6 node(s) didn't satisfy existing pods anti-affinity rules."]),
    ).toBe(6);
    expect(nodesConsidered(['could not schedule pod'])).toBeUndefined();
  });
});
