import { DOCS } from '../../advice/docs-links';
import { readPodSpec } from '../../advice/workload-steps';
import { shellArg } from '../../advice/shell';
import type { RemediationStep } from '../../advice/types';
import { type DisruptionBlocker, disruptionBlockers } from '../../advice/scheduling-evidence';
import { anyOf, defineRule } from './types';
import type { KarpenterApi } from '../../common/karpenter-api';

export default defineRule({
  info: {
    id: 'consolidation-blocked',
    title: 'Consolidation or disruption is blocked',
    shortTitle: 'consolidation blocked',
    severity: 'low',
    source: 13,
    family: 'disruption',
    emittedBy: 'logs',
    recognises: 'Unconsolidatable, DisruptionBlocked, PDB prevents pod evictions, do-not-disrupt',
  },
  filterTerms: ['Unconsolidatable', 'DisruptionBlocked'],
  recognition: {
    clauses: anyOf(
      'unconsolidatable',
      'disruptionblocked',
      'prevents pod evictions',
      "violate the pod's disruption budget",
      'cannot disrupt',
      // "pod %q has \"karpenter.sh/do-not-disrupt\" annotation": not the grace-period notices, which are healthy
      'do-not-disrupt" annotation',
      'do-not-evict',
      "can't replace",
      "can't remove",
      'cannot be consolidated',
      'not all pods would schedule',
      // Drains that do not finish (the FailedDraining reason is in vocabulary/event-reasons.ts): its message
      // "Failed to drain node, %d pods are waiting to be evicted" (v0.14–v1.14), the consistency check of a node hung deleting (v0.21–v0.37) and the
      // terminator's eviction errors of every release.
      'failed to drain node',
      'pods are waiting to be evicted',
      'is blocking evictions',
      "can't drain node",
      'unable to drain node',
      'do not evict annotation',
      'violates a pdb',
      'due to pdb violation',
      'due to pdb misconfiguration',
      'eviction does not support multiple pdbs',
    ),
    // Karpenter's consolidation simulation reports why the node's running pods would not fit elsewhere in
    // the scheduler's words ("Not all pods would schedule, ns/pod => incompatible with nodepool …,
    // unsatisfiable topology constraint …", sigs.k8s.io/karpenter scheduling/scheduler.go
    // NonPendingPodSchedulingErrors): those pods are running, not pending, so the record is this finding
    // and its reasons are its cause, never a scheduling finding of its own.
    supersedes: [
      'scheduling-affinity-topology',
      'scheduling-node-selector-mismatch',
      'scheduling-untolerated-taint',
      'scheduling-insufficient-resources',
      'incompatible-requirements',
      'volume-zone-conflict',
      'nodepool-limits-exceeded',
      // FailedInflightCheck / FailedConsistencyCheck name the check; a PDB blocking the drain is the cause
      'node-not-initialized',
    ],
  },
  diagnose: (f) => {
    const blockers = disruptionBlockers(f.evidence);
    const pdbs = [
      ...new Set([
        ...f.all('pdbs').filter((p) => p.includes('/')),
        ...blockers.flatMap((b) => (b.kind === 'pdb' ? b.pdbs : [])),
      ]),
    ];
    const annotated = [...new Set(blockers.flatMap((b) => (b.kind === 'pod-annotation' ? b.pods : [])))];
    const node = f.first('nodes', '<node-name>');
    const pool = f.first('nodepools', '<nodepool-name>');
    const lead: DisruptionBlocker | undefined = blockers[0] ?? (pdbs.length ? { kind: 'pdb', pdbs } : undefined);
    const where = `${f.where('nodes', 'node')}${f.where('nodepools', 'of nodepool')}`.trim();
    const subject = where ? ` ${where}` : ' nodes';
    const cause = leadCause(lead, pdbs, annotated, f.all('pods'));
    return {
      diagnosis:
        `Karpenter cannot consolidate or disrupt${subject}: ${cause} ` +
        'The nodes keep running and the cluster costs more than it needs to. ' +
        // v1 made expiry forceful and added terminationGracePeriod; before, expiry was voluntary too (v0.37 docs).
        (f.forV1
          ? "These block only voluntary disruption (consolidation, drift): expiry, interruption and node repair still take the node, its drain waiting for them at most the NodePool's terminationGracePeriod when one is set."
          : 'These block every disruption Karpenter chooses (consolidation, drift, expiry): only an interruption or a manual kubectl delete node takes the node.'),
      remediation: [
        nowStep(
          lead,
          pdbs,
          annotated,
          node,
          pool,
          readPodSpec(f, ['nodeSelector', 'affinity', 'topologySpreadConstraints']),
        ),
        durableStep(f.karpenterApi, pool),
      ],
      docs: [DOCS.karpenterDisruption, DOCS.pdb],
    };
  },
  examples: {
    fires: [
      {
        line: 'default       0s          Warning   FailedDraining               node/ip-10-0-40-247.ec2.internal                           Failed to drain node, 4 pods are waiting to be evicted',
        source: 'https://github.com/aws/karpenter-provider-aws/issues/5806 (real-lines-train train-180)',
      },
      {
        line: '{"kind":"Event","apiVersion":"v1","involvedObject":{"kind":"Node","name":"ip-10-1-2-3.us-east-2.compute.internal"},"reason":"FailedDraining","message":"Failed to drain node, 2 pods are waiting to be evicted","type":"Warning","source":{"component":"karpenter"}}',
        source:
          "constructed from kubernetes-sigs/karpenter v0.21-v1.14 pkg/controllers/node/termination/terminator/events/events.go 'Failed to drain node, %s' (Event JSON)",
      },
      {
        line: "  Warning  FailedInflightCheck  2m (x12 over 60m)  karpenter  Inflight check failed for node, Can't drain node, PDB shop/api is blocking evictions",
        source:
          'constructed from kubernetes-sigs/karpenter@v0.25.0 pkg/controllers/inflightchecks/termination.go "Can\'t drain node, PDB %s is blocking evictions" (describe row)',
      },
      {
        line: "default   3m   Warning   FailedConsistencyCheck   nodeclaim/default-x7k2p   can't drain node, PDB shop/api is blocking evictions",
        source:
          'constructed from kubernetes-sigs/karpenter@v0.31.3 pkg/controllers/nodeclaim/consistency/termination.go "can\'t drain node, PDB %s is blocking evictions" (get events row)',
      },
      {
        line: '2023-09-01T10:00:00.000Z\tDEBUG\tcontroller.termination\tFailed to evict pod shop/api-7d4b9c6f5d-x2x9k due to PDB violation.\t{"commit": "b157d45", "node": "ip-10-1-2-3.ec2.internal"}',
        source:
          "constructed from aws/karpenter-provider-aws@v0.5.6 pkg/controllers/termination/eviction.go 'Failed to evict pod %s due to PDB violation.' (zap console)",
      },
      {
        line: '{"level":"ERROR","time":"2025-05-06T07:08:09.101Z","logger":"controller","message":"Reconciler error","commit":"a1b2c3d","controller":"node.termination","error":"evicting pod violates a PDB"}',
        source:
          "constructed from kubernetes-sigs/karpenter v1.5-v1.6 pkg/controllers/node/termination/terminator/eviction.go 'evicting pod violates a PDB' (zap JSON)",
      },

      {
        line: '  Normal  Unconsolidatable  6m10s  karpenter  pdb "shop/api" prevents pod evictions',
        source:
          "constructed from Karpenter's Unconsolidatable event with the disruption reason 'pdb %q prevents pod evictions'",
      },
      {
        line: 'Normal  Unconsolidatable  2m  karpenter  Not all pods would schedule, pod default/web-1 would schedule against uninitialized nodeclaim/default-abcde',
        source: "constructed from Karpenter's Unconsolidatable event 'Not all pods would schedule, %s'",
      },
      {
        line: "  Normal  Unconsolidatable  14m (x6 over 3h25m)  karpenter  Can't replace a spot node with a spot node",
        source:
          'https://github.com/kubernetes-sigs/karpenter/issues/669 (test/fixtures/karpenter-samples.jsonl ref-006)',
      },
      {
        line: " Normal  Unconsolidatable  6m10s (x5 over 67m)  karpenter  Can't remove without creating 2 candidates    ",
        source:
          'https://github.com/kubernetes-sigs/karpenter/issues/1442 (test/fixtures/karpenter-samples.jsonl ref-007)',
      },
    ],
    silent: [
      {
        line: '  Normal  Evicted  1m  karpenter  Evicted pod: shop/api-7d4b9c6f5d-x2x9k',
        source:
          "constructed from kubernetes-sigs/karpenter v1.2-v1.14 pkg/controllers/node/termination/terminator/events/events.go 'Evicted pod: ' (healthy)",
      },

      {
        line: '3m42s       Normal    DisruptionLaunching              nodeclaim/general-purpose-l6dpl   Launching NodeClaim: Underutilized',
        source:
          'https://github.com/aws-samples/eks-workshop-v2/blob/bb1b30007ba61a406d5efc18e48dff87ea879a36/website/docs/fastpaths/operator/karpenter/consolidation.md (test/fixtures/karpenter-samples.jsonl ref-062)',
      },
      {
        line: '{"level":"INFO","message":"disrupting nodeclaim(s) via delete, terminating 1 nodes (2 pods) ip-10-0-1-7.ec2.internal/m5.large/spot"}',
        source:
          "constructed from Karpenter v1's disruption log 'disrupting nodeclaim(s) via %s, terminating %d nodes (%d pods) %s'",
      },
    ],
  },
});

