import type { Evidence } from '../../lambdas/core/incidents/aggregate';
import { analyzeMessages } from '../../lambdas/core/analyze';
import { RULE_IDS, type RuleId } from '../../lambdas/core/recognise/rules';
import { emptyContext, type FindingContext } from '../../lambdas/core/findings/context';
import type { Diagnosis } from '../../lambdas/core/advice/types';
import { diagnose } from '../../lambdas/core/recognise/rules';
import { buildFinding } from '../../lambdas/core/findings/finding';
import type { Entities } from '../../lambdas/core/model';
import { loadSamples } from '../helpers';
import { FIND_CONTROLLER } from '../../lambdas/core/advice/controller';
import { adviseGroupRaise } from '../../lambdas/core/advice/sizing';
import { editTemplate, ownerLookup, setResourcesCommand } from '../../lambdas/core/advice/workload-kind';

/**
 * Realistic findings per rule, as the analyzer builds them from real lines (names as Karpenter,
 * the scheduler and EC2 print them), with the live context the enrichment adds. The advice checks
 * (test/core/advice-*.test.ts) run every rule's advice for each.
 */
export interface AdviceCase {
  entities: Entities;
  /** Live AWS facts; omitted for the "enrichment failed" variant. */
  context?: Omit<FindingContext, 'enrichmentErrors'>;
  /** Evidence lines, for causes only the message states (zones, the NodePool of a taint, the blocking PDB). */
  evidence?: string[];
}

const SUBNETS = {
  subnets: [
    {
      subnetId: 'subnet-0783288fba3453a60',
      availabilityZone: 'us-west-2a',
      vpcId: 'vpc-0a1b2c3d4e5f60718',
      availableIps: 0,
      totalIps: 251,
    },
    {
      subnetId: 'subnet-0f9e8d7c6b5a40312',
      availabilityZone: 'us-west-2b',
      vpcId: 'vpc-0a1b2c3d4e5f60718',
      availableIps: 3,
      totalIps: 251,
    },
    {
      subnetId: 'subnet-0aa11bb22cc33dd44',
      availabilityZone: 'us-west-2c',
      vpcId: 'vpc-0a1b2c3d4e5f60718',
      availableIps: 180,
      totalIps: 251,
    },
  ],
  vpcs: [{ vpcId: 'vpc-0a1b2c3d4e5f60718', cidrBlocks: ['10.0.0.0/22'], cidrSlotsLeft: 4 }],
};

/** The group that runs the controller, mid-outage: min 3, desired 5, max 6 (issue 18). */
export const SELF_MANAGED_SYSTEM = {
  name: 'system',
  kind: 'self-managed' as const,
  autoScalingGroups: ['eks-system-asg-7f3a'],
  minSize: 3,
  desiredSize: 5,
  maxSize: 6,
};
/** A managed group at its maximum: the maximum has to rise (issue 18). */
export const MANAGED_AT_MAX = {
  name: 'system',
  kind: 'managed' as const,
  autoScalingGroups: ['eks-system-12c4a7b0-1b2c'],
  minSize: 1,
  desiredSize: 1,
  maxSize: 1,
};

const deployPod = 'shop/checkout-7d9f8c6b5d-x2z4q';
const jobPod = 'batch/nightly-report-28934520-k7t2p';

