import { DOCS } from '../../advice/docs-links';
import { anyOf, defineRule } from './types';

export default defineRule({
  info: {
    id: 'nodepool-limits-exceeded',
    title: 'NodePool limits stop Karpenter from adding capacity',
    shortTitle: 'NodePool limit reached',
    severity: 'high',
    source: 'beyond',
    family: 'capacity',
    emittedBy: 'logs',
    recognises: '"all available instance types exceed limits for nodepool/provisioner"',
    keyEntity: 'nodepools',
  },
  resolvedByPlacement: true,
  scheduling: { leadRank: 4, asCause: () => 'a NodePool has reached its limits' },
  recognition: {
    clauses: anyOf(
      'exceed limits for',
      'exceed limits',
      'exceeds limits',
      'exceeded limits',
      'exceed nodepool limits',
      'exceeds nodepool limits',
      'exceed provisioner limits',
      'exceeds provisioner limits',
      'nodepool limits exceeded',
    ),
    schedulingReason: true,
  },
  diagnose: (f) => {
    const pool = f.first('nodepools', '<nodepool-name>');
    return {
      diagnosis:
        `NodePool${f.where('nodepools', '')} has reached its resource limits: every instance type that fits the pending ` +
        `pods would take it past spec.limits, so Karpenter launches nothing more for it.`,
      remediation: [
        {
          title: 'Do this now: compare the limits with what the NodePool uses, and raise them if the spend is intended',
          detail:
            'status.resources is what its nodes use now. Changing spec.limits replaces no nodes: limits, weight and disruption settings are outside drift.',
          commands: [
            `kubectl get nodepool ${pool} -o jsonpath='{.spec.limits}{"\\n"}{.status.resources}{"\\n"}'`,
            `kubectl patch nodepool ${pool} --type merge -p '{"spec":{"limits":{"cpu":"<new-cpu-limit>"}}}'`,
          ],
        },
        {
          title: 'Durable fix: find why the NodePool grew, or let another NodePool take the overflow',
          detail:
            'Look for nodes consolidation cannot remove (a "Consolidation or disruption is blocked" finding names the PDB or pod), requests far above use, or pods that belong to another pool. A second NodePool with a lower spec.weight is used once this one is at its limits.',
          commands: [
            `kubectl get nodeclaims -l karpenter.sh/nodepool=${pool} -o 'custom-columns=NAME:.metadata.name,TYPE:.metadata.labels.node\\.kubernetes\\.io/instance-type,CAPACITY:.metadata.labels.karpenter\\.sh/capacity-type,CREATED:.metadata.creationTimestamp'`,
          ],
        },
      ],
      docs: [DOCS.karpenterNodePools],
    };
  },
  examples: {
    fires: [
      {
        line: 'all available instance types exceed limits for nodepool: "batch"',
        source:
          "constructed from Karpenter's scheduler error 'all available instance types exceed limits for nodepool: %q'",
      },
      {
        line: '{"level":"ERROR","time":"2024-05-28T20:49:25.812Z","logger":"controller.provisioner","message":"Could not schedule pod, all available instance types exceed limits for nodepool: \\"default\\"","commit":"17dd42b","pod":"podname/model-d4dnm"}',
        source:
          'https://github.com/aws/karpenter-provider-aws/issues/6292 (test/fixtures/karpenter-samples.jsonl ref-025)',
      },
    ],
    silent: [
      {
        line: 'karpenter-karpenter-67fbcf9bd9-f4lkn {"level":"DEBUG","time":"2023-12-29T10:07:07.016Z","logger":"controller.provisioner","message":"181 out of 643 instance types were excluded because they would breach limits","commit":"a70b39e","nodepool":"amd64-windows2022"}',
        source: 'https://github.com/aws/karpenter-provider-aws/issues/5404 (real-lines-train train-036)',
      },

      {
        line: '2023-02-13T10:21:45.282Z        INFO    controller.provisioner  launching machine with 1 pods requesting {"cpu":"3125m","memory":"3Gi","pods":"3"} from types r5a.xlarge, m6a.xlarge, r6a.xlarge, m6i.xlarge, m5a.xlarge    {"commit": "8c27519-dirty", "provisioner": "spot"}',
        source:
          'https://github.com/aws/karpenter-provider-aws/issues/3390 (test/fixtures/karpenter-samples.jsonl ref-070)',
      },
    ],
  },
});
