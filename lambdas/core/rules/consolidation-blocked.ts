import { DOCS } from '../advice/docs-links';
import { anyOf, defineRule } from './types';

export default defineRule({
  info: {
    id: 'consolidation-blocked',
    title: 'Consolidation or disruption is blocked',
    severity: 'low',
    source: 13,
    family: 'disruption',
    emittedBy: 'logs',
    recognises: 'Unconsolidatable, DisruptionBlocked, PDB prevents pod evictions, do-not-disrupt',
  },
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
    ),
  },
  diagnose: (f) => ({
    diagnosis:
      `Karpenter cannot consolidate or disrupt nodes${f.where('nodes', '')}${f.where('nodepools', 'of nodepool')}` +
      `${f.where('pdbs', ': PodDisruptionBudget')}. Pods with the karpenter.sh/do-not-disrupt annotation, PDBs that allow ` +
      `no eviction, pods without a controller, or scheduling constraints keep the nodes running, and the cluster costs more than it needs to.`,
    remediation: [
      {
        title: 'Find what blocks disruption',
        detail: 'The Unconsolidatable and DisruptionBlocked events name the pod or PDB.',
        commands: [
          'kubectl get events -A --field-selector reason=Unconsolidatable',
          'kubectl get events -A --field-selector reason=DisruptionBlocked',
          'kubectl get pdb -A',
          `kubectl get pods -A -o jsonpath='{range .items[?(@.metadata.annotations.karpenter\\.sh/do-not-disrupt=="true")]}{.metadata.namespace}/{.metadata.name}{"\\n"}{end}'`,
        ],
      },
      {
        title: 'Loosen what is stricter than it needs to be',
        detail:
          'Allow at least one disruption in each PDB (maxUnavailable ≥ 1), remove do-not-disrupt where it is not needed, and relax affinity or topology spread that pins pods. Spot-to-spot consolidation needs the SpotToSpotConsolidation feature gate.',
        commands: [],
      },
    ],
    docs: [DOCS.karpenterDisruption, DOCS.pdb],
  }),
  examples: {
    fires: [
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
        source: 'https://github.com/kubernetes-sigs/karpenter/issues/669 (shared samples ref-006)',
      },
      {
        line: " Normal  Unconsolidatable  6m10s (x5 over 67m)  karpenter  Can't remove without creating 2 candidates    ",
        source: 'https://github.com/kubernetes-sigs/karpenter/issues/1442 (shared samples ref-007)',
      },
    ],
    silent: [
      {
        line: '3m42s       Normal    DisruptionLaunching              nodeclaim/general-purpose-l6dpl   Launching NodeClaim: Underutilized',
        source:
          'https://github.com/aws-samples/eks-workshop-v2/blob/bb1b30007ba61a406d5efc18e48dff87ea879a36/website/docs/fastpaths/operator/karpenter/consolidation.md (shared samples ref-062)',
      },
      {
        line: '{"level":"INFO","message":"disrupting nodeclaim(s) via delete, terminating 1 nodes (2 pods) ip-10-0-1-7.ec2.internal/m5.large/spot"}',
        source:
          "constructed from Karpenter v1's disruption log 'disrupting nodeclaim(s) via %s, terminating %d nodes (%d pods) %s'",
      },
    ],
  },
});