export const ADVICE_CASES: Partial<Record<RuleId, AdviceCase[]>> = {
  'karpenter-controller-unschedulable': [
    { entities: { pods: ['kube-system/karpenter-5d8f7b9c54-q2w4x'] }, context: { nodegroups: [SELF_MANAGED_SYSTEM] } },
    { entities: { pods: ['kube-system/karpenter-5d8f7b9c54-q2w4x'] }, context: { nodegroups: [MANAGED_AT_MAX] } },
  ],
  'volume-attach-limit': [
    {
      entities: {
        nodes: ['ip-10-0-1-7.us-west-2.compute.internal'],
        volumes: ['vol-0abc123def4567890'],
        nodepools: ['default'],
      },
    },
  ],
  'volume-mount-timeout': [{ entities: { pods: ['data/postgres-0'], workloads: ['data/statefulset/postgres'] } }],
  'in-tree-storage-plugin': [
    {
      entities: { volumes: ['pvc-11db7489-3c6e-46f3-a958-91f9d5009d41'], pods: ['default/inflate0-6c4bdb8b75-7qmfd'] },
    },
    { entities: { storageClasses: ['gp2'], pods: ['data/postgres-0'], workloads: ['data/statefulset/postgres'] } },
  ],
  'oom-killed': [
    { entities: { pods: [deployPod], workloads: ['shop/deployment/checkout'] } },
    { entities: { pods: [jobPod], workloads: ['batch/workload/nightly-report-28934520'] } },
  ],
  'missing-resource-requests': [{ entities: { pods: [deployPod], workloads: ['shop/deployment/checkout'] } }],
  'windows-image-platform-mismatch': [
    {
      entities: {
        images: ['mcr.microsoft.com/windows/servercore:ltsc2019'],
        pods: ['win/iis-6b7c8d9f5b-abcde'],
        workloads: ['win/deployment/iis'],
      },
    },
  ],
  'node-not-initialized': [
    {
      entities: {
        nodeclaims: ['gpu-x7k2p'],
        nodepools: ['gpu'],
        nodes: ['ip-10-0-1-7.us-west-2.compute.internal'],
        instances: ['i-0123456789abcdef0'],
        resources: ['nvidia.com/gpu'],
      },
    },
  ],
  'node-not-ready': [
    {
      entities: {
        nodes: ['ip-10-0-1-7.us-west-2.compute.internal'],
        instances: ['i-0123456789abcdef0'],
        nodepools: ['default'],
      },
    },
  ],
  'scheduling-affinity-topology': [
    { entities: { pods: [deployPod], workloads: ['shop/deployment/checkout'], zones: ['us-west-2a'] } },
    {
      entities: { pods: [deployPod], workloads: ['shop/deployment/checkout'], zones: ['us-west-2a', 'us-west-2b'] },
      // sigs.k8s.io/karpenter@v1.14.1 pkg/controllers/provisioning/scheduling/topology.go topologyError
      evidence: [
        'could not schedule pod, unsatisfiable topology constraint for topology spread, key=topology.kubernetes.io/zone (counts = us-west-2a: 2, podDomains = topology.kubernetes.io/zone In [us-west-2b], nodeDomains = topology.kubernetes.io/zone In [us-west-2a]',
      ],
    },
    {
      entities: { pods: [jobPod], workloads: ['batch/workload/nightly-report-28934520'] },
      evidence: ["0/6 nodes are available: 6 node(s) didn't satisfy existing pods anti-affinity rules."],
    },
  ],
  'scheduling-insufficient-resources': [
    { entities: { pods: [deployPod], workloads: ['shop/deployment/checkout'], resources: ['cpu', 'memory'] } },
    { entities: { pods: [jobPod], workloads: ['batch/workload/nightly-report-28934520'], resources: ['memory'] } },
  ],
  'scheduling-untolerated-taint': [
    {
      entities: {
        pods: [deployPod],
        workloads: ['shop/deployment/checkout'],
        taints: ['nvidia.com/gpu=true:NoSchedule'],
        nodepools: ['gpu'],
      },
      evidence: [
        'could not schedule pod: incompatible with nodepool "gpu", did not tolerate nvidia.com/gpu=true:NoSchedule',
      ],
    },
    {
      entities: {
        pods: [deployPod],
        workloads: ['shop/deployment/checkout'],
        taints: ['dedicated=gpu:NoSchedule', 'node.kubernetes.io/not-ready'],
        nodes: ['ip-10-0-1-7.us-west-2.compute.internal'],
      },
    },
  ],
  'scheduling-node-selector-mismatch': [
    {
      entities: { pods: [deployPod], workloads: ['shop/deployment/checkout'] },
      evidence: ["0/5 nodes are available: 5 node(s) didn't match Pod's node affinity/selector."],
    },
    {
      entities: {
        pods: [jobPod],
        workloads: ['batch/workload/nightly-report-28934520'],
        labels: ['eks.amazonaws.com/nodegroup'],
      },
    },
  ],
  'subnet-ip-exhaustion': [
    {
      entities: { subnets: ['subnet-0783288fba3453a60', 'subnet-0f9e8d7c6b5a40312'], nodepools: ['default'] },
      context: SUBNETS,
    },
  ],
  'incompatible-requirements': [
    {
      entities: {
        pods: [deployPod],
        workloads: ['shop/deployment/checkout'],
        labels: ['topology.kubernetes.io/zone'],
        nodepools: ['default'],
        zones: ['us-east-1a', 'us-east-1b', 'us-east-1c'],
      },
      // sigs.k8s.io/karpenter@v1.14.1 pkg/scheduling/requirements.go: key K, <pod's> not in <NodePool's>
      evidence: [
        'could not schedule pod: incompatible with nodepool "default", incompatible requirements, key topology.kubernetes.io/zone, topology.kubernetes.io/zone In [us-east-1a] not in topology.kubernetes.io/zone In [us-east-1b us-east-1c]',
      ],
    },
    {
      entities: {
        pods: [deployPod],
        workloads: ['shop/deployment/checkout'],
        labels: ['eks.amazonaws.com/nodegroup'],
        nodepools: ['default'],
      },
    },
  ],
  'consolidation-blocked': [
    {
      entities: {
        nodes: ['ip-10-0-1-7.us-west-2.compute.internal'],
        nodepools: ['default'],
        pdbs: ['shop/checkout-pdb'],
      },
      // v1.14.1 state/statenode.go, through operatorpkg serrors and pretty.Sentence
      evidence: ['Normal DisruptionBlocked: Pdb prevents pod evictions (PodDisruptionBudget=[shop/checkout-pdb]).'],
    },
    {
      entities: {
        nodes: ['ip-10-0-1-7.us-west-2.compute.internal'],
        nodepools: ['default'],
        pdbs: ['shop/checkout-pdb', 'shop/checkout-all'],
      },
      // Two PDBs select one pod: the eviction API refuses it whatever they allow (v1.14.1 state/statenode.go).
      evidence: [
        'Normal DisruptionBlocked: Eviction does not support multiple PDBs (PodDisruptionBudget(s)=[shop/checkout-pdb shop/checkout-all]).',
      ],
    },
    {
      entities: { nodes: ['ip-10-0-1-7.us-west-2.compute.internal'], nodepools: ['default'], pods: [deployPod] },
      evidence: [`Normal DisruptionBlocked: Pod has "karpenter.sh/do-not-disrupt" annotation (Pod=${deployPod}).`],
    },
    {
      entities: {
        nodes: ['ip-10-0-1-7.us-west-2.compute.internal'],
        nodepools: ['default'],
        pdbs: ['shop/checkout-pdb'],
      },
    },
  ],
  'insufficient-instance-capacity': [
    {
      entities: {
        instanceTypes: ['p4d.24xlarge', 'p5.48xlarge'],
        zones: ['us-west-2a'],
        capacityTypes: ['on-demand'],
        nodepools: ['gpu'],
        errorCodes: ['InsufficientInstanceCapacity'],
      },
    },
  ],
  'ec2-quota-exceeded': [
    {
      entities: {
        quotas: ['VcpuLimitExceeded'],
        instanceTypes: ['g5.12xlarge', 'g5.2xlarge'],
        nodepools: ['gpu'],
        nodeclaims: ['gpu-hmqzq'],
      },
      context: { quotas: [{ quotaCode: 'L-DB2E81BA', quotaName: 'Running On-Demand G and VT instances', value: 64 }] },
    },
    { entities: { quotas: ['VcpuLimitExceeded'], instanceTypes: ['inf2.xlarge'], nodepools: ['inferentia'] } },
    {
      entities: { quotas: ['MaxSpotInstanceCountExceeded'], instanceTypes: ['trn1.32xlarge'], capacityTypes: ['spot'] },
    },
    { entities: { quotas: ['VcpuLimitExceeded'], instanceTypes: ['x2iedn.xlarge'] } },
    { entities: { quotas: ['VcpuLimitExceeded'], instanceTypes: ['dl1.24xlarge'] } },
    { entities: { quotas: ['VcpuLimitExceeded'], instanceTypes: ['hpc7g.16xlarge'] } },
    { entities: { quotas: ['VcpuLimitExceeded'], instanceTypes: ['m5.large', 'c6i.xlarge'] } },
  ],
  'nodepool-limits-exceeded': [{ entities: { nodepools: ['default'] } }],
  'aws-permission-denied': [
    {
      entities: {
        iamActions: ['ec2:RunInstances', 'ec2:CreateTags'],
        roles: ['arn:aws:iam::123456789012:role/KarpenterControllerRole-prod'],
        errorCodes: ['UnauthorizedOperation'],
      },
    },
    { entities: { errorCodes: ['AuthFailure.ServiceLinkedRoleCreationNotPermitted'] } },
  ],
  'node-bootstrap-failed': [
    { entities: { nodes: ['ip-10-0-1-7.us-west-2.compute.internal'], instances: ['i-0abc12345def67890'] } },
    { entities: { nodeclasses: ['default'], nodeclaims: ['default-x7k2p'], nodepools: ['default'] } },
  ],
  'node-join-unauthorized': [
    { entities: { roles: ['arn:aws:iam::123456789012:role/KarpenterNodeRole-prod'], nodeclasses: ['default'] } },
    { entities: { nodes: ['ip-10-0-1-7.us-west-2.compute.internal'] } },
  ],
  'karpenter-rbac-forbidden': [
    { entities: { serviceAccounts: ['kube-system/karpenter'], karpenterNamespaces: ['kube-system'] } },
    { entities: { karpenterNamespaces: ['karpenter'] } },
  ],
  'crd-conversion-failed': [{ entities: { karpenterNamespaces: ['karpenter'] } }],
  'aws-credentials-unavailable': [
    {
      entities: {
        errorCodes: ['WebIdentityErr', 'InvalidIdentityToken'],
        serviceAccounts: ['karpenter/karpenter'],
        karpenterNamespaces: ['karpenter'],
      },
    },
    { entities: { errorCodes: ['ExpiredToken', 'EC2MetadataError'], karpenterNamespaces: ['kube-system'] } },
  ],
  'aws-api-throttled': [{ entities: { errorCodes: ['RequestLimitExceeded'], iamActions: ['ec2:CreateFleet'] } }],
  'kubernetes-version-unsupported': [{ entities: { karpenterNamespaces: ['karpenter'] } }],
  'resource-validation-failed': [
    { entities: { nodeclasses: ['default'] } },
    { entities: { errorCodes: ['LimitExceeded'], nodeclasses: ['gpu'] } },
  ],
  'ami-discovery-failed': [{ entities: { nodeclasses: ['default'], errorCodes: ['ParameterNotFound'] } }],
  'aws-api-unreachable': [
    { entities: { endpoints: ['sts.us-west-2.amazonaws.com'] } },
    { entities: { endpoints: ['api.pricing.us-east-1.amazonaws.com'] } },
  ],
  'launch-template-or-ami-error': [
    { entities: { nodeclasses: ['default'], amis: ['ami-0abc123def4567890'], errorCodes: ['InvalidAMIID.NotFound'] } },
  ],
  'nodeclass-not-ready': [{ entities: { nodeclasses: ['default'], nodepools: ['default'] } }],
  'subnet-or-security-group-not-found': [
    { entities: { nodeclasses: ['default'], tags: ['karpenter.sh/discovery:prod'] } },
  ],
  'interruption-queue-error': [{ entities: { queues: ['Karpenter-prod'] } }],
  'webhook-tls-error': [{ entities: {} }],
  'leader-election-lost': [{ entities: {} }],
  'volume-zone-conflict': [
    {
      entities: {
        pods: ['data/postgres-0'],
        workloads: ['data/statefulset/postgres'],
        volumes: ['pvc-0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0'],
        zones: ['us-west-2a'],
      },
    },
  ],
  'node-disk-pressure': [{ entities: { nodes: ['ip-10-0-1-7.us-west-2.compute.internal'], nodeclasses: ['default'] } }],
  'windows-ipam-not-enabled': [{ entities: { pods: ['win/iis-6b7c8d9f5b-abcde'] } }],
  'prefix-delegation-fragmentation': [
    { entities: { subnets: ['subnet-0783288fba3453a60'] }, context: SUBNETS },
    // Fragmented: 180 addresses free, yet no free /28.
    { entities: { subnets: ['subnet-0aa11bb22cc33dd44'] }, context: SUBNETS },
  ],
  'subnet-ip-headroom-low': [{ entities: { subnets: ['subnet-0f9e8d7c6b5a40312'] }, context: SUBNETS }],
};

