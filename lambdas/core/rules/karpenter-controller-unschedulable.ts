import { DOCS } from '../advice/docs-links';
import { raiseNodegroupStep } from '../advice/nodegroup-steps';
import { defineRule } from './types';

/** Text that says a scheduling attempt failed: the context in which a Karpenter pod is "unschedulable". */
export const SCHEDULING_FAILURE_FRAGMENTS = [
  'failedscheduling',
  'nodes are available',
  'unable to schedule pod',
  'could not schedule pod',
  'failed to schedule pod',
] as const;

export default defineRule({
  info: {
    id: 'karpenter-controller-unschedulable',
    title: 'Karpenter controller pods cannot be scheduled',
    severity: 'critical',
    source: 1,
    family: 'control-plane',
    emittedBy: 'logs',
    recognises: 'FailedScheduling on a pod of the Karpenter deployment: Karpenter cannot launch capacity for itself',
  },
  recognition: {
    clauses: [],
    context: SCHEDULING_FAILURE_FRAGMENTS,
  },
  diagnose: (f) => {
    const pod = f.pod();
    const namespace = pod.namespace === '<namespace>' ? 'karpenter' : pod.namespace;
    const groups = f.context.nodegroups ?? [];
    const groupSteps =
      groups.length > 0 ? groups.map((group) => raiseNodegroupStep(f, group)) : [raiseNodegroupStep(f)];
    return {
      diagnosis:
        `The Karpenter controller pod${f.where('pods', '')} cannot be scheduled. Karpenter cannot launch nodes for ` +
        `its own pods, so while they are Pending nothing in the cluster scales. Since v0.16 the chart runs two ` +
        `replicas, and the nodes outside Karpenter's control (a managed node group or Fargate) do not have room for both.`,
      remediation: [
        ...groupSteps,
        {
          title: 'Or run a single Karpenter replica',
          detail: 'If the deployment does not need redundancy, one replica fits on the existing capacity.',
          commands: [`kubectl -n ${namespace} scale deployment karpenter --replicas=1`],
        },
        {
          title: 'Keep Karpenter off the nodes it manages',
          detail:
            "Karpenter must run on nodes it does not manage. Nodes that carry the karpenter.sh/nodepool label are Karpenter's; remove the label from nodes meant for the controller.",
          commands: [
            'kubectl get nodes --show-labels | grep karpenter.sh/nodepool',
            `kubectl label nodes ${f.first('nodes', '<node-name>')} karpenter.sh/nodepool-`,
          ],
        },
      ],
      docs: [DOCS.karpenterTroubleshooting, DOCS.managedNodegroups],
    };
  },
  examples: {
    fires: [
      {
        line: '{"involvedObject":{"kind":"Pod","namespace":"kube-system","name":"karpenter-6d8f7b9c54-q2w4x"},"reason":"FailedScheduling","message":"0/2 nodes are available: 2 node(s) didn\'t match Pod\'s node affinity/selector."}',
        source:
          "constructed from kube-scheduler's FailedScheduling event '0/%v nodes are available: %v' on a pod of the Karpenter deployment",
      },
    ],
    silent: [
      {
        line: 'Warning FailedScheduling 3m default-scheduler 0/1 nodes are available: 1 Insufficient memory',
        source:
          "seed §1 (shared/seed/karpenter-scaling-troubleshooting.es.txt): the same event about a pod that is not Karpenter's",
      },
      {
        line: ' Normal   Nominated         3m44s                karpenter          Pod should schedule on: nodeclaim/default-zlp9c',
        source: 'https://github.com/aws/karpenter-provider-aws/issues/5463 (shared samples ref-045)',
      },
    ],
  },
});
