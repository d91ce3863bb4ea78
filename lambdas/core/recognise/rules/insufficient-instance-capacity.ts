import { DOCS } from '../../advice/docs-links';
import { shellArg } from '../../advice/shell';
import type { RuleId } from './ids';
import { capacityZones } from '../../advice/capacity-zones';
import { anyOf, defineRule } from './types';

/**
 * Karpenter's own wrapper around several fleet errors, and the event reason it is published under: a
 * specific cause beside it is the diagnosis.
 */
export const GENERIC_CAPACITY_FRAGMENTS: readonly string[] = [
  'insufficient capacity',
  'insufficientcapacity',
  'insufficientcapacityerror',
];

/**
 * Rules whose cause Karpenter also wraps as InsufficientCapacityError (its unfulfillable-capacity set,
 * pkg/errors/errors.go), beside those that say so with `refinesCapacityWrapper`: an exhausted subnet.
 */
export const WRAPPED_CAPACITY_CAUSES: readonly RuleId[] = ['subnet-ip-exhaustion'];

export default defineRule({
  info: {
    id: 'insufficient-instance-capacity',
    title: 'EC2 has no capacity for the requested instance types',
    shortTitle: 'no EC2 capacity',
    severity: 'high',
    source: 'beyond',
    family: 'capacity',
    emittedBy: 'logs',
    recognises: 'InsufficientInstanceCapacity, UnfulfillableCapacity, "insufficient capacity"',
    keyEntity: 'nodepools',
  },
  filterTerms: ['Insufficient'],
  recognition: {
    clauses: anyOf(
      'insufficientinstancecapacity',
      'unfulfillablecapacity',
      'insufficient capacity',
      'insufficientcapacity',
      'insufficienthostcapacity',
      'insufficientreservedinstancecapacity',
      'instance types were unavailable',
      'spotmaxpricetoolow',
      // EC2's own message text, as Auto Scaling status reasons and consoles show it without the code
      'we currently do not have sufficient',
      'there is no spot capacity available',
      'no spot capacity available that matches',
      // Unsupported (Karpenter counts it as unfulfillable): the type is not offered in that zone
      'is not supported in your requested availability zone',
      // SpotMaxPriceTooLow's message
      'lower than the minimum required spot request fulfillment price',
      // instance state-transition reason: a spot instance reclaimed right after launch
      'server.spotinstancetermination',
    ),
  },
  diagnose: (f) => {
    const types = f.all('instanceTypes');
    const zones = capacityZones(f.evidence, f.all('zones'));
    const what = types.length ? ` ${f.list('instanceTypes')}` : ' the requested instance types';
    const failing = zones.failing.length ? ` in ${zones.failing.join(', ')}` : '';
    const elsewhere = zones.recommended.length
      ? ` EC2 says capacity is available now in ${zones.recommended.join(', ')}: allow that zone in the NodePool if the workload can run there.`
      : '';
    return {
      diagnosis:
        `EC2 has no capacity for${what}${failing}${f.paren('capacityTypes')}.${elsewhere} Karpenter ` +
        `retries other offerings, but a NodePool that allows few types, zones or capacity types runs out of options.`,
      remediation: [
        {
          title: 'See which zones offer the instance types',
          detail: 'An instance type offered in few zones of the region fails more often.',
          commands: [
            `aws ec2 describe-instance-type-offerings --location-type availability-zone --filters Name=instance-type,Values=${types.length ? types.map(shellArg).join(',') : '<instance-type>'}${f.region}`,
          ],
        },
        {
          title: 'Make the NodePool more flexible',
          detail:
            'Allow more instance families and sizes, every zone of the cluster, and both spot and on-demand where the workload can use them. ' +
            'Widening requirements replaces no existing node: Karpenter drifts only nodes that no longer match them. ' +
            "Narrowing them, or changing template labels, taints or kubelet settings in the same edit, is drift: Karpenter then replaces the nodes built from the old spec, within the NodePool's disruption budgets.",
          commands: [`kubectl edit nodepool ${f.first('nodepools', '<nodepool-name>')}`],
        },
      ],
      docs: [DOCS.karpenterNodePools, DOCS.launchTroubleshooting],
    };
  },
  examples: {
    fires: [
      {
        line: 'Status Reason: Your Spot request price of 0.012 is lower than the minimum required Spot request fulfillment price of 0.0135. Launching EC2 instance failed.',
        source: "constructed from EC2's SpotMaxPriceTooLow message in an Auto Scaling status reason",
      },
      {
        line: '│       * Scaling activity (d5a62772-25a3-3218-2623-e9ec177e0692): Failed: We currently do not have sufficient c4.8xlarge capacity in the Availability Zone you requested (us-east-2b). Our system will be working on provisioning additional capacity. You can currently get c4.8xlarge capacity by not specifying an Availability Zone in your request or choosing us-east-2a, us-east-2c. Launching EC2 instance failed.',
        source: 'https://github.com/defenseunicorns/delivery-aws-iac/issues/334 (real-lines-train train-253)',
      },
      {
        line: '"StatusMessage": "We currently do not have sufficient m5.large capacity in the Availability Zone you requested (us-east-1a). Our system will be working on provisioning additional capacity. You can currently get m5.large capacity by not specifying an Availability Zone in your request or choosing us-east-1b, us-east-1c. Launching EC2 instance failed.",',
        source:
          "constructed from EC2's InsufficientInstanceCapacity message as aws autoscaling describe-scaling-activities prints it",
      },
      {
        line: 'State transition reason: Server.InsufficientInstanceCapacity: Insufficient capacity.',
        source: 'constructed from the EC2 StateReason codes (StateReasonType, API 2013-02-01)',
      },

      {
        line: '{"message":"failed launching nodeclaim","error":"creating instance, insufficient capacity, with fleet error(s), InsufficientInstanceCapacity: We currently do not have sufficient g5.xlarge capacity"}',
        source:
          "constructed from Karpenter's 'creating instance, insufficient capacity, with fleet error(s), %s' and the EC2 error code InsufficientInstanceCapacity",
      },
    ],
    silent: [
      {
        line: "  Warning  InsufficientCapacityError  2m  karpenter  NodeClaim default-x8k2p event: creating instance, insufficient capacity, with fleet error(s), InsufficientFreeAddressesInSubnet: There are not enough free addresses in subnet 'subnet-0a1b2c3d4e5f67890' to satisfy the requested number of instances.",
        source:
          "constructed from Karpenter v1's InsufficientCapacityError event for an exhausted subnet: subnet-ip-exhaustion alone (issue 29)",
      },

      {
        line: '{"level":"DEBUG","message":"removing offering from offerings","reason":"InsufficientInstanceCapacity"}',
        source:
          "constructed from Karpenter's unavailable-offerings cache log 'removing offering from offerings' (a handled fleet error)",
      },
      {
        line: '2023-10-10T05:24:20.220Z\tDEBUG\tcontroller.interruption\tremoving offering from offerings\t{"commit": "34d50bf-dirty", "queue": "karpenter-venture-preprod-queue-interruption", "messageKind": "SpotInterruptionKind", "machine": "karpenter-spot-worker-preprod-66tr5", "action": "CordonAndDrain", "node": "ip-172-27-13-123.ap-southeast-2.compute.internal", "reason": "SpotInterruptionKind", "instance-type": "t3a.small", "zone": "ap-southeast-2a", "capacity-type": "spot", "ttl": "3m0s"}',
        source:
          'https://github.com/aws/karpenter-provider-aws/issues/4772 (test/fixtures/karpenter-samples.jsonl ref-072)',
      },
    ],
  },
});
