import { setResourcesStep } from '../../advice/workload-steps';
import { shellArg } from '../../advice/shell';
import { DOCS } from '../../advice/docs-links';
import { limitRangeStep } from '../../advice/requests';
import { anyOf, defineRule } from './types';

export default defineRule({
  info: {
    id: 'missing-resource-requests',
    title: 'Pods run without resource requests',
    shortTitle: 'pods without requests',
    severity: 'low',
    source: 4,
    family: 'workload',
    emittedBy: 'logs',
    recognises: '"exceeds its request of 0": pods packed onto nodes without requests',
    keyEntity: 'workloads',
  },
  perWorkloadCause: null,
  recognition: {
    clauses: anyOf(
      'exceeds its request of 0',
      'without resource requests',
      'has no resource requests',
      'missing resource requests',
    ),
  },
  diagnose: (f) => {
    const w = f.workloadRef();
    const namespace = w ? shellArg(w.namespace) : f.pod().namespace;
    return {
      diagnosis:
        `Pods${f.where('workloads', 'of')} run without resource requests. Karpenter packs pods by their requests, so ` +
        `pods without them are packed too densely, and the kubelet evicts them first under pressure.`,
      remediation: [
        setResourcesStep(
          f,
          'Give the workload requests',
          'Set CPU and memory requests to the observed usage (kubectl top pod --containers).',
          '--requests=cpu=<cpu>,memory=<memory>',
        ),
        limitRangeStep(namespace),
      ],
      docs: [DOCS.limitRange, DOCS.karpenterScheduling],
    };
  },
  examples: {
    fires: [
      {
        line: 'Warning  Evicted  pod/web-1  kubelet  The node was low on resource: memory. Container web was using 1Gi, which exceeds its request of 0.',
        source:
          "constructed from kubelet's eviction message 'The node was low on resource: %v. Container %s was using %s, which exceeds its request of %s.'",
      },
    ],
    silent: [
      {
        line: 'Normal  Scheduled  pod/web-1  default-scheduler  Successfully assigned default/web-1 to ip-10-0-1-7.ec2.internal',
        source: "constructed from kube-scheduler's 'Successfully assigned %v/%v to %v'",
      },
    ],
  },
});
