import { readPodSpec } from '../advice/workload-steps';
import { changeTemplateStep } from '../advice/workload-steps';
import { DOCS } from '../advice/docs-links';
import { anyOf, defineRule, seedSection } from './types';

export default defineRule({
  info: {
    id: 'scheduling-node-selector-mismatch',
    title: "Pods' node selector or node affinity matches no node",
    severity: 'medium',
    source: 10,
    family: 'scheduling',
    emittedBy: 'logs',
    recognises: "didn't match Pod's node affinity/selector",
    keyEntity: 'workloads',
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
    return {
      diagnosis:
        `Pods${f.where('workloads', 'of')} have a nodeSelector or required node affinity that no node and no NodePool ` +
        `satisfies, so they stay Pending.`,
      remediation: [
        {
          title: 'Compare the selector with node labels and NodePool requirements',
          detail: 'Every label the pod requires must be on a node or allowed by a NodePool requirement.',
          commands: [
            readPodSpec(f, ['nodeSelector', 'affinity.nodeAffinity']),
            'kubectl get nodes --show-labels',
            'kubectl get nodepools -o jsonpath=\'{range .items[*]}{.metadata.name}{": "}{.spec.template.spec.requirements}{"\\n"}{end}\'',
          ],
        },
        changeTemplateStep(
          f,
          'Make the selector less strict, or provision matching nodes',
          'Remove labels that only a managed node group carries, or add the value to a NodePool requirement.',
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
