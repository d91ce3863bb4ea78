import { readPodSpec } from '../../advice/workload-steps';
import { changeTemplateStep } from '../../advice/workload-steps';
import { DOCS } from '../../advice/docs-links';
import { shellArg } from '../../advice/shell';
import {
  describeRequirement,
  nodesConsidered,
  placementRefusals,
  requirementConflicts,
} from '../../advice/scheduling-evidence';
import { anyOf, defineRule, seedSection } from './types';

const NODEGROUP_LABEL = 'eks.amazonaws.com/nodegroup';

export default defineRule({
  info: {
    id: 'scheduling-node-selector-mismatch',
    title: "Pods' node selector or node affinity matches no node",
    shortTitle: 'pods Pending on selector',
    severity: 'medium',
    source: 10,
    family: 'scheduling',
    emittedBy: 'logs',
    recognises: "didn't match Pod's node affinity/selector",
    keyEntity: 'workloads',
  },
  perWorkloadCause: 'labels',
  resolvedByPlacement: true,
  scheduling: {
    leadRank: 0,
    asCause: (e) =>
      `other nodes do not match the pods' node selector or affinity${e.labels?.length ? ` (${names(e.labels)})` : ''}`,
  },
  recognition: {
    clauses: anyOf(
      'node affinity/selector',
      'match node selector',
      "match pod's node affinity",
      'match node affinity',
      'match nodeselector',
    ),
    schedulingReason: true,
  },
  diagnose: (f) => {
    const conflicts = requirementConflicts(f.evidence);
    const labels = [...new Set([...f.all('labels'), ...conflicts.map((c) => c.key)])];
    const refused = placementRefusals(f.evidence).find((r) => r.reason === 'node-selector')?.nodes;
    const total = nodesConsidered(f.evidence);
    const pods = `Pods${f.where('workloads', 'of')}`;
    const count =
      refused !== undefined
        ? ` (${refused}${total !== undefined ? ` of ${total}` : ''} node${refused === 1 ? '' : 's'} turned down for it)`
        : '';
    const lead = conflicts[0];
    const cause = lead
      ? `${pods} cannot be placed: the pod requires ${lead.key} ${describeRequirement(lead.pod)}, ${lead.nodepoolName ? `NodePool ${lead.nodepoolName}` : 'the NodePool'} allows ${describeRequirement(lead.nodepool)}${count}.`
      : labels.length
        ? `${pods} cannot be placed: their nodeSelector or required node affinity asks for ${labels.join(', ')}, which no node carries with the wanted value${count}.`
        : `${pods} cannot be placed: their nodeSelector or required node affinity matches no node${count}.`;
    const nodegroup = labels.some((l) => l.startsWith(NODEGROUP_LABEL));
    const shown = labels.length ? labels : [];
    return {
      diagnosis:
        `${cause} If Karpenter launched no node for them either, no NodePool offers those labels: a NodePool offers ` +
        `a label through a requirement (spec.template.spec.requirements) or a template label (spec.template.metadata.labels).` +
        (nodegroup ? ` ${NODEGROUP_LABEL} is set only on managed node group nodes, never on Karpenter nodes.` : ''),
      remediation: [
        {
          title: "Do this now: compare the pod's selector with the node labels and NodePool requirements",
          detail:
            'Every label the pod requires (nodeSelector, and requiredDuringSchedulingIgnoredDuringExecution under affinity.nodeAffinity) must be on a node with a matching value, or allowed by a NodePool requirement or template label.',
          commands: [
            readPodSpec(f, ['nodeSelector', 'affinity.nodeAffinity']),
            shown.length
              ? `kubectl get nodes -L ${shown.map((l) => shellArg(l)).join(',')}`
              : 'kubectl get nodes --show-labels',
            'kubectl get nodepools -o jsonpath=\'{range .items[*]}{.metadata.name}{": "}{.spec.template.spec.requirements}{" labels="}{.spec.template.metadata.labels}{"\\n"}{end}\'',
          ],
        },
        changeTemplateStep(
          f,
          'Durable fix: make the selector match what Karpenter can offer, or offer the label in a NodePool',
          `Drop labels that only a managed node group carries (such as ${NODEGROUP_LABEL}) or use a label the NodePools set. ` +
            'Or offer the value in a NodePool: adding it to a requirement (operator In) replaces no existing node; adding a template label is drift, so Karpenter replaces every node of the pool (within its disruption budgets).',
        ),
      ],
      docs: [DOCS.assignPods, DOCS.karpenterScheduling],
    };
  },
  examples: {
    fires: [
      {
        line: "Warning FailedScheduling  3m    default-scheduler 0/4 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, 3 node(s) didn't satisfy existing pods anti-affinity rules, 4 node(s) didn't match Pod's node affinity rules",
        source: seedSection(10),
      },
      {
        line: "Warning  FailedScheduling  2m  default-scheduler  0/5 nodes are available: 5 node(s) didn't match Pod's node affinity/selector. preemption: 0/5 nodes are available: 5 Preemption is not helpful for scheduling.",
        source:
          "constructed from kube-scheduler's FailedScheduling event with the NodeAffinity plugin's reason as the only one",
      },
    ],
    silent: [
      {
        line: 'Pod should schedule on: machine/default-karpenter-f72cc, node/ip-10-149-71-113.eu-central-1.compute.internal',
        source:
          'https://github.com/aws/karpenter-provider-aws/issues/4438 (test/fixtures/karpenter-samples.jsonl ref-069)',
      },
    ],
  },
});

/** `a, b, c and 2 more`. */
function names(values: readonly string[]): string {
  const shown = values.slice(0, 5).join(', ');
  return values.length > 5 ? `${shown} and ${values.length - 5} more` : shown;
}
