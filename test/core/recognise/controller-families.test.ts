import { rulesOf } from '../../helpers';

/**
 * The right cause beats a cause (issue 29): where two rules could claim a controller or AWS-side line,
 * the one that sends the on-call the right way is the only one reported. Lines written from the
 * emitters' templates, in more than one envelope.
 */
const event = (reason: string, message: string, type = 'Warning') =>
  JSON.stringify({ involvedObject: { kind: 'NodeClaim', name: 'default-x8k2p' }, reason, message, type });
const describeRow = (reason: string, message: string) => `  Warning  ${reason}  2m (x4 over 9m)  karpenter  ${message}`;
const zapJson = (error: string) =>
  JSON.stringify({
    level: 'ERROR',
    time: '2025-05-06T07:08:09.101Z',
    logger: 'controller',
    message: 'failed launching nodeclaim',
    error,
  });

const SUBNET_FLEET_ERROR =
  "creating instance, insufficient capacity, with fleet error(s), InsufficientFreeAddressesInSubnet: There are not enough free addresses in subnet 'subnet-0a1b2c3d4e5f67890' to satisfy the requested number of instances.";

describe('controller and AWS-side families name one cause', () => {
  it.each([
    [
      'an InsufficientCapacityError event for an exhausted subnet (Event JSON)',
      event('InsufficientCapacityError', `NodeClaim default-x8k2p event: ${SUBNET_FLEET_ERROR}`),
      ['subnet-ip-exhaustion'],
    ],
    [
      'the same event as a describe row',
      describeRow('InsufficientCapacityError', `NodeClaim default-x8k2p event: ${SUBNET_FLEET_ERROR}`),
      ['subnet-ip-exhaustion'],
    ],
    ['the same fleet error in the controller log', zapJson(SUBNET_FLEET_ERROR), ['subnet-ip-exhaustion']],
    [
      'an InsufficientCapacityError event for EC2 capacity stays EC2 capacity',
      event(
        'InsufficientCapacityError',
        'NodeClaim default-x8k2p event: creating instance, insufficient capacity, with fleet error(s), InsufficientInstanceCapacity: We currently do not have sufficient m5.large capacity in the Availability Zone you requested (us-east-1a).',
      ),
      ['insufficient-instance-capacity'],
    ],
    [
      'a FailedInflightCheck whose check is a PDB blocking the drain (v0.2x)',
      describeRow(
        'FailedInflightCheck',
        "Inflight check failed for node, Can't drain node, PDB shop/api is blocking evictions",
      ),
      ['consolidation-blocked'],
    ],
    [
      'a FailedInflightCheck whose check is an extended resource keeps its cause',
      describeRow(
        'FailedInflightCheck',
        'Inflight check failed for node, Expected resource "nvidia.com/gpu" didn\'t register on the node',
      ),
      ['node-not-initialized'],
    ],
    [
      'an old scheduler summary names each predicate',
      'fit failure summary on nodes : NoVolumeZoneConflict (2), PodToleratesNodeTaints (3), MatchNodeSelector (1)',
      ['volume-zone-conflict', 'scheduling-untolerated-taint', 'scheduling-node-selector-mismatch'],
    ],
    [
      'a NodeClass condition on its way to Unknown is healthy',
      describeRow(
        'SubnetsReady',
        'Status condition transitioned, Type: SubnetsReady, Status: False -> Unknown, Reason: AwaitingReconciliation, Message: object is awaiting reconciliation',
      ),
      [],
    ],
  ])('%s', (_name, line, rules) => {
    expect(new Set(rulesOf(line))).toEqual(new Set(rules));
  });
});
