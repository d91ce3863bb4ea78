import { DOCS } from '../../advice/docs-links';
import { anyOf, defineRule } from './types';

export default defineRule({
  info: {
    id: 'nodeclass-not-ready',
    title: 'NodePool or EC2NodeClass is missing or not ready',
    shortTitle: 'NodePool/NodeClass not ready',
    severity: 'critical',
    source: 'beyond',
    family: 'configuration',
    emittedBy: 'logs',
    recognises: '"no nodepools found", "ignoring nodepool, not ready", EC2NodeClass not found / not ready',
    keyEntity: 'nodeclasses',
  },
  filterTerms: ['False'],
  recognition: {
    clauses: [
      ...anyOf(
        'no nodepools found',
        'no provisioners found',
        'ignoring nodepool',
        'ignoring provisioner',
        'nodeclassnotready',
        'resolving node class',
        'resolving nodeclass',
        'resolving ec2nodeclass',
        // the Ready condition's message lists the conditions that hold it False (operatorpkg status, v1)
        'validationsucceeded=false',
        'instanceprofileready=false',
      ),
      ['ec2nodeclass', 'not found'],
      ['nodeclass', 'not ready'],
      ['awsnodetemplate', 'not found'],
      // operatorpkg's error for a NodeClass whose status is not written yet, when a launch needs it (v1);
      // the same words as a condition's message on its way to Unknown are healthy
      ['object is awaiting reconciliation', 'launching nodeclaim'],
      ['object is awaiting reconciliation', 'creating instance'],
    ],
    // v0.5-v0.15: "Failed to provision new node, … matched 0/%d provisioners": no Provisioner applies
    patterns: [{ gate: 'matched 0/', pattern: /\bmatched 0\/\d+ provisioners/ }],
    conditions: [
      { type: 'ready' },
      { type: 'instanceprofileready' },
      { type: 'nodeclassready' },
      // validation waits for the other conditions; its own failures are resource-validation-failed
      { type: 'validationsucceeded', reasons: ['dependenciesnotready'] },
    ],
  },
  diagnose: (f) => ({
    diagnosis:
      `Karpenter has no usable NodePool${f.where('nodeclasses', ': EC2NodeClass')}${f.paren('nodepools', 'NodePool')} ` +
      `is missing or not ready, so no nodes can be launched for it.`,
    remediation: [
      {
        title: 'See which NodePool and EC2NodeClass are not ready, and why',
        detail: 'The Ready condition message names the missing subnets, security groups, AMIs or instance profile.',
        commands: [
          'kubectl get nodepools,ec2nodeclasses',
          `kubectl describe ec2nodeclass ${f.first('nodeclasses', '<ec2nodeclass-name>')}`,
          'kubectl get nodepools -o jsonpath=\'{range .items[*]}{.metadata.name}{" -> "}{.spec.template.spec.nodeClassRef.name}{"\\n"}{end}\'',
        ],
      },
    ],
    docs: [DOCS.karpenterNodeClasses, DOCS.karpenterNodePools],
  }),
  examples: {
    fires: [
      {
        line: '2021-12-05T14:21:06.711Z        ERROR   controller.scheduling   Failed to schedule, matched 0/0 provisioners    {"commit": "84b683b", "pod": "default/inflate-6bb5974b-d58fb"}',
        source: 'https://github.com/aws/karpenter-provider-aws/issues/920 (real-lines-train train-003)',
      },
      {
        line: '    message: ValidationSucceeded=False',
        source: 'https://github.com/aws/karpenter-provider-aws/pull/9390 (real-lines-train train-195)',
      },
      {
        line: '"error": "launching nodeclaim, resolving ec2nodeclass, object is awaiting reconciliation"',
        source: 'https://github.com/aws-ia/terraform-aws-eks-blueprints-addons/pull/404 (real-lines-train train-196)',
      },
      {
        line: '{"level":"ERROR","time":"2025-05-06T07:08:09.101Z","logger":"controller","message":"failed launching nodeclaim","commit":"a1b2c3d","error":"launching nodeclaim, resolving ec2nodeclass, object is awaiting reconciliation"}',
        source: "constructed from operatorpkg object.AwaitingReconciliation in Karpenter v1 'launching nodeclaim, %w'",
      },

      {
        line: '{"involvedObject":{"kind":"NodePool","name":"default"},"reason":"Ready","message":"Status condition transitioned, Type: Ready, Status: True -> False, Reason: NodeClassNotReady"}',
        source:
          "constructed from Karpenter v1's status condition event template 'Status condition transitioned, Type: %s, Status: %s -> %s, Reason: %s'",
      },
      {
        line: '{"level":"ERROR","time":"2024-05-28T20:49:19.963Z","logger":"controller.disruption","message":"listing instance types for default, resolving node class, EC2NodeClass.karpenter.k8s.aws \\"default\\" not found","commit":"17dd42b"}',
        source:
          'https://github.com/aws/karpenter-provider-aws/issues/6292 (test/fixtures/karpenter-samples.jsonl ref-022)',
      },
    ],
    silent: [
      {
        line: '  Normal  SecurityGroupsReady   38s   karpenter  Status condition transitioned, Type: SecurityGroupsReady, Status: False -> Unknown, Reason: AwaitingReconciliation, Message: object is awaiting reconciliation',
        source: 'https://github.com/aws/karpenter-provider-aws/issues/7436 (real-lines-train train-205)',
      },

      {
        line: '{"involvedObject":{"kind":"EC2NodeClass","name":"default"},"reason":"Ready","message":"Status condition transitioned, Type: Ready, Status: Unknown -> True, Reason: Ready"}',
        source:
          "constructed from Karpenter v1's status condition event template 'Status condition transitioned, Type: %s, Status: %s -> %s, Reason: %s'",
      },
    ],
  },
});
