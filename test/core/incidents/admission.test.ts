import { ec2QuotaFor } from '../../../lambdas/core/advice/quota';
import { admitFinding, type AdmissionInput } from '../../../lambdas/core/plans/remediation-plan';
import { RAISABLE_QUOTA_CODES } from '../../../contracts/quota-codes';

const NOW = Date.parse('2026-11-28T03:00:00Z');
const input = (overrides: Partial<AdmissionInput> = {}): AdmissionInput => ({
  claimed: { account: '111122223333', region: 'eu-west-1' },
  own: { account: '111122223333', region: 'eu-west-1' },
  incident: { status: 'open', cluster: 'prod', rule: 'ec2-quota-exceeded', expiresAt: NOW / 1000 + 3600 },
  configuredClusters: ['prod'],
  now: NOW,
  ...overrides,
});

describe('admitFinding', () => {
  it('admits an open incident of a configured cluster, with the actions of its rule', () => {
    expect(admitFinding(input())).toEqual({ admitted: true, actions: ['request-quota-increase'] });
  });

  it.each<[string, Partial<AdmissionInput>, RegExp]>([
    ['another account', { claimed: { account: '999999999999', region: 'eu-west-1' } }, /account/],
    ['a region written differently', { claimed: { account: '111122223333', region: 'EU-WEST-1' } }, /region/],
    ['no own scope', { own: undefined }, /own account/],
    ['no incident', { incident: undefined }, /no such incident/],
    [
      'an expired incident',
      { incident: { status: 'open', cluster: 'prod', rule: 'ec2-quota-exceeded', expiresAt: NOW / 1000 - 1 } },
      /no such incident/,
    ],
    [
      'a resolved incident',
      { incident: { status: 'resolved', cluster: 'prod', rule: 'ec2-quota-exceeded', expiresAt: NOW / 1000 + 60 } },
      /not open/,
    ],
    ['a cluster not configured', { configuredClusters: ['staging'] }, /not configured/],
    [
      'a rule without an action',
      { incident: { status: 'open', cluster: 'prod', rule: 'oom-killed', expiresAt: NOW / 1000 + 60 } },
      /maps to no action/,
    ],
  ])('refuses %s', (_name, overrides, reason) => {
    const admission = admitFinding(input(overrides));
    expect(admission.admitted).toBe(false);
    expect(admission.admitted ? '' : admission.reason).toMatch(reason);
  });
});

describe('RAISABLE_QUOTA_CODES', () => {
  it('holds every quota the quota rule can point to', () => {
    const codes = ['g5.xlarge', 'vt1.3xlarge', 'p4d.24xlarge', 'm5.large'].flatMap((type) =>
      ['VcpuLimitExceeded', 'MaxSpotInstanceCountExceeded'].map((code) => ec2QuotaFor(code, type)!.code),
    );
    expect([...new Set(codes)].sort()).toEqual([...RAISABLE_QUOTA_CODES].sort());
  });

  it('points to no quota when no instance type names the bucket (EC2 never does): none is guessed', () => {
    expect(ec2QuotaFor('VcpuLimitExceeded', undefined)).toBeUndefined();
    expect(ec2QuotaFor('MaxSpotInstanceCountExceeded', 'mac2.metal')).toBeUndefined();
  });
});
