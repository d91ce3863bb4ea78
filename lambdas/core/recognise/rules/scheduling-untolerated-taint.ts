import { changeTemplateStep } from '../../advice/workload-steps';
import { DOCS } from '../../advice/docs-links';
import { shellArg } from '../../advice/shell';
import { isSystemTaint, taintKey, taintRemoval, tolerationYaml } from '../../advice/taints';
import { type RemediationStep } from '../../advice/types';
import { taintsByNodepool } from '../../advice/scheduling-evidence';
import { otherPoolRefusals, placementOf } from '../../advice/untainted-pools';
import { anyOf, defineRule, seedSection } from './types';

const TAINTS_BY_NODEPOOL =
  'kubectl get nodepools -o jsonpath=\'{range .items[*]}{.metadata.name}{" taints="}{.spec.template.spec.taints}{" startupTaints="}{.spec.template.spec.startupTaints}{"\\n"}{end}\'';

/** Who puts a taint on nodes, from its key (Kubernetes, Karpenter, EKS) or Karpenter's message naming the NodePool. */
export function taintOwner(taint: string, pools: ReadonlyMap<string, string[]>): string {
  const named = poolsOf(taint, pools);
  if (named.length) return `set by NodePool ${named.join(', ')} in spec.template.spec.taints`;
  const key = taintKey(taint);
  const known = SYSTEM_TAINT_OWNERS.find(([prefix]) => key === prefix || key.startsWith(prefix));
  if (known) return known[1];
  return 'on existing nodes: from a NodePool template (taints or startupTaints), a managed node group, or kubectl taint';
}

/** The NodePools Karpenter said set a taint; the scheduler prints `key=value`, Karpenter `key=value:Effect`. */
function poolsOf(taint: string, pools: ReadonlyMap<string, string[]>): string[] {
  const direct = pools.get(taint);
  if (direct) return direct;
  for (const [stated, names] of pools) if (stated.startsWith(`${taint}:`) || taintKey(stated) === taint) return names;
  return [];
}

/** Taints the platform sets, by key (Kubernetes well-known taints, Karpenter v1 and EKS). */
const SYSTEM_TAINT_OWNERS: ReadonlyArray<readonly [string, string]> = [
  [
    'node.kubernetes.io/not-ready',
    "set by the node lifecycle controller while the node's Ready condition is not True: normal for a minute on a new node",
  ],
  ['node.kubernetes.io/unreachable', 'set by the node lifecycle controller when the kubelet stops reporting'],
  ['node.kubernetes.io/unschedulable', 'set by a cordon (kubectl cordon or drain)'],
  ['node.kubernetes.io/network-unavailable', "set until the node's network (the VPC CNI) is configured"],
  ['node.kubernetes.io/', "set by the node lifecycle controller from the kubelet's pressure conditions"],
  [
    'node.cloudprovider.kubernetes.io/uninitialized',
    'set by the kubelet until the cloud controller manager initialises the node',
  ],
  ['karpenter.sh/unregistered', 'set by Karpenter until the node registers'],
  ['karpenter.sh/disrupted', 'set by Karpenter while it drains the node to disrupt it'],
  ['karpenter.sh/disruption', 'set by Karpenter (before v1) while it drains the node'],
  ['karpenter.sh/', 'set by Karpenter'],
  [
    'ebs.csi.aws.com/agent-not-ready',
    'a startup taint (NodePool startupTaints) that the EBS CSI node pod removes once it runs',
  ],
  ['eks.amazonaws.com/compute-type', 'set by EKS on Fargate nodes'],
];

