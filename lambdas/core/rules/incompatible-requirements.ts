import { readPodSpec } from '../advice/workload-steps';
import { changeTemplateStep } from '../advice/workload-steps';
import { DOCS } from '../advice/docs-links';
import { anyOf, defineRule } from './types';

export default defineRule({
  info: {
    id: 'incompatible-requirements',
    title: 'Pod requirements are incompatible with every NodePool',
    severity: 'medium',
    source: 12,
    family: 'scheduling',
    emittedBy: 'logs',
    recognises: '"incompatible requirements", "does not have known values", "… not in … In […]"',
    keyEntity: 'workloads',
  },
  recognition: {
    clauses: anyOf('incompatible requirements', 'does not have known values'),
    patterns: [{ gate: ' not in ', pattern: /\bnot in [a-z0-9./-]+ in \[/ }],
    schedulingReason: true,
  },
  diagnose: (f) => {
    const labels = f.all('labels');
    const nodegroupLabel = labels.some((label) => label.startsWith('eks.amazonaws.com/nodegroup'));
    return {
      diagnosis:
        `Pods${f.where('workloads', 'of')} require${labels.length ? ` label${labels.length > 1 ? 's' : ''} ${f.list('labels')}` : ' labels'} ` +
        `with values that no NodePool can provide, so Karpenter does not create nodes for them.` +
        (nodegroupLabel
          ? ' eks.amazonaws.com/nodegroup is set only on managed node group nodes, never on Karpenter nodes.'
          : ''),
      remediation: [
        {
          title: 'Find the requirement that no NodePool satisfies',
          detail: "Compare the pod's nodeSelector and node affinity with the NodePool requirements and labels.",
          commands: [
            readPodSpec(f, ['nodeSelector', 'affinity.nodeAffinity']),
            'kubectl get nodepools -o jsonpath=\'{range .items[*]}{.metadata.name}{": "}{.spec.template.spec.requirements}{" labels="}{.spec.template.metadata.labels}{"\\n"}{end}\'',
          ],
        },
        changeTemplateStep(
          f,
          'Remove the node-group-specific selector, or allow the value in a NodePool',
          'Edit the workload to drop selectors such as eks.amazonaws.com/nodegroup, or add the label or value to a NodePool.',
        ),
      ],
      docs: [DOCS.karpenterScheduling, DOCS.karpenterNodePools],
    };
  },
  examples: {
    fires: [
      {
        line: 'incompatible requirements, label \\"eks.amazonaws.com/nodegroup\\" does not have known values"',
        source: 'seed §12 (shared/seed/karpenter-scaling-troubleshooting.es.txt)',
      },
      {
        line: 'incompatible requirements, key topology.kubernetes.io/zone, topology.kubernetes.io/zone In [us-east-1a] not in topology.kubernetes.io/zone In [us-east-1b us-east-1c]',
        source: 'seed §12 (shared/seed/karpenter-scaling-troubleshooting.es.txt)',
      },
      {
        line: 'incompatible requirements, key nodes.ktp.io/role, nodes.ktp.io/role In [ktp-atom-apps] not in nodes.ktp.io/role In [kube-apps]',
        source: 'seed §12 (shared/seed/karpenter-scaling-troubleshooting.es.txt)',
      },
    ],
    silent: [
      {
        line: '{"level":"INFO","time":"2024-02-06T09:05:23.466Z","logger":"controller.provisioner","message":"computed new nodeclaim(s) to fit pod(s)","commit":"1d7f91c","nodeclaims":1,"pods":1}',
        source: 'https://github.com/aws/karpenter-provider-aws/issues/5578 (shared samples ref-039)',
      },
      {
        line: '2023-09-21T13:14:01.659Z\tINFO\tcontroller.provisioner\tcomputed new machine(s) to fit pod(s)\t{"commit": "637a642", "machines": 1, "pods": 1}',
        source: 'https://github.com/aws/karpenter-provider-aws/issues/4533 (shared samples ref-048)',
      },
    ],
  },
});