export interface AdviceSample {
  rule: RuleId;
  /** Where it came from: `rule#case/live`, `rule#case/no-context`, `rule/empty`, `sample:<id>`. */
  label: string;
  entities: Entities;
  context: FindingContext;
  /** The lines behind it (samples only). */
  evidence: Evidence[];
  advice: Diagnosis;
}

const input = (rule: RuleId, entities: Entities, context: FindingContext) => ({
  rule,
  cluster: 'prod',
  region: 'us-west-2',
  entities,
  occurrences: 3,
  context,
});

/**
 * The advice of every rule: each realistic case with and without its live context, no entities at
 * all, and every labelled sample through the whole pipeline (analyze → finding).
 */
export function adviceSamples(): AdviceSample[] {
  const out: AdviceSample[] = [];
  for (const rule of RULE_IDS) {
    const variant = (label: string, entities: Entities, context: FindingContext, lines: string[] = []) =>
      out.push({
        rule,
        label,
        entities,
        context,
        evidence: lines.map((message) => ({ message })),
        advice: diagnose({ ...input(rule, entities, context), evidence: lines }),
      });
    variant(`${rule}/empty`, {}, emptyContext());
    (ADVICE_CASES[rule] ?? []).forEach((c, i) => {
      variant(`${rule}#${i}/no-context`, c.entities, emptyContext(), c.evidence);
      if (c.context) variant(`${rule}#${i}/live`, c.entities, { ...c.context, enrichmentErrors: [] }, c.evidence);
    });
    // The same advice for logs of older Karpenter releases (Provisioner / Machine, then v1beta1).
    const first = ADVICE_CASES[rule]?.[0];
    for (const api of ['karpenter.sh/v1alpha5', 'karpenter.sh/v1beta1']) {
      variant(`${rule}/${api}`, { ...first?.entities, karpenterApis: [api] }, emptyContext(), first?.evidence);
    }
  }
  for (const sample of loadSamples().samples) {
    const lines = sample.raw.split('\n').map((message, i) => ({ message, origin: { line: i + 1, file: sample.id } }));
    for (const incident of analyzeMessages(lines, 'prod').incidents) {
      const finding = buildFinding(incident, { region: 'us-west-2' });
      out.push({
        rule: finding.rule,
        label: `sample:${sample.id}/${finding.rule}`,
        entities: finding.entities,
        context: finding.context,
        evidence: finding.evidence,
        advice: finding,
      });
    }
  }
  return out;
}

