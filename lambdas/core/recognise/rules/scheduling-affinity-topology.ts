import { readPodSpec } from '../../advice/workload-steps';
import { changeTemplateStep } from '../../advice/workload-steps';
import { DOCS } from '../../advice/docs-links';
import { shellArg } from '../../advice/shell';
import type { RemediationStep } from '../../advice/types';
import {
  describeRequirement,
  nodesConsidered,
  placementRefusals,
  type PlacementReason,
  type TopologyConstraint,
  topologyConstraints,
} from '../../advice/scheduling-evidence';
import { anyOf, defineRule, seedSection } from './types';

const ZONE_KEY = 'topology.kubernetes.io/zone';
const HOSTNAME_KEY = 'kubernetes.io/hostname';

/** What each of the scheduler's placement reasons means for the pod, with how many nodes gave it. */
const REFUSAL_PHRASES: Partial<Record<PlacementReason, (nodes: string) => string>> = {
  'pod-affinity': (n) => `${n} no pod that its required podAffinity wants to run beside (in the same topology domain)`,
  'pod-anti-affinity': (n) => `${n} a pod that its required podAntiAffinity keeps it away from`,
  'existing-anti-affinity': (n) =>
    `${n} a pod whose own required podAntiAffinity excludes this pod (the rule is on the pods already running, not on this one)`,
  'topology-spread': (n) => `${n} a topology domain already at its topologySpreadConstraints maxSkew`,
  'topology-label-missing': (n) => `${n} no label for the topologyKey of its topologySpreadConstraints`,
};

const REFUSAL_ORDER: readonly PlacementReason[] = [
  'existing-anti-affinity',
  'pod-anti-affinity',
  'pod-affinity',
  'topology-spread',
  'topology-label-missing',
];

/** `the pod may use us-west-2a, us-west-2b; the NodePools offer us-west-2c`, from Karpenter's podDomains/nodeDomains. */
function domainsSentence(c: TopologyConstraint): string {
  const parts: string[] = [];
  if (c.podDomains && c.podDomains.operator !== 'Exists')
    parts.push(`the pod may use ${describeRequirement(c.podDomains)}`);
  if (c.nodeDomains && c.nodeDomains.operator !== 'Exists')
    parts.push(`the NodePools offer ${describeRequirement(c.nodeDomains)}`);
  if (c.counts) parts.push(`pods counted per domain: ${c.counts}`);
  return parts.join('; ');
}

function karpenterCause(c: TopologyConstraint): string {
  const domains = domainsSentence(c);
  const what =
    c.type === 'topology spread'
      ? `its topology spread over ${c.key} cannot be kept within maxSkew in any domain a NodePool can offer`
      : c.type === 'pod anti-affinity'
        ? `its required pod anti-affinity over ${c.key} leaves no ${c.key === HOSTNAME_KEY ? 'node' : 'domain'} a NodePool can offer`
        : `its required pod affinity over ${c.key} points at pods in no domain a NodePool can offer`;
  return `Karpenter says ${what}${domains ? ` (${domains})` : ''}.`;
}

