import fc from 'fast-check';
import {
  allowedRanges,
  contains,
  formatCidr,
  layoutSubnets,
  overlaps,
  parseCidr,
  planSubnetCapacity,
  sizeOf,
  type Cidr,
} from '../../../lambdas/core/plans/cidr-plan';

const cidr = (text: string): Cidr => parseCidr(text)!;

describe('planSubnetCapacity', () => {
  it('offers 100.64.0.0/16 first beside a 10.x primary and lays out one /18 per zone', () => {
    const plan = planSubnetCapacity({
      vpcId: 'vpc-1',
      vpcCidrs: ['10.0.0.0/16'],
      zones: ['eu-west-1b', 'eu-west-1a', 'eu-west-1c'],
    });

    expect(plan.candidates).toEqual(['100.64.0.0/16', '100.65.0.0/16', '100.66.0.0/16']);
    expect(plan.subnets).toEqual([
      { availabilityZone: 'eu-west-1a', cidr: '100.64.0.0/18', usableIps: 16_379 },
      { availabilityZone: 'eu-west-1b', cidr: '100.64.64.0/18', usableIps: 16_379 },
      { availabilityZone: 'eu-west-1c', cidr: '100.64.128.0/18', usableIps: 16_379 },
    ]);
    expect(plan.cidrSlotsLeft).toBe(4);
  });

  it('skips blocks the VPC already has and never suggests 10.0.0.0/16 beside a 10.0.0.0/15 primary', () => {
    const plan = planSubnetCapacity({
      vpcId: 'vpc-1',
      vpcCidrs: ['10.1.0.0/16', '100.64.0.0/16', '100.65.0.0/16'],
      zones: ['a'],
      maxCandidates: 2,
    });

    expect(plan.candidates).toEqual(['100.66.0.0/16', '100.67.0.0/16']);
    const tens = planSubnetCapacity({ vpcId: 'v', vpcCidrs: ['10.1.0.0/16', '100.64.0.0/10'], zones: ['a'] });
    expect(tens.candidates).toEqual(['10.2.0.0/16', '10.3.0.0/16', '10.4.0.0/16']);
  });

  it('offers no other RFC 1918 block and no 198.19.0.0/16 beside a 192.168 primary', () => {
    const ranges = allowedRanges(cidr('192.168.0.0/20')).map(formatCidr);
    expect(ranges).toEqual(['100.64.0.0/10', '192.168.0.0/16']);
  });

  it('says so instead of planning when the CIDR quota is used up', () => {
    const plan = planSubnetCapacity({
      vpcId: 'vpc-1',
      vpcCidrs: ['10.0.0.0/16', '10.1.0.0/16', '10.2.0.0/16', '10.3.0.0/16', '100.64.0.0/16'],
      zones: ['a'],
    });

    expect(plan.candidates).toEqual([]);
    expect(plan.blocked).toMatch(/quota of 5/);
  });

  const octet = fc.integer({ min: 0, max: 255 });
  const anyBlock = fc
    .tuple(octet, octet, fc.integer({ min: 16, max: 28 }))
    .chain(([b, c, prefix]) =>
      fc.constantFrom(
        `10.${b}.${c}.0/${prefix}`,
        `172.${16 + (b % 16)}.${c}.0/${prefix}`,
        `192.168.${c}.0/${prefix}`,
        `100.${64 + (b % 64)}.${c}.0/${prefix}`,
        `198.19.${c}.0/${prefix}`,
      ),
    );

  it('property: candidates overlap nothing, lie in allowed ranges, and the subnets add up', () => {
    fc.assert(
      fc.property(
        fc.array(anyBlock, { minLength: 1, maxLength: 5 }),
        fc.uniqueArray(fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f'), { minLength: 1, maxLength: 6 }),
        fc.integer({ min: 16, max: 24 }),
        (vpcCidrs, zones, candidatePrefix) => {
          const plan = planSubnetCapacity({ vpcId: 'vpc', vpcCidrs, zones, candidatePrefix, maxCandidates: 4 });
          const existing = vpcCidrs.map(cidr);
          const candidates = plan.candidates.map(cidr);
          const allowed = allowedRanges(existing[0]!);

          expect(candidates.length).toBeLessThanOrEqual(plan.cidrSlotsLeft);
          candidates.forEach((candidate, i) => {
            expect(existing.some((block) => overlaps(block, candidate))).toBe(false);
            expect(candidates.some((other, j) => j !== i && overlaps(other, candidate))).toBe(false);
            expect(allowed.some((range) => contains(range, candidate))).toBe(true);
            expect(candidate.prefix).toBe(candidatePrefix);
          });

          const subnets = plan.subnets.map((s) => cidr(s.cidr));
          if (candidates.length > 0) expect(subnets).toHaveLength(zones.length);
          const total = subnets.reduce((sum, s) => sum + sizeOf(s), 0);
          if (candidates[0]) expect(total).toBeLessThanOrEqual(sizeOf(candidates[0]));
          subnets.forEach((subnet, i) => {
            expect(contains(candidates[0]!, subnet)).toBe(true);
            expect(subnets.some((other, j) => j !== i && overlaps(other, subnet))).toBe(false);
            expect(plan.subnets[i]!.usableIps).toBe(sizeOf(subnet) - 5);
          });
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe('layoutSubnets', () => {
  it('never lays out subnets smaller than /28', () => {
    expect(layoutSubnets(cidr('10.0.0.0/27'), ['a', 'b', 'c']).map((s) => s.cidr)).toEqual([]);
    expect(layoutSubnets(cidr('10.0.0.0/27'), ['a', 'b']).map((s) => s.cidr)).toEqual(['10.0.0.0/28', '10.0.0.16/28']);
  });
});

describe('parseCidr', () => {
  it.each(['10.0.0.0/33', '256.0.0.0/8', 'not a cidr', '10.0.0/8'])('rejects %s', (text) => {
    expect(parseCidr(text)).toBeUndefined();
  });

  it('normalises the host bits away', () => {
    expect(formatCidr(cidr('10.1.2.3/16'))).toBe('10.1.0.0/16');
  });
});