/** Every printed command of the advice, and of the advice planners, with where it came from. */
export function adviceCommands(samples = adviceSamples()): Array<{ rule?: RuleId; label: string; command: string }> {
  return [
    ...samples.flatMap(({ rule, label, advice }) =>
      advice.remediation.flatMap((step) => step.commands.map((command) => ({ rule, label, command }))),
    ),
    ...plannerCommands(),
  ];
}

/** The commands the planners of lambdas/core/advice build, for states and kinds the cases may not reach. */
function plannerCommands(): Array<{ label: string; command: string }> {
  const groups = [
    SELF_MANAGED_SYSTEM,
    MANAGED_AT_MAX,
    { ...SELF_MANAGED_SYSTEM, maxSize: 3 },
    { ...MANAGED_AT_MAX, minSize: undefined },
  ];
  const sizing = [...groups, undefined].flatMap((group) => adviseGroupRaise(group, 'prod', 'us-west-2').commands);
  const workloads = (['deployment', 'statefulset', 'daemonset', 'job', 'cronjob', undefined] as const).map((kind) => ({
    namespace: 'shop',
    name: 'checkout',
    pod: 'checkout-x7k2p',
    ...(kind ? { kind } : {}),
  }));
  const templates = workloads.flatMap((w) => [
    ...editTemplate(w).commands,
    ...[setResourcesCommand(w, '--requests=cpu=500m,memory=1Gi --limits=memory=2Gi')].filter((c): c is string => !!c),
    ownerLookup(w),
  ]);
  return [...sizing, ...templates, FIND_CONTROLLER].map((command) => ({ label: 'planner', command }));
}