/**
 * How to tune disruption in the API generation the logs show: v1 (as below), v1beta1 (v0.32-v0.37:
 * WhenUnderutilized takes no consolidateAfter, budgets from v0.34) or v1alpha5 (v0.31 and before:
 * `spec.consolidation.enabled` or `ttlSecondsAfterEmpty`), from the CRDs at those tags.
 */
function durableStep(api: KarpenterApi | undefined, pool: string): RemediationStep {
  if (api === 'karpenter.sh/v1alpha5') {
    return {
      title: 'Durable fix: enable consolidation in the Provisioner (karpenter.sh/v1alpha5)',
      detail: [
        'spec.consolidation.enabled: true lets Karpenter remove or replace underused nodes; it cannot be combined with spec.ttlSecondsAfterEmpty, which only removes nodes with no pods but DaemonSets.',
        'Pods annotated karpenter.sh/do-not-evict: "true" and nodes annotated karpenter.sh/do-not-consolidate: "true" are never chosen.',
        'PodDisruptionBudgets: keep maxUnavailable ≥ 1 (or minAvailable below the replica count) so one pod at a time can move.',
        'Consolidation policies came with Karpenter v0.32, disruption budgets with v0.34 and terminationGracePeriod with v1.0.',
      ].join(' '),
      commands: [
        `kubectl get provisioner ${pool} -o jsonpath='{.spec.consolidation}{"\\n"}{.spec.ttlSecondsAfterEmpty}{"\\n"}'`,
        `kubectl patch provisioner ${pool} --type merge -p '{"spec":{"consolidation":{"enabled":true},"ttlSecondsAfterEmpty":null}}'`,
      ],
    };
  }
  if (api === 'karpenter.sh/v1beta1') {
    return {
      title: 'Durable fix: tune disruption in the NodePool (karpenter.sh/v1beta1)',
      detail: [
        'spec.disruption.consolidationPolicy: WhenUnderutilized (the default) lets Karpenter remove or replace underused nodes and takes no consolidateAfter; WhenEmpty only removes nodes with no pods but DaemonSets, after spec.disruption.consolidateAfter.',
        'spec.disruption.budgets (Karpenter v0.34 and later): how many nodes may be disrupted at once (default nodes: "10%"), with schedule and duration for some times only.',
        'Pods and nodes annotated karpenter.sh/do-not-disrupt: "true" are never chosen for voluntary disruption.',
        'PodDisruptionBudgets: keep maxUnavailable ≥ 1 (or minAvailable below the replica count) so one pod at a time can move.',
        'Changing spec.disruption replaces no nodes: it is outside drift.',
      ].join(' '),
      commands: [
        `kubectl get nodepool ${pool} -o jsonpath='{.spec.disruption}{"\\n"}'`,
        `kubectl patch nodepool ${pool} --type merge -p '{"spec":{"disruption":{"consolidationPolicy":"WhenUnderutilized","consolidateAfter":null}}}'`,
      ],
    };
  }
  return {
    title: 'Durable fix: tune disruption in the NodePool (Karpenter v1)',
    detail: [
      'spec.disruption.consolidationPolicy: WhenEmptyOrUnderutilized (the default) lets Karpenter remove or replace underused nodes; WhenEmpty only removes nodes with no pods but DaemonSets.',
      'spec.disruption.consolidateAfter: how long a node must be without pods arriving or leaving before it is considered (for example 5m; Never turns consolidation off).',
      'spec.disruption.budgets: how many nodes may be disrupted at once (default nodes: "10%"); a budget may apply to some reasons only (Underutilized, Empty, Drifted) and, with schedule (cron, UTC) and duration together, only at some times — for example nodes: "0" during business hours for Underutilized.',
      'Pods: karpenter.sh/do-not-disrupt: "true" protects a pod for as long as it runs; since Karpenter v1.12 the value may be a duration ("30m") that protects it only for that long after it starts. A node annotated karpenter.sh/do-not-disrupt: "true" (no duration on nodes) is never chosen for voluntary disruption.',
      'spec.template.spec.terminationGracePeriod (for example 24h) bounds how long a PDB or do-not-disrupt pod can hold a node that is being drained for drift or expiry; it does not make consolidation ignore them.',
      'PodDisruptionBudgets: keep maxUnavailable ≥ 1 (or minAvailable below the replica count) so one pod at a time can move. SpotToSpotConsolidation is a feature gate (settings.featureGates.spotToSpotConsolidation in the chart) for replacing a spot node with a cheaper spot node.',
      'Changing spec.disruption replaces no nodes: it is outside drift. Side effect: changing spec.template.spec.terminationGracePeriod is drift, so Karpenter replaces every node of the pool (within its budgets); set it when that is acceptable.',
    ]
      .join(' ')
      .concat(`\nNodePool disruption settings, for example:\n${DISRUPTION_YAML}`),
    commands: [
      `kubectl get nodepool ${pool} -o jsonpath='{.spec.disruption}{"\\n"}{.spec.template.spec.terminationGracePeriod}{"\\n"}'`,
      `kubectl patch nodepool ${pool} --type merge -p '{"spec":{"disruption":{"consolidationPolicy":"WhenEmptyOrUnderutilized","consolidateAfter":"5m"}}}'`,
    ],
  };
}

