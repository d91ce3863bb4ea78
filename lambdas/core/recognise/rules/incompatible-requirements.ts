import { readPodSpec } from '../../advice/workload-steps';
import { changeTemplateStep } from '../../advice/workload-steps';
import { DOCS } from '../../advice/docs-links';
import { describeRequirement, type RequirementConflict, requirementConflicts } from '../../advice/scheduling-evidence';
import { anyOf, defineRule, seedSection } from './types';

const ZONE_KEY = 'topology.kubernetes.io/zone';

const poolName = (conflict: RequirementConflict): string =>
  conflict.nodepoolName ? `NodePool ${conflict.nodepoolName}` : 'the NodePool';

export default defineRule({
  info: {
    id: 'incompatible-requirements',
    title: 'Pod requirements are incompatible with every NodePool',
    shortTitle: 'pods fit no NodePool',
    severity: 'medium',
    source: 12,
    family: 'scheduling',
    emittedBy: 'logs',
    recognises: '"incompatible requirements", "does not have known values", "… not in … In […]"',
    keyEntity: 'workloads',
  },
  perWorkloadCause: 'labels',
  resolvedByPlacement: true,
  scheduling: { leadRank: 1, asCause: () => "some NodePools' requirements are incompatible with the pods'" },
  filterTerms: ['incompatible', 'compatible'],
  recognition: {
    // the API server refuses a NodeClaim whose requirements exceed the CRD's maxItems (v1: 100; v0.3x: 30)
    clauses: [
      ...anyOf('incompatible requirements', 'does not have known values'),
      ['spec.requirements: too many', 'must have at most'],
    ],
    patterns: [{ gate: ' not in ', pattern: /\bnot in [a-z0-9./-]+ in \[/ }],
    schedulingReason: true,
  },
  diagnose: (f) => {
    const labels = f.all('labels');
    const nodegroupLabel = labels.some((label) => label.startsWith('eks.amazonaws.com/nodegroup'));
    const conflicts = requirementConflicts(f.evidence);
    const zone = conflicts.find((c) => c.key === ZONE_KEY);
    const lead = zone ?? conflicts[0];
    const pods = `Pods${f.where('workloads', 'of')}`;
    const cause = lead
      ? lead.key === ZONE_KEY
        ? `${pods} cannot be placed: the pod wants ${describeRequirement(lead.pod)}, ${poolName(lead)} offers ${describeRequirement(lead.nodepool)} (${ZONE_KEY}). A zone the pod wants comes from its nodeSelector or node affinity, or from a PersistentVolume already bound in that zone.`
        : `${pods} cannot be placed: the pod requires ${lead.key} ${describeRequirement(lead.pod)}, ${poolName(lead)} allows ${describeRequirement(lead.nodepool)}.`
      : `${pods} require${labels.length ? ` label${labels.length > 1 ? 's' : ''} ${f.list('labels')}` : ' labels'} with values that no NodePool can provide.`;
    const others = conflicts.filter((c) => c !== lead);
    return {
      diagnosis:
        `${cause} Karpenter creates no node for them.` +
        (others.length
          ? ` Also: ${others.map((c) => `${poolName(c)} allows ${c.key} ${describeRequirement(c.nodepool)}`).join('; ')}.`
          : '') +
        (nodegroupLabel
          ? ' eks.amazonaws.com/nodegroup is set only on managed node group nodes, never on Karpenter nodes.'
          : ''),
      remediation: [
        {
          title: 'Do this now: compare what the pod requires with what the NodePools allow',
          detail:
            lead?.key === ZONE_KEY
              ? "The pod's nodeSelector and node affinity, its volumes' zones, the NodePools' zone requirements, and the zones where the EC2NodeClass has subnets: a NodePool can only offer a zone it has a subnet in."
              : "Compare the pod's nodeSelector and node affinity with the NodePool requirements and labels.",
          commands: [
            readPodSpec(f, ['nodeSelector', 'affinity.nodeAffinity']),
            'kubectl get nodepools -o jsonpath=\'{range .items[*]}{.metadata.name}{": "}{.spec.template.spec.requirements}{" labels="}{.spec.template.metadata.labels}{"\\n"}{end}\'',
            ...(lead?.key === ZONE_KEY
              ? [
                  `kubectl -n ${f.workload().namespace} get pvc -o custom-columns=NAME:.metadata.name,VOLUME:.spec.volumeName`,
                  'kubectl get ec2nodeclasses -o jsonpath=\'{range .items[*]}{.metadata.name}{": "}{.status.subnets[*].zone}{"\\n"}{end}\'',
                ]
              : []),
          ],
        },
        changeTemplateStep(
          f,
          lead?.key === ZONE_KEY
            ? 'Durable fix: let the pod and a NodePool agree on a zone'
            : 'Durable fix: remove the node-group-specific selector, or allow the value in a NodePool',
          lead?.key === ZONE_KEY
            ? `Either allow ${describeRequirement(lead.pod)} in the NodePool's ${ZONE_KEY} requirement (the EC2NodeClass needs a subnet there; widening a requirement replaces no existing node), or change the pod's zone selector. A pod whose volume is bound in a zone can only run there: allow that zone, or use a StorageClass with volumeBindingMode: WaitForFirstConsumer for new volumes.`
            : 'Edit the workload to drop selectors such as eks.amazonaws.com/nodegroup, or add the label or value to a NodePool.',
        ),
      ],
      docs: [DOCS.karpenterScheduling, DOCS.karpenterNodePools],
    };
  },
  examples: {
    fires: [
      {
        line: 'creating node claim, NodeClaim.karpenter.sh \\"spot-8c7mc\\" is invalid: [spec.requirements: Too many: 32: must have at most 30 items, <nil>: Invalid value: \\"null\\": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation]; creating node claim, NodeClaim.karpenter.sh \\"burstable-2l6cf\\" is invalid: [spec.requirements: Too many: 33: must have at most 30 items, <nil>: Invalid value: \\"null\\": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation]',
        source: 'https://github.com/Panfactum/stack/issues/42 (real-lines-train train-184)',
      },
      {
        line: '{"level":"ERROR","time":"2025-05-06T07:08:09.101Z","logger":"controller","message":"failed launching nodeclaim","commit":"a1b2c3d","error":"creating node claim, NodeClaim.karpenter.sh \\"default-x8k2p\\" is invalid: spec.requirements: Too many: 101: must have at most 100 items"}',
        source: "constructed from the API server's maxItems refusal of a v1 NodeClaim's requirements",
      },

      {
        line: 'incompatible requirements, label \\"eks.amazonaws.com/nodegroup\\" does not have known values"',
        source: seedSection(12),
      },
      {
        line: 'incompatible requirements, key topology.kubernetes.io/zone, topology.kubernetes.io/zone In [us-east-1a] not in topology.kubernetes.io/zone In [us-east-1b us-east-1c]',
        source: seedSection(12),
      },
      {
        line: 'incompatible requirements, key nodes.ktp.io/role, nodes.ktp.io/role In [ktp-atom-apps] not in nodes.ktp.io/role In [kube-apps]',
        source: seedSection(12),
      },
    ],
    silent: [
      {
        line: '{"level":"INFO","time":"2024-02-06T09:05:23.466Z","logger":"controller.provisioner","message":"computed new nodeclaim(s) to fit pod(s)","commit":"1d7f91c","nodeclaims":1,"pods":1}',
        source:
          'https://github.com/aws/karpenter-provider-aws/issues/5578 (test/fixtures/karpenter-samples.jsonl ref-039)',
      },
      {
        line: '2023-09-21T13:14:01.659Z\tINFO\tcontroller.provisioner\tcomputed new machine(s) to fit pod(s)\t{"commit": "637a642", "machines": 1, "pods": 1}',
        source:
          'https://github.com/aws/karpenter-provider-aws/issues/4533 (test/fixtures/karpenter-samples.jsonl ref-048)',
      },
    ],
  },
});