/**
 * Placeholders (`<vpc-id>`) replaced by values of the right shape, so the CLI parses the command as
 * it would the filled one. Unknown placeholders get a plain name.
 */
export function withDummies(command: string): string {
  return command.replace(/<([a-zA-Z][a-zA-Z0-9:._+ -]*)>/g, (_, name: string) => dummyFor(name.toLowerCase()));
}

const DUMMIES: ReadonlyArray<readonly [RegExp, string]> = [
  [/^vpc-id$/, 'vpc-0123456789abcdef0'],
  [/subnet-id$/, 'subnet-0123456789abcdef0'],
  [/security-group-id$/, 'sg-0123456789abcdef0'],
  [/instance-id$/, 'i-0123456789abcdef0'],
  [/ami-id$/, 'ami-0123456789abcdef0'],
  [/route-table-id$/, 'rtb-0123456789abcdef0'],
  [/nat-gateway-id$/, 'nat-0123456789abcdef0'],
  [/(^|-)arn$/, 'arn:aws:iam::123456789012:role/example'],
  [/^service:action$/, 'ec2:RunInstances'],
  [/^(new-)?cidr$/, '100.64.0.0/16'],
  [/cidr$/, '100.64.0.0/19'],
  [/^(zone|availability-zone)$/, 'us-west-2a'],
  [/^region$/, 'us-west-2'],
  [/^account(-id)?$/, '123456789012'],
  [/(^|-)(min|max|desired|value|count|size|replicas)$/, '4'],
  [/^(cpu|new-cpu-limit)$/, '500m'],
  [/^(memory|observed-peak|limit)$/, '512Mi'],
  [/^windows-build$/, '10.0.20348'],
  [/version$/, '1.2.3'],
  [/^encoded-message$/, 'AbCdEf0123'],
  [/^container$/, 'app'],
  [/^owner-kind$/, 'deployment'],
];

function dummyFor(name: string): string {
  return (
    DUMMIES.find(([pattern]) => pattern.test(name))?.[1] ??
    name.replace(/[^a-z0-9-]/g, '-').replace(/^-+|-+$/g, '') ??
    'example'
  );
}
