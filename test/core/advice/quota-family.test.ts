import {
  planQuota,
  quotaBucketOf,
  quotaForCode,
  quotaOf,
  UNVERIFIED_QUOTA_CODES,
  vcpuLimitIn,
} from '../../../lambdas/core/advice/quota-family';
import { emptyContext } from '../../../lambdas/core/findings/context';
import { diagnose } from '../../../lambdas/core/recognise/rules';

describe('quotaBucketOf', () => {
  it.each([
    ['g5.xlarge', 'g-vt'],
    ['g6e.12xlarge', 'g-vt'],
    ['gr6.4xlarge', 'g-vt'],
    ['vt1.3xlarge', 'g-vt'],
    ['p4d.24xlarge', 'p'],
    ['p5.48xlarge', 'p'],
    ['inf2.xlarge', 'inf'],
    ['trn1n.32xlarge', 'trn'],
    ['x2iedn.xlarge', 'x'],
    ['x1e.xlarge', 'x'],
    ['f1.2xlarge', 'f'],
    ['dl1.24xlarge', 'dl'],
    ['hpc7g.16xlarge', 'hpc'],
    ['u-6tb1.metal', 'high-memory'],
    ['m5.large', 'standard'],
    ['c7gn.medium', 'standard'],
    ['im4gn.large', 'standard'],
    ['is4gen.large', 'standard'],
    ['d3en.xlarge', 'standard'],
    ['h1.2xlarge', 'standard'],
    ['z1d.large', 'standard'],
    ['t4g.micro', 'standard'],
    ['a1.large', 'standard'],
    ['r7iz.large', 'standard'],
  ])('%s → %s', (type, bucket) => expect(quotaBucketOf(type)).toBe(bucket));

  it('does not guess for families outside the buckets', () => {
    expect(quotaBucketOf('mac2.metal')).toBeUndefined();
    expect(quotaBucketOf('weird')).toBeUndefined();
  });
});

describe('planQuota', () => {
  it('takes the On-Demand G and VT quota for a GPU launch, with the limit EC2 stated', () => {
    const plan = planQuota({
      codes: ['VcpuLimitExceeded'],
      instanceTypes: ['g5.12xlarge', 'g5.2xlarge'],
      texts: [
        'VcpuLimitExceeded: You have requested more vCPU capacity than your current vCPU limit of 64 allows for the instance bucket',
      ],
    });
    expect(plan.quotas.map((q) => q.code)).toEqual(['L-DB2E81BA']);
    expect(plan.limit).toBe(64);
    expect(plan.spot).toBe(false);
  });

  it('names one quota per bucket when the launch request spans several', () => {
    const plan = planQuota({ codes: ['VcpuLimitExceeded'], instanceTypes: ['m5.large', 'c5.large', 'p4d.24xlarge'] });
    expect(plan.quotas.map((q) => q.code)).toEqual(['L-1216C47A', 'L-417A185B']);
  });

  it('takes Spot request quotas for MaxSpotInstanceCountExceeded', () => {
    const plan = planQuota({ codes: ['MaxSpotInstanceCountExceeded'], instanceTypes: ['trn1.32xlarge'] });
    expect(plan).toMatchObject({ spot: true, quotas: [{ code: 'L-6B0D517C', bucket: 'trn' }] });
  });

  it('names no quota when no instance type is named (Karpenter error without one)', () => {
    const plan = planQuota({ codes: ['VcpuLimitExceeded'], instanceTypes: [] });
    expect(plan.quotas).toEqual([]);
  });

  it('has no Spot quota for HPC instances, which are not sold as Spot', () => {
    expect(planQuota({ codes: ['MaxSpotInstanceCountExceeded'], instanceTypes: ['hpc6a.48xlarge'] }).quotas).toEqual(
      [],
    );
  });
});

describe('vcpuLimitIn and quotaForCode', () => {
  it('reads the limit only from the EC2 wording', () => {
    expect(vcpuLimitIn(['current vCPU limit of 1152 allows'])).toBe(1152);
    expect(vcpuLimitIn(['limit exceeded'])).toBeUndefined();
  });

  it('keeps one code per finding for the enrichment and the remediator, none when unknown', () => {
    expect(quotaForCode('VcpuLimitExceeded', 'inf2.xlarge')?.code).toBe('L-1945791B');
    expect(quotaForCode('MaxSpotInstanceCountExceeded', 'm5.large')?.code).toBe('L-34B43A08');
    expect(quotaForCode('VcpuLimitExceeded', undefined)).toBeUndefined();
  });
});

describe('quota codes and their sources', () => {
  // brennerm/aws-quota-checker aws_quota/check/ec2.py; dstackai/dstack aws/compute.py;
  // aws-solutions/quota-monitor-for-aws (On-Demand DL). Each code below is printed there with its quota.
  it.each([
    ['m5.large', false, 'L-1216C47A'],
    ['f1.2xlarge', false, 'L-74FC7D96'],
    ['g5.xlarge', false, 'L-DB2E81BA'],
    ['inf2.xlarge', false, 'L-1945791B'],
    ['p4d.24xlarge', false, 'L-417A185B'],
    ['x2iedn.xlarge', false, 'L-7295265B'],
    ['dl1.24xlarge', false, 'L-6E869C2A'],
    ['m5.large', true, 'L-34B43A08'],
    ['f1.2xlarge', true, 'L-88CF9481'],
    ['g5.xlarge', true, 'L-3819A6DF'],
    ['inf2.xlarge', true, 'L-B5D1601B'],
    ['p4d.24xlarge', true, 'L-7212CCBC'],
    ['x2iedn.xlarge', true, 'L-E3A00192'],
  ])('%s (spot %s) → %s, a verified code', (type, spot, code) => {
    const quota = quotaOf(quotaBucketOf(type)!, spot)!;
    expect(quota.code).toBe(code);
    expect(UNVERIFIED_QUOTA_CODES.has(code)).toBe(false);
  });

  it('marks the codes no source confirmed, and the advice asks to check the name before filing', () => {
    const unverified = [
      quotaOf('trn', false),
      quotaOf('hpc', false),
      quotaOf('high-memory', false),
      quotaOf('trn', true),
      quotaOf('dl', true),
    ].map((q) => q!.code);
    expect([...UNVERIFIED_QUOTA_CODES].sort()).toEqual([...unverified].sort());
    const advice = diagnose({
      rule: 'ec2-quota-exceeded',
      cluster: 'prod',
      region: 'us-west-2',
      entities: { quotas: ['MaxSpotInstanceCountExceeded'], instanceTypes: ['trn1.32xlarge'], capacityTypes: ['spot'] },
      occurrences: 1,
      context: emptyContext(),
    });
    expect(advice.remediation[0]!.detail).toMatch(/not verified .* "All Trn Spot Instance Requests"/);
    const verified = diagnose({
      rule: 'ec2-quota-exceeded',
      cluster: 'prod',
      entities: { quotas: ['VcpuLimitExceeded'], instanceTypes: ['g5.xlarge'] },
      occurrences: 1,
      context: emptyContext(),
    });
    expect(verified.remediation[0]!.detail).not.toMatch(/not verified/);
  });
});
