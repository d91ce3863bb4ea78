import type { RemediationStep } from '../../advice/types';
import { adviseGroupRaise } from '../../advice/sizing';
import { shellArg } from '../../advice/shell';
import { HELM_OWNED_NOTE } from '../../advice/side-effects';
import { FIND_CONTROLLER, helmSet } from '../../advice/controller';
import { DOCS } from '../../advice/docs-links';
import { defineRule, seedSection } from './types';

/** Text that says a scheduling attempt failed: the context in which a Karpenter pod is "unschedulable". */
export const SCHEDULING_FAILURE_FRAGMENTS = [
  'failedscheduling',
  'nodes are available',
  'unable to schedule pod',
  'could not schedule pod',
  'failed to schedule pod',
  // kube-scheduler before the framework (v1.9-v1.18): predicate summaries and the no-node error
  'no nodes available to schedule pods',
  'fit failure summary on nodes',
  'match all of the following predicates',
] as const;

export default defineRule({
  info: {
    id: 'karpenter-controller-unschedulable',
    title: 'Karpenter controller pods cannot be scheduled',
    shortTitle: 'Karpenter pods Pending, nothing scales',
    severity: 'critical',
    source: 1,
    family: 'control-plane',
    emittedBy: 'logs',
    recognises: 'FailedScheduling on a pod of the Karpenter deployment: Karpenter cannot launch capacity for itself',
  },
  enrichment: ['nodegroups'],
  actions: ['raise-system-nodegroup'],
  resolvedByPlacement: true,
  recognition: {
    clauses: [],
    context: SCHEDULING_FAILURE_FRAGMENTS,
  },
  diagnose: (f) => {
    const where = f.controller();
    const ns = shellArg(where.namespace);
    const deployment = shellArg(where.deployment);
    const groups = f.context.nodegroups ?? [];
    const sizing = (groups.length > 0 ? groups : [undefined]).map((group): RemediationStep => {
      const advice = adviseGroupRaise(group, f.input.cluster, f.input.region);
      return {
        title: `Do this now: ${advice.title[0]!.toLowerCase()}${advice.title.slice(1)}`,
        detail: advice.detail,
        commands: advice.commands,
        action: 'raise-system-nodegroup',
      };
    });
    const found = where.known
      ? ''
      : ` The record does not name the controller's namespace: the commands use ${where.namespace} (the getting-started guide's); find yours with ${FIND_CONTROLLER}.`;
    return {
      diagnosis:
        `The Karpenter controller pod${f.where('pods', '')} cannot be scheduled. Karpenter cannot launch nodes for ` +
        `its own pods, so while they are Pending nothing in the cluster scales. Since v0.16 the chart runs two ` +
        `replicas, and the nodes outside Karpenter's control (a managed node group or Fargate) do not have room for both.${found}`,
      remediation: [
        ...sizing,
        {
          title: 'Or run a single Karpenter replica',
          detail: `If the deployment does not need redundancy, one replica fits on the existing capacity. ${HELM_OWNED_NOTE}`,
          commands: [...(where.known ? [] : [FIND_CONTROLLER]), ...helmSet(where, { replicas: 1 })],
        },
        {
          title: 'Durable fix: run the controller on capacity Karpenter does not manage',
          detail:
            'Give the controller a managed node group of its own (at least two nodes, for the two replicas) or a Fargate profile for its namespace and service account, and keep its nodeAffinity off Karpenter nodes (karpenter.sh/nodepool DoesNotExist, as the chart sets by default).',
          commands: [
            `aws eks create-fargate-profile --cluster-name ${f.cluster} --fargate-profile-name karpenter --pod-execution-role-arn <fargate-pod-execution-role-arn> --selectors namespace=${ns},labels={app.kubernetes.io/name=karpenter}${f.region}`,
            `kubectl -n ${ns} get deployment ${deployment} -o jsonpath='{.spec.template.spec.affinity.nodeAffinity}'`,
          ],
        },
        {
          title: 'Why not just remove the karpenter.sh/nodepool label (an often suggested fix)',
          detail:
            "An often suggested fix is removing the label from nodes Karpenter launched so the controller can run there. In current Karpenter that only keeps the node out of voluntary disruption (consolidation, drift); expiry and Spot interruption still take the node and the controller on it, and a NodeClaim still owns it, so this advice does not print that command. Check instead that the controller's nodes are ones Karpenter does not manage (no karpenter.sh/nodepool label, an eks.amazonaws.com/nodegroup one or Fargate).",
          commands: ['kubectl get nodes -L karpenter.sh/nodepool,eks.amazonaws.com/nodegroup'],
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
        source: seedSection(1, "the same event about a pod that is not Karpenter's"),
      },
      {
        line: ' Normal   Nominated         3m44s                karpenter          Pod should schedule on: nodeclaim/default-zlp9c',
        source:
          'https://github.com/aws/karpenter-provider-aws/issues/5463 (test/fixtures/karpenter-samples.jsonl ref-045)',
      },
    ],
  },
});
