import { rulesOf } from '../../helpers';

/**
 * Lines in the shapes Karpenter, the AWS SDK (v1 and v2), kube-scheduler and kubelet use, beyond the
 * labelled samples: the rules must hold on wording they were not built from.
 */
describe('generalises across wordings and versions', () => {
  it.each([
    [
      'aws-api-unreachable',
      '{"level":"ERROR","message":"failed listing instance types","error":"operation error EC2: DescribeInstanceTypes, exceeded maximum number of attempts, 3, https response error StatusCode: 0, RequestID: , request send failed, Post \\"https://ec2.us-east-1.amazonaws.com/\\": dial tcp 10.0.0.1:443: i/o timeout"}',
    ],
    [
      'aws-permission-denied',
      '{"level":"ERROR","message":"failed launching nodeclaim","error":"creating instance, operation error EC2: CreateFleet, https response error StatusCode: 403, RequestID: 1, api error UnauthorizedOperation: You are not authorized to perform this operation."}',
    ],
    [
      'aws-permission-denied',
      'operation error STS: AssumeRoleWithWebIdentity, https response error StatusCode: 403, api error AccessDenied: Not authorized to perform sts:AssumeRoleWithWebIdentity',
    ],
    [
      'launch-template-or-ami-error',
      '{"level":"ERROR","message":"failed launching nodeclaim","error":"creating instance, with fleet error(s), InvalidParameter: Security group sg-0123456789abcdef0 and subnet subnet-0123456789abcdef0 belong to different networks."}',
    ],
    [
      'scheduling-insufficient-resources',
      'Warning  FailedScheduling  12s  karpenter  Failed to schedule pod, incompatible with nodepool "default", daemonset overhead={"cpu":"200m"}, no instance type satisfied resources {"cpu":"96","pods":"1"} and requirements karpenter.sh/capacity-type In [on-demand spot]',
    ],
    [
      'scheduling-insufficient-resources',
      '0/12 nodes are available: 12 Insufficient nvidia.com/gpu. preemption: 0/12 nodes are available: 12 No preemption victims found for incoming pod.',
    ],
    [
      'consolidation-blocked',
      'Normal  Unconsolidatable  2m  karpenter  Not all pods would schedule, pod default/web-1 would schedule against uninitialized nodeclaim/default-abcde',
    ],
    [
      'interruption-queue-error',
      '{"level":"ERROR","message":"Reconciler error","error":"getting queue url, AWS.SimpleQueueService.NonExistentQueue: The specified queue does not exist for this wsdl version."}',
    ],
    [
      'volume-attach-limit',
      'AttachVolume.Attach failed for volume "pvc-1" : rpc error: code = Internal desc = Could not attach volume "vol-0123456789abcdef0" to node "i-0123456789abcdef0": AttachmentLimitExceeded',
    ],
    [
      'node-disk-pressure',
      'Warning  FreeDiskSpaceFailed  3m  kubelet  Failed to garbage collect required amount of images. Attempted to free 4203855462 bytes, but only found 0 bytes eligible to free.',
    ],
    [
      'prefix-delegation-fragmentation',
      'InsufficientCidrBlocks: The specified subnet does not have enough free cidr blocks to satisfy the request.',
    ],
    ['webhook-tls-error', 'http: TLS handshake error from 10.0.3.7:41712: remote error: tls: bad certificate'],
    [
      'ec2-quota-exceeded',
      'creating instance, insufficient capacity, with fleet error(s), MaxSpotInstanceCountExceeded: Max spot instance count exceeded',
    ],
  ])('%s: %s', (rule, line) => {
    expect(rulesOf(line)).toContain(rule);
  });

  it.each([
    'http: TLS handshake error from 10.0.3.7:41712: EOF',
    '{"level":"INFO","message":"disrupting nodeclaim(s) via delete, terminating 1 nodes (2 pods) ip-10-0-1-7.ec2.internal/m5.large/spot"}',
    '{"level":"INFO","message":"waiting on cluster sync"}',
    '{"level":"INFO","message":"annotated nodeclaim","NodeClaim":{"name":"default-abcde"}}',
  ])('stays silent on healthy or noise line: %s', (line) => {
    expect(rulesOf(line)).toEqual([]);
  });
});