export default defineRule({
  info: {
    id: 'scheduling-affinity-topology',
    title: 'Pod affinity, anti-affinity or topology spread cannot be satisfied',
    shortTitle: 'pods Pending on affinity',
    severity: 'medium',
    source: 7,
    family: 'scheduling',
    emittedBy: 'logs',
    recognises: "didn't match pod affinity / anti-affinity rules, topology spread constraints",
    keyEntity: 'workloads',
  },
  perWorkloadCause: null,
  resolvedByPlacement: true,
  scheduling: {
    leadRank: 6,
    asCause: () => 'pod affinity, anti-affinity or topology spread rules exclude nodes',
  },
  recognition: {
    clauses: anyOf(
      'pod affinity rules',
      'anti-affinity rules',
      'inter-pod affinity',
      'topology spread',
      'unsatisfiable topology',
      'max skew',
      'maxskew',
    ),
    schedulingReason: true,
  },
  diagnose: (f) => {
    const constraints = topologyConstraints(f.evidence);
    const refusals = placementRefusals(f.evidence).filter((r) => REFUSAL_PHRASES[r.reason]);
    refusals.sort((a, b) => REFUSAL_ORDER.indexOf(a.reason) - REFUSAL_ORDER.indexOf(b.reason));
    const total = nodesConsidered(f.evidence);
    const pods = `Pods${f.where('workloads', 'of')}`;
    const lead = constraints[0];
    const leadReason = refusals[0]?.reason;
    const nodes = (n: number | undefined) =>
      n === undefined
        ? 'some nodes have'
        : total !== undefined
          ? `${n} of ${total} nodes ${n === 1 ? 'has' : 'have'}`
          : `${n} node${n === 1 ? ' has' : 's have'}`;
    const cause =
      (lead
        ? `${pods} cannot be placed: ${karpenterCause(lead)}`
        : refusals.length
          ? `${pods} cannot be placed: ${refusals.map((r) => REFUSAL_PHRASES[r.reason]!(nodes(r.nodes))).join('; ')}.`
          : `${pods} cannot be placed: their pod affinity, anti-affinity or topology spread constraints require nodes or zones where no suitable node exists.`) +
      (constraints.length > 1 ? ` Also: ${constraints.slice(1).map(karpenterCause).join(' ')}` : '');
    const keys = [...new Set([ZONE_KEY, ...constraints.map((c) => c.key)])];
    const zonal = keys.includes(ZONE_KEY) && (!lead || lead.key === ZONE_KEY);
    const existing = leadReason === 'existing-anti-affinity' && !lead;
    const now: RemediationStep = {
      title: existing
        ? 'Do this now: find the running pods whose anti-affinity excludes these pods'
        : 'Do this now: read the constraints and the domains they can use',
      detail: existing
        ? "The rule is in the other pods' spec: their required podAntiAffinity matches this pod's labels. Compare their labelSelector with the labels of this pod."
        : `Compare the pod's required affinity and topologySpreadConstraints (topologyKey, maxSkew, whenUnsatisfiable, labelSelector) with the ${keys.join(', ')} values of the nodes and the zones the NodePools allow.`,
      commands: [
        readPodSpec(f, ['affinity', 'topologySpreadConstraints']),
        ...(existing
          ? [
              "kubectl get pods -A -o custom-columns=NAMESPACE:.metadata.namespace,NAME:.metadata.name,NODE:.spec.nodeName,ANTI_AFFINITY:.spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution --no-headers | grep -v '<none>$'",
            ]
          : []),
        `kubectl get nodes -L ${keys.map((k) => shellArg(k)).join(',')}`,
        ...(zonal
          ? [
              'kubectl get nodepools -o jsonpath=\'{range .items[*]}{.metadata.name}{": "}{.spec.template.spec.requirements}{"\\n"}{end}\'',
            ]
          : []),
      ],
    };
    const durable: RemediationStep = existing
      ? {
          title: 'Durable fix: narrow the anti-affinity of the running pods',
          detail:
            "Change the labelSelector of the running pods' required podAntiAffinity so it no longer matches these pods, or make it preferredDuringSchedulingIgnoredDuringExecution. The change goes in the workload of those pods (found above), not in this one; saving it rolls out new pods of that workload, and if Helm, Argo CD or Flux manages it, change it there.",
          // Their namespace and owner are in the list above, not in this record: no command to fill in here.
          commands: [],
        }
      : changeTemplateStep(
          f,
          'Durable fix: relax the constraints, or offer the domains they need',
          [
            'Where strict placement is not needed, use whenUnsatisfiable: ScheduleAnyway in topologySpreadConstraints, or preferredDuringSchedulingIgnoredDuringExecution instead of requiredDuringSchedulingIgnoredDuringExecution in podAffinity/podAntiAffinity.',
            lead?.podDomains && lead.nodeDomains && lead.nodeDomains.operator !== 'Exists'
              ? `Or let a NodePool offer ${describeRequirement(lead.podDomains)} in its ${lead.key} requirement (widening a requirement replaces no existing node; the EC2NodeClass needs a subnet in each zone).`
              : 'Or allow the required zones in a NodePool requirement (widening a requirement replaces no existing node; the EC2NodeClass needs a subnet in each zone).',
            lead?.key === HOSTNAME_KEY || leadReason === 'pod-anti-affinity'
              ? 'With required anti-affinity on kubernetes.io/hostname each replica needs a node of its own: Karpenter launches one per pod unless the NodePool limits stop it.'
              : '',
          ]
            .filter(Boolean)
            .join(' '),
        );
    return {
      diagnosis: cause,
      remediation: [now, durable],
      docs: [DOCS.topologySpread, DOCS.assignPods, DOCS.karpenterScheduling],
    };
  },
  examples: {
    fires: [
      {
        line: "Warning FailedScheduling pod/\"pod-name\" 0/3 nodes are available: 1 node(s) didn't match pod affinity rules, 2 node(s) didn't match pod topology spread constraints rules, 3 nodes(s) didn't match inter-pod anti-affinity rules",
        source: seedSection(7),
      },
      {
        line: "0/3 nodes are available: 1 node(s) didn't match pod topology spread constraints, 2 node(s) didn't match pod anti-affinity rules.",
        source: 'https://github.com/Panfactum/stack/issues/41 (test/fixtures/karpenter-samples.jsonl ref-024)',
      },
    ],
    silent: [
      {
        line: ' Normal   Nominated         3m44s                karpenter          Pod should schedule on: nodeclaim/default-zlp9c',
        source:
          'https://github.com/aws/karpenter-provider-aws/issues/5463 (test/fixtures/karpenter-samples.jsonl ref-045)',
      },
    ],
  },
});
