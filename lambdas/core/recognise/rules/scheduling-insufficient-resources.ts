import { setResourcesStep } from '../../advice/workload-steps';
import { readPodSpec } from '../../advice/workload-steps';
import { DOCS } from '../../advice/docs-links';
import { requestedResources } from '../../advice/scheduling-evidence';
import { anyOf, defineRule, seedSection } from './types';

export default defineRule({
  info: {
    id: 'scheduling-insufficient-resources',
    title: 'Pods request more resources than any node offers',
    shortTitle: 'pods too big for any node',
    severity: 'medium',
    source: 8,
    family: 'scheduling',
    emittedBy: 'logs',
    recognises: 'Insufficient cpu/memory, Too many pods, No preemption victims, no instance type satisfied resources',
    keyEntity: 'workloads',
  },
  perWorkloadCause: 'resources',
  resolvedByPlacement: true,
  scheduling: {
    leadRank: 3,
    asCause: (e) => `the nodes that would otherwise fit lack ${e.resources?.length ? names(e.resources) : 'resources'}`,
  },
  filterTerms: ['Insufficient', 'available'],
  recognition: {
    clauses: anyOf(
      'too many pods',
      'no preemption victims found',
      'no instance type satisfied resources',
      'no instance type has enough resources',
      'no instance type which had enough resources',
      'insufficient resources',
      // kube-scheduler ErrNoNodesAvailable (v1.9-v1.18): no node at all to filter
      'no nodes available to schedule pods',
    ),
    patterns: [{ gate: 'insufficient ', pattern: /\b\d+ insufficient [a-z]/ }],
    schedulingReason: true,
  },
  diagnose: (f) => {
    const resources = f.list('resources');
    const requested = requestedResources(f.evidence);
    const amounts = requested
      ? Object.entries(requested)
          .map(([name, amount]) => `${name} ${amount}`)
          .join(', ')
      : '';
    const tooManyPods = f.all('resources').includes('pods');
    return {
      diagnosis:
        `Pods${f.where('workloads', 'of')} lack ${resources || 'resources'}: no node has that much free` +
        `${amounts ? `, and no instance type the NodePools allow holds what they ask for (${amounts})` : ''}. ` +
        (tooManyPods ? '"Too many pods" means the nodes reached their max-pods. ' : '') +
        'Karpenter normally launches a node for them; if this persists, no allowed instance type fits the request.',
      remediation: [
        {
          title: 'Do this now: compare the requests with what the NodePools allow',
          detail: 'Requests that exceed the largest allowed instance type can never be placed.',
          commands: [
            readPodSpec(f, ['containers[*].resources']),
            'kubectl get nodepools -o jsonpath=\'{range .items[*]}{.metadata.name}{": "}{.spec.template.spec.requirements}{" limits="}{.spec.limits}{"\\n"}{end}\'',
          ],
        },
        setResourcesStep(
          f,
          'Durable fix: right-size the requests or allow larger instance types',
          'Set requests to real usage, or widen the NodePool requirements (karpenter.k8s.aws/instance-size, instance-family) so a large enough type is allowed. "Too many pods" means the max-pods of the instance type is reached.',
          '--requests=cpu=<cpu>,memory=<memory>',
        ),
      ],
      docs: [DOCS.karpenterScheduling, DOCS.karpenterNodePools],
    };
  },
  examples: {
    fires: [
      {
        line: '  Warning  FailedScheduling  26m                  default-scheduler  no nodes available to schedule pods',
        source: 'https://github.com/terraform-aws-modules/terraform-aws-eks/issues/2864 (real-lines-train train-018)',
      },
      {
        line: '{"kind":"Event","involvedObject":{"kind":"Pod","namespace":"shop","name":"api-7d4b9c6f5d-x2x9k"},"reason":"FailedScheduling","message":"No nodes are available that match all of the following predicates:: Insufficient cpu (2), PodFitsResources (1).","type":"Warning","source":{"component":"default-scheduler"}}',
        source: 'constructed from kube-scheduler v1.6-v1.8 FitError summary with predicate names (Event JSON)',
      },

      {
        line: 'Warning FailedScheduling 30s (x13 over 60m) default-scheduler 0/5 nodes are available: 1 Insufficient memory. preemption: 0/5 nodes are available: 5 No preemption victims found for incoming pod',
        source: seedSection(8),
      },
      {
        line: 'Warning  FailedScheduling  12s  karpenter  Failed to schedule pod, incompatible with nodepool "default", daemonset overhead={"cpu":"200m"}, no instance type satisfied resources {"cpu":"96","pods":"1"} and requirements karpenter.sh/capacity-type In [on-demand spot]',
        source:
          "constructed from Karpenter's scheduler error 'incompatible with nodepool %q, daemonset overhead=%s, no instance type satisfied resources %s and requirements %s'",
      },
      {
        line: '0/12 nodes are available: 12 Insufficient nvidia.com/gpu. preemption: 0/12 nodes are available: 12 No preemption victims found for incoming pod.',
        source:
          "constructed from kube-scheduler's NodeResourcesFit reason 'Insufficient %v' and the preemption summary",
      },
    ],
    silent: [
      {
        line: "I0506 07:08:09.101234       1 factory.go:193] Creating scheduler with fit predicates 'map[PodFitsResources:{} MatchNodeSelector:{} PodToleratesNodeTaints:{} NoVolumeZoneConflict:{}]'",
        source: 'constructed from kube-scheduler v1.10 factory.go start-up log listing its predicates (healthy)',
      },

      {
        line: '2022-03-17T20:10:26.710Z\tDEBUG\tcontroller.provisioning\tExcluding instance type m6gd.medium because there are not enough resources for daemons\t{"commit": "4b14787", "provisioner": "default"}',
        source:
          'https://github.com/aws/karpenter-provider-aws/issues/1536 (test/fixtures/karpenter-samples.jsonl ref-047)',
      },
      {
        line: '2021-06-25T15:00:54.416Z        DEBUG   Excluding instance type t3.nano because there are not enough resources for kubelet and system overhead',
        source:
          'https://github.com/aws/karpenter-provider-aws/issues/476 (test/fixtures/karpenter-samples.jsonl ref-053)',
      },
    ],
  },
});

/** `a, b, c and 2 more`. */
function names(values: readonly string[]): string {
  const shown = values.slice(0, 5).join(', ');
  return values.length > 5 ? `${shown} and ${values.length - 5} more` : shown;
}
