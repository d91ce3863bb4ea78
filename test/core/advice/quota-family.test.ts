import { planQuota, quotaBucketOf, quotaForCode, vcpuLimitIn } from '../../../lambdas/core/advice/quota-family';

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
