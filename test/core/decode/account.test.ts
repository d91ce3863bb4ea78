import { accountOfOwner, clusterScopeOf, keyAccountOf } from '../../../lambdas/core/decode/account';
import { createHash } from 'node:crypto';
import { findingIdOf } from '../../../lambdas/core/incidents/aggregate';
import { analyzeMessages } from '../../../lambdas/core/analyze';
import { planNotices } from '../../../lambdas/core/incidents/digest';
import { buildFinding } from '../../../lambdas/core/findings/finding';
import { advanceIncident, DEFAULT_POLICY, incidentOf } from '../../../lambdas/core/incidents/lifecycle';
import { subnetExhaustionLine } from '../../support/awslogs';

const HOME = '111122223333';
const SPOKE_A = '444455556666';
const SPOKE_B = '777788889999';
const line = (subnet = 'subnet-0a1b2c3d4e5f60718') => ({
  message: subnetExhaustionLine(subnet),
  origin: { logGroup: '/eks/prod', logStream: 's', eventId: '1', timestampMs: 1 },
});

describe('accounts of documents', () => {
  it.each([
    ['444455556666', '444455556666'],
    ['CloudwatchLogs', undefined],
    ['', undefined],
    ['12345', undefined],
    [undefined, undefined],
  ])('owner %j is account %j', (owner, account) => {
    expect(accountOfOwner(owner)).toBe(account);
  });

  it('keys incidents by account except the deployment’s own, and the unknown', () => {
    expect(keyAccountOf(SPOKE_A, HOME)).toBe(SPOKE_A);
    expect(keyAccountOf(HOME, HOME)).toBeUndefined();
    expect(keyAccountOf(undefined, HOME)).toBeUndefined();
    expect(keyAccountOf('CloudwatchLogs', HOME)).toBeUndefined();
    // A function that cannot tell its own account keys every account it sees.
    expect(keyAccountOf(SPOKE_A, undefined)).toBe(SPOKE_A);
  });
});

describe('per-account finding ids', () => {
  it('gives the same cluster, rule and key in two accounts two ids, and the home account its old one', () => {
    const home = findingIdOf('prod', 'subnet-ip-exhaustion', undefined);
    const a = findingIdOf('prod', 'subnet-ip-exhaustion', undefined, SPOKE_A);
    const b = findingIdOf('prod', 'subnet-ip-exhaustion', undefined, SPOKE_B);

    expect(new Set([home, a, b]).size).toBe(3);
    expect(findingIdOf('prod', 'subnet-ip-exhaustion', undefined, SPOKE_A)).toBe(a);
    expect(findingIdOf('prod', 'subnet-ip-exhaustion', undefined, undefined)).toBe(home);
    // The id of a one-account deployment is what it was before accounts existed (sha256 of the key).
    expect(home).toBe(createHash('sha256').update('prod\u0000subnet-ip-exhaustion\u0000').digest('hex').slice(0, 24));
  });

  it('makes the aggregator of an account stamp its incidents with the account and its ids', () => {
    const [spoke] = analyzeMessages([line()], 'prod', { account: SPOKE_A }).incidents;
    const [home] = analyzeMessages([line()], 'prod').incidents;

    expect(spoke).toMatchObject({ cluster: 'prod', account: SPOKE_A, rule: 'subnet-ip-exhaustion' });
    expect(spoke!.findingId).toBe(findingIdOf('prod', 'subnet-ip-exhaustion', spoke!.keyValue, SPOKE_A));
    expect(home!.account).toBeUndefined();
    expect(home!.findingId).not.toBe(spoke!.findingId);
  });

  it('keeps the account through the store and into the finding, which names the cluster’s account', () => {
    const [spoke] = analyzeMessages([line()], 'prod', { account: SPOKE_A }).incidents;

    const { state } = advanceIncident(undefined, spoke!, 'critical', 'batch-1', 1_000, DEFAULT_POLICY);

    expect(state.account).toBe(SPOKE_A);
    expect(incidentOf(state).account).toBe(SPOKE_A);
    // The caller's account (the deployment's) is only the fallback of a home-account incident.
    expect(buildFinding(incidentOf(state), { account: HOME }).account).toBe(SPOKE_A);
    const [home] = analyzeMessages([line()], 'prod').incidents;
    expect(buildFinding(home!, { account: HOME }).account).toBe(HOME);
  });
});

describe('notices per cluster of one account', () => {
  it('bounds notices per (account, cluster): prod of two accounts gets its own allowance each', () => {
    const due = [HOME, SPOKE_A, SPOKE_B].flatMap((account) =>
      [1, 2, 3].map((n) => ({
        findingId: `${account}-${n}`,
        cluster: 'prod',
        ...(account === HOME ? {} : { account }),
        severity: 'high' as const,
        status: 'open' as const,
      })),
    );

    const plan = planNotices(due, 2);

    expect(plan.individual).toHaveLength(6);
    expect(plan.digested.map((d) => d.findingId)).toEqual([`${HOME}-3`, `${SPOKE_A}-3`, `${SPOKE_B}-3`]);
    expect(new Set(due.map(clusterScopeOf)).size).toBe(3);
  });
});
