import { capacityZones } from '../advice/capacity-zones';
import { DOCS } from '../advice/docs-links';
import { shellArg } from '../advice/shell';
import { anyOf, defineRule } from './types';

/** Karpenter's own wrapper around several fleet errors: a specific cause beside it is the diagnosis. */
export const GENERIC_CAPACITY_FRAGMENTS: readonly string[] = ['insufficient capacity', 'insufficientcapacity'];

export default defineRule({
  info: {
    id: 'insufficient-instance-capacity',
    title: 'EC2 has no capacity for the requested instance types',
    severity: 'high',
    source: 'beyond',
    family: 'capacity',
    emittedBy: 'logs',
    recognises: 'InsufficientInstanceCapacity, UnfulfillableCapacity, "insufficient capacity"',
    keyEntity: 'nodepools',
  },
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
        line: '{"message":"failed launching nodeclaim","error":"creating instance, insufficient capacity, with fleet error(s), InsufficientInstanceCapacity: We currently do not have sufficient g5.xlarge capacity"}',
        source:
          "constructed from Karpenter's 'creating instance, insufficient capacity, with fleet error(s), %s' and the EC2 error code InsufficientInstanceCapacity",
      },
    ],
    silent: [
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
