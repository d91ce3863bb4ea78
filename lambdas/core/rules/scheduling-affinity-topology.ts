import { readPodSpec } from '../advice/workload-steps';
import { changeTemplateStep } from '../advice/workload-steps';
import { DOCS } from '../advice/docs-links';
import { anyOf, defineRule, seedSection } from './types';

export default defineRule({
  info: {
    id: 'scheduling-affinity-topology',
    title: 'Pod affinity, anti-affinity or topology spread cannot be satisfied',
    severity: 'medium',
    source: 7,
    family: 'scheduling',
    emittedBy: 'logs',
    recognises: "didn't match pod affinity / anti-affinity rules, topology spread constraints",
    keyEntity: 'workloads',
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
    return {
      diagnosis:
        `Pods${f.where('workloads', 'of')} cannot be placed: their pod affinity, anti-affinity or topology spread ` +
        `constraints require nodes or zones where no suitable node exists.`,
      remediation: [
        {
          title: 'Read the constraints of the workload',
          detail: 'Compare the required zones and spread with the zones the NodePools allow.',
          commands: [
            readPodSpec(f, ['affinity', 'topologySpreadConstraints']),
            'kubectl get nodes -L topology.kubernetes.io/zone',
          ],
        },
        changeTemplateStep(
          f,
          'Relax the constraints or add capacity where they point',
          'Use whenUnsatisfiable: ScheduleAnyway or preferred (not required) affinity where strict placement is not needed, or allow the required zones in the NodePool requirements.',
        ),
      ],
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