export default defineRule({
  info: {
    id: 'scheduling-untolerated-taint',
    title: 'Pods do not tolerate the taints of the available nodes',
    shortTitle: 'pods Pending on a taint',
    severity: 'medium',
    source: 9,
    family: 'scheduling',
    emittedBy: 'logs',
    recognises: "had (untolerated) taint {…} that the pod didn't tolerate, did not tolerate",
    keyEntity: 'workloads',
  },
  perWorkloadCause: 'taints',
  resolvedByPlacement: true,
  scheduling: {
    leadRank: 2,
    asCause: (e) =>
      `other nodes carry ${e.taints?.length ? `the taint${e.taints.length > 1 ? 's' : ''} ${names(e.taints)}` : 'a taint'} the pods do not tolerate`,
  },
  filterTerms: ['untolerated', 'tolerate'],
  recognition: {
    clauses: anyOf('untolerated taint', "didn't tolerate", 'did not tolerate', 'not tolerate taint'),
    schedulingReason: true,
  },
  diagnose: (f) => {
    const taints = f.all('taints');
    const custom = taints.filter((taint) => !isSystemTaint(taint));
    const system = taints.filter(isSystemTaint);
    const node = f.first('nodes', '<node-name>');
    const pools = taintsByNodepool(f.evidence);
    const owners = taints.map((taint) => `${taint} (${taintOwner(taint, pools)})`);
    const lead = custom[0] ?? taints[0];
    const leadPools = lead ? poolsOf(lead, pools) : [];
    const refusals = otherPoolRefusals(f.evidence, leadPools);
    const tolerate = changeTemplateStep(
      f,
      custom.length || !system.length
        ? 'Only if the pods belong on those nodes: add a matching toleration to the workload'
        : 'Do this now: tolerate the taint only if the pods must run on such nodes',
      `A toleration lets the pods onto the tainted nodes (GPU or dedicated ones too); it does not make another NodePool fit. Add to the pod template:\n${tolerationYaml(lead)}`,
    );
    // For a user's taint, a toleration is not the first step: the pods usually belong on another NodePool.
    const steps: RemediationStep[] =
      custom.length > 0 || system.length === 0
        ? [
            {
              title: 'Do this now: see why no NodePool without this taint fits the pods',
              detail:
                (refusals.length
                  ? `Karpenter said: ${refusals.join('; ')}. `
                  : 'Karpenter logs, per NodePool, why it did not fit (incompatible requirements, limits, taints). ') +
                "Compare the NodePools' taints and requirements with the pods' node selector, affinity and tolerations; fix the one that should take them.",
              commands: [TAINTS_BY_NODEPOOL, placementOf(f.workloadRef())],
            },
            tolerate,
          ]
        : [tolerate];
    if (custom.length > 0 || system.length === 0) {
      const taint = custom[0];
      steps.push({
        title: 'Durable fix: or remove the taint where it is set, if the pods belong on those nodes',
        detail: leadPools.length
          ? `NodePool ${leadPools.join(', ')} sets it in spec.template.spec.taints: remove it there. Side effect: a template change is drift, so Karpenter replaces every node of the pool (within its disruption budgets). Nodes tainted by hand lose it with kubectl taint.`
          : 'Find who sets it: a NodePool (spec.template.spec.taints, or startupTaints that a DaemonSet should remove), a managed node group, or kubectl taint by hand. Remove it there; a NodePool template change is drift and replaces every node of the pool (within its disruption budgets).',
        commands: [
          `kubectl get nodes -o 'custom-columns=NAME:.metadata.name,NODEPOOL:.metadata.labels.karpenter\\.sh/nodepool,NODEGROUP:.metadata.labels.eks\\.amazonaws\\.com/nodegroup,TAINTS:.spec.taints' --no-headers${taint ? ` | grep ${shellArg(taintKey(taint))}` : ''}`,
          // One command per key and effect: `dedicated=gpu` and `dedicated=non-gpu` are both removed by `dedicated-`.
          ...new Set(custom.map((t) => `kubectl taint nodes ${node} ${shellArg(taintRemoval(t))}`)),
        ],
      });
    }
    if (system.length > 0) {
      steps.push({
        title:
          custom.length > 0
            ? 'System taints are set by Kubernetes, Karpenter or EKS'
            : 'Durable fix: find why the system taint stays, rather than tolerating it',
        detail: `${system.map((t) => `${t}: ${taintOwner(t, pools)}`).join('; ')}. Do not remove them by hand; if they persist, see why the node is not ready.`,
        commands: [],
      });
    }
    return {
      diagnosis:
        `Pods${f.where('workloads', 'of')} do not tolerate the taint${taints.length > 1 ? 's' : ''}` +
        `${owners.length ? ` ${owners.join(', ')}` : ''} of the available nodes, so the scheduler cannot place them there.`,
      remediation: steps,
      docs: [DOCS.taints, DOCS.karpenterScheduling],
    };
  },
  examples: {
    fires: [
      {
        line: 'fit failure summary on nodes : NoVolumeZoneConflict (7), PodToleratesNodeTaints (3)',
        source: 'https://github.com/kubernetes/kops/issues/3235 (real-lines-train train-323)',
      },
      {
        line: '  Warning  FailedScheduling  12s (x6 over 1m)  default-scheduler  0/4 nodes are available: 2 MatchNodeSelector, 2 PodToleratesNodeTaints.',
        source: 'constructed from kube-scheduler v1.9 FailedScheduling with predicate names (describe row)',
      },

      {
        line: "0/5 nodes are available: 3 node(s) had taint {dedicated: gpu}, that the pod didn't tolerate, 2 node(s) had taint {dedicated: non-gpu}, that the pod didn't tolerate",
        source: seedSection(9),
      },
      {
        line: "Warning  FailedScheduling  4m35s (x39 over 50m)  default-scheduler  0/5 nodes are available: 1 node(s) had taint {karpenter.sh/not-ready: }, that the pod didn't tolerate, 4 node(s) didn't match node selector.",
        source:
          'https://github.com/aws/karpenter-provider-aws/issues/644 (test/fixtures/karpenter-samples.jsonl ref-028)',
      },
      {
        line: '{"level":"ERROR","message":"could not schedule pod","errorCauses":[{"error":"incompatible with nodepool \\"a\\", did not tolerate team=x:NoSchedule"}]}',
        source: "constructed from Karpenter's scheduler error 'incompatible with nodepool %q, did not tolerate %s'",
      },
    ],
    silent: [
      {
        line: '{"level":"INFO","time":"2025-04-04T10:15:20.643Z","logger":"controller","caller":"termination/controller.go:109","message":"tainted node","controller":"node.termination","controllerGroup":"","controllerKind":"Node","Node":{"name":"ip-10-174-47-160.ec2.internal"},"namespace":"","name":"ip-10-174-47-160.ec2.internal","reconcileID":"bbe98730-ceda-4294-87e4-17bb31434e11","taint.Key":"karpenter.sh/disrupted","taint.Value":"","taint.Effect":"NoSchedule"}',
        source:
          'https://github.com/kubernetes-sigs/karpenter/issues/2123 (test/fixtures/karpenter-samples.jsonl ref-044)',
      },
      {
        line: '{"level":"INFO","time":"2025-04-23T15:05:56.637Z","logger":"controller","message":"tainted node","commit":"0871602","controller":"node.termination","controllerGroup":"","controllerKind":"Node","Node":{"name":"ip-10-0-155-52.eu-west-1.compute.internal"},"namespace":"","name":"ip-10-0-155-52.eu-west-1.compute.internal","reconcileID":"d686553c-59ea-4835-8a99-37913dd82264","NodeClaim":{"name":"local-storage-raid-al2023-m5df6"},"taint.Key":"karpenter.sh/disrupted","taint.Value":"","taint.Effect":"NoSchedule"}',
        source:
          'https://github.com/awslabs/LogParserForKarpenter/blob/61d321d60040b7eadaa6922083d7e693e6c1e14e/sample-input.txt (test/fixtures/karpenter-samples.jsonl ref-061)',
      },
    ],
  },
});

/** `a, b, c and 2 more`. */
function names(values: readonly string[]): string {
  const shown = values.slice(0, 5).join(', ');
  return values.length > 5 ? `${shown} and ${values.length - 5} more` : shown;
}