const DISRUPTION_YAML = `spec:
  disruption:
    consolidationPolicy: WhenEmptyOrUnderutilized
    consolidateAfter: 5m
    budgets:
      - nodes: "10%"
      - nodes: "0"                 # no consolidation 09:00-17:00 UTC on weekdays
        reasons: ["Underutilized"]
        schedule: "0 9 * * mon-fri"
        duration: 8h
  template:
    spec:
      terminationGracePeriod: 24h`;

/** The blocker in one sentence, named when the evidence names it. */
function leadCause(lead: DisruptionBlocker | undefined, pdbs: string[], annotated: string[], pods: string[]): string {
  switch (lead?.kind) {
    case 'pdb':
      if (lead.overlapping) {
        return `${pdbs.length ? `PodDisruptionBudgets ${pdbs.join(', ')}` : 'more than one PodDisruptionBudget'} select the same pod: the eviction API refuses a pod that more than one PDB covers, whatever they allow, so it cannot be moved until only one does.`;
      }
      return pdbs.length
        ? `PodDisruptionBudget ${pdbs.join(', ')} allows no eviction now, so the pods it covers cannot be moved.`
        : 'a PodDisruptionBudget allows no eviction now, so the pods it covers cannot be moved.';
    case 'pod-annotation':
      return annotated.length
        ? `pod ${annotated.join(', ')} carries the karpenter.sh/do-not-disrupt annotation.`
        : 'a pod carries the karpenter.sh/do-not-disrupt annotation.';
    case 'node-annotation':
      return 'the node carries the karpenter.sh/do-not-disrupt annotation.';
    case 'budget':
      return `the NodePool's disruption budget allows no disruption${lead.reason ? ` for ${lead.reason}` : ''} now.`;
    case 'when-empty':
      return `NodePool ${lead.nodepool ?? ''} has consolidationPolicy WhenEmpty and the node still runs pods.`.replace(
        '  ',
        ' ',
      );
    case 'consolidation-disabled':
      return `NodePool ${lead.nodepool ?? ''} has consolidation disabled (consolidateAfter: Never).`.replace('  ', ' ');
    case 'spot-to-spot':
      return 'replacing a spot node with a cheaper spot node needs the SpotToSpotConsolidation feature gate.';
    case 'not-all-pods-schedule':
      return pods.length
        ? `pod ${pods[0]} (and maybe others of the node) would not fit anywhere else (requests, affinity, topology spread or volumes pin it).`
        : "some of the node's pods would not fit anywhere else (requests, affinity, topology spread or volumes pin them).";
    case 'no-cheaper-node':
      return 'no cheaper node can take its pods: it is already the cheapest fit.';
    default:
      return 'a PodDisruptionBudget that allows no eviction, a karpenter.sh/do-not-disrupt pod or node, a disruption budget, or pods that fit nowhere else keep it.';
  }
}

