import { CONTROLLER_RESTART_NOTE, HELM_OWNED_NOTE } from '../../advice/side-effects';
import { helmSet } from '../../advice/controller';
import { shellArg } from '../../advice/shell';
import { FIND_CONTROLLER } from '../../advice/controller';
import { DOCS } from '../../advice/docs-links';
import { anyOf, defineRule } from './types';

export default defineRule({
  info: {
    id: 'interruption-queue-error',
    title: 'Karpenter cannot use its interruption queue',
    shortTitle: 'interruption queue failing',
    severity: 'medium',
    source: 'beyond',
    family: 'configuration',
    emittedBy: 'logs',
    recognises: 'SQS interruption queue missing or its messages unparsable',
  },
  recognition: {
    clauses: anyOf(
      'parsing sqs message',
      'nonexistentqueue',
      'queuedoesnotexist',
      'queue does not exist',
      'getting sqs queue',
      'receiving sqs messages',
      'deleting sqs message',
      'interruption queue not found',
    ),
  },
  diagnose: (f) => {
    const queue = f.first('queues', '<queue-name>');
    const where = f.controller();
    const ns = shellArg(where.namespace);
    return {
      diagnosis:
        `Karpenter cannot use its interruption queue${f.where('queues', '')}: the queue is missing, or it receives ` +
        `messages that are not the EC2 events Karpenter expects. Spot interruptions and rebalance notices are then missed.`,
      remediation: [
        {
          title: 'Do this now: check that the queue exists and what sends to it',
          detail: 'Only the EventBridge rules for Karpenter should target the queue.',
          commands: [
            `aws sqs get-queue-url --queue-name ${queue}${f.region}`,
            `aws events list-rule-names-by-target --target-arn arn:aws:sqs:${f.input.region ? shellArg(f.input.region) : '<region>'}:<account>:${queue}${f.region}`,
          ],
        },
        {
          title: 'Point Karpenter at the right queue',
          detail: `The chart value settings.interruptionQueue must name the queue created for the cluster. ${HELM_OWNED_NOTE} ${CONTROLLER_RESTART_NOTE}`,
          commands: [
            ...(where.known ? [] : [FIND_CONTROLLER]),
            `kubectl -n ${ns} get deployment ${shellArg(where.deployment)} -o jsonpath='{.spec.template.spec.containers[0].env[?(@.name=="INTERRUPTION_QUEUE")].value}'`,
            ...helmSet(where, {
              'settings.interruptionQueue': queue === '<queue-name>' ? '<queue-name>' : queue,
            }).slice(1),
          ],
        },
      ],
      docs: [`${DOCS.karpenterDisruption}`],
    };
  },
  examples: {
    fires: [
      {
        line: '{"level":"ERROR","message":"Reconciler error","error":"getting queue url, AWS.SimpleQueueService.NonExistentQueue: The specified queue does not exist for this wsdl version."}',
        source:
          "constructed from Karpenter's 'getting queue url, %w' and the SQS error code AWS.SimpleQueueService.NonExistentQueue",
      },
      {
        line: '2023-10-09T03:23:22.419Z\tERROR\tcontroller.interruption\tparsing message, parsing sqs message, unmarshalling the message as Metadata, invalid character \'a\' looking for beginning of value\t{"commit": "34d50bf-dirty", "queue": "karpenter-venture-staging-queue-interruption"}',
        source:
          'https://github.com/aws/karpenter-provider-aws/issues/4772 (test/fixtures/karpenter-samples.jsonl ref-029)',
      },
    ],
    silent: [
      {
        line: '2023-10-10T05:24:20.220Z\tDEBUG\tcontroller.interruption\tremoving offering from offerings\t{"commit": "34d50bf-dirty", "queue": "karpenter-venture-preprod-queue-interruption", "messageKind": "SpotInterruptionKind", "machine": "karpenter-spot-worker-preprod-66tr5", "action": "CordonAndDrain", "node": "ip-172-27-13-123.ap-southeast-2.compute.internal", "reason": "SpotInterruptionKind", "instance-type": "t3a.small", "zone": "ap-southeast-2a", "capacity-type": "spot", "ttl": "3m0s"}',
        source:
          'https://github.com/aws/karpenter-provider-aws/issues/4772 (test/fixtures/karpenter-samples.jsonl ref-072)',
      },
      {
        line: '2023-10-10T05:24:20.236Z\tINFO\tcontroller.interruption\tinitiating delete for machine from interruption message\t{"commit": "34d50bf-dirty", "queue": "karpenter-venture-preprod-queue-interruption", "messageKind": "SpotInterruptionKind", "machine": "karpenter-spot-worker-preprod-66tr5", "action": "CordonAndDrain", "node": "ip-172-27-13-123.ap-southeast-2.compute.internal"}',
        source:
          'https://github.com/aws/karpenter-provider-aws/issues/4772 (test/fixtures/karpenter-samples.jsonl ref-073)',
      },
      {
        line: '2023-01-20T01:54:09.557Z        INFO    controller.interruption starting controller     {"commit": "f60dacd"}',
        source:
          'https://github.com/aws-ia/terraform-aws-eks-blueprints/pull/1365 (test/fixtures/karpenter-samples.jsonl ref-050)',
      },
    ],
  },
});