/** One step to take now, for the blocker the evidence names. */
function nowStep(
  lead: DisruptionBlocker | undefined,
  pdbs: string[],
  annotated: string[],
  node: string,
  pool: string,
  podSpec: string,
): RemediationStep {
  if (lead?.kind === 'pdb' && lead.overlapping) {
    const named = (pdbs.length ? pdbs : ['<namespace>/<pdb-name>']).slice(0, 4);
    return {
      title: 'Do this now: see which pods the overlapping PodDisruptionBudgets both select',
      detail:
        'Eviction works only for a pod that one PDB covers. Narrow the selector of one PDB, or delete the redundant one, so each pod has a single PDB; raising their allowed disruptions does not help.',
      commands: named.map((pdb) => {
        const [namespace, name] = pdb.split('/') as [string, string];
        return `kubectl -n ${shellArg(namespace)} get pdb ${shellArg(name)} -o jsonpath='{.spec.selector}{"\\n"}'`;
      }),
    };
  }
  if (lead?.kind === 'pdb') {
    const [namespace, name] = (pdbs[0] ?? '<namespace>/<pdb-name>').split('/') as [string, string];
    return {
      title: 'Do this now: see why the PodDisruptionBudget allows no eviction',
      detail:
        'ALLOWED DISRUPTIONS 0 means every pod it covers must stay: too few replicas are ready, or maxUnavailable is 0 (minAvailable equals the replica count). Scale the workload up or let the PDB allow one disruption.',
      commands: [
        `kubectl -n ${shellArg(namespace)} get pdb ${shellArg(name)} -o wide`,
        `kubectl -n ${shellArg(namespace)} get pdb ${shellArg(name)} -o jsonpath='{.spec}{"\\n"}{.status}{"\\n"}'`,
      ],
    };
  }
  if (lead?.kind === 'pod-annotation') {
    const [namespace, name] = (annotated[0] ?? '<namespace>/<pod-name>').split('/') as [string, string];
    return {
      title: 'Do this now: check whether the pod still needs karpenter.sh/do-not-disrupt',
      detail:
        'Remove the annotation from the running pod only if the work it protects may be interrupted; the pod is not restarted. Its owner (Deployment, Job…) puts the annotation back on new pods unless the template changes.',
      commands: [
        `kubectl -n ${shellArg(namespace)} get pod ${shellArg(name)} -o jsonpath='{.metadata.annotations.karpenter\\.sh/do-not-disrupt}{"\\n"}'`,
        `kubectl -n ${shellArg(namespace)} annotate pod ${shellArg(name)} karpenter.sh/do-not-disrupt-`,
      ],
    };
  }
  if (lead?.kind === 'node-annotation') {
    return {
      title: 'Do this now: remove the do-not-disrupt annotation from the node if it is no longer wanted',
      detail: 'Someone set it on purpose; check before removing it.',
      commands: [
        `kubectl get node ${node} -o jsonpath='{.metadata.annotations.karpenter\\.sh/do-not-disrupt}{"\\n"}'`,
        `kubectl annotate node ${node} karpenter.sh/do-not-disrupt-`,
      ],
    };
  }
  if (lead?.kind === 'budget' || lead?.kind === 'when-empty' || lead?.kind === 'consolidation-disabled') {
    return {
      title: 'Do this now: read the NodePool disruption settings',
      detail:
        'A budget of nodes: "0" (now, or in its schedule window), consolidationPolicy WhenEmpty, or consolidateAfter: Never explain it.',
      commands: [`kubectl get nodepool ${pool} -o jsonpath='{.spec.disruption}{"\\n"}'`],
    };
  }
  if (lead?.kind === 'not-all-pods-schedule') {
    return {
      title: 'Do this now: read the placement constraints of the pod that would fit nowhere else',
      detail:
        "Karpenter moves a node's pods only if each fits on another node or on a cheaper new one. A nodeSelector, a required pod affinity or anti-affinity, topologySpreadConstraints or a volume bound to one zone can pin a pod: where strict placement is not needed, whenUnsatisfiable: ScheduleAnyway or preferred (not required) affinity lets it move.",
      commands: [podSpec],
    };
  }
  return {
    title: 'Do this now: find what blocks disruption',
    detail: 'The Unconsolidatable and DisruptionBlocked events name the pod, the PDB or the setting.',
    commands: [
      'kubectl get events -A --field-selector reason=Unconsolidatable',
      'kubectl get events -A --field-selector reason=DisruptionBlocked',
      'kubectl get pdb -A',
      `kubectl get pods -A -o jsonpath='{range .items[?(@.metadata.annotations.karpenter\\.sh/do-not-disrupt)]}{.metadata.namespace}/{.metadata.name}{"\\n"}{end}'`,
    ],
  };
}
