import {
  assessSubnet,
  HEADROOM_RULE,
  headroomIncident,
  runOf,
  sweepWork,
} from '../../../lambdas/core/headroom/subnet-headroom';
import {
  closedWith,
  EXHAUSTION_RULE,
  exhaustionIdOf,
  followedWarning,
  headroomIdOf,
  relationsOf,
  sameSubnets,
  speaksFor,
  unfoldedAssessments,
} from '../../../lambdas/core/headroom/related';
import { findingIdOf } from '../../../lambdas/core/incidents/aggregate';
import { advanceIncident, DEFAULT_POLICY, type IncidentState } from '../../../lambdas/core/incidents/lifecycle';

const MINUTE = 60_000;
const T0 = Date.parse('2026-11-28T00:00:00Z');
const THRESHOLDS = { minFreeIps: 64, minFreePercent: 10, horizonHours: 6 };
const QUIET = T0 + DEFAULT_POLICY.resolveAfterMs;

/** An incident as the store holds it after its first notice went out. */
function stored(rule: typeof EXHAUSTION_RULE | typeof HEADROOM_RULE, subnets: string[], at = T0): IncidentState {
  const incident = {
    findingId: findingIdOf('prod', rule, undefined),
    cluster: 'prod',
    rule,
    occurrences: 1,
    entities: subnets.length ? { subnets } : {},
    evidence: [{ message: 'InsufficientFreeAddressesInSubnet' }],
  };
  const { state } = advanceIncident(undefined, incident, 'critical', 'b1', at, DEFAULT_POLICY);
  return { ...state, pending: { ...state.pending!, snsDone: true, eventsDone: true } };
}

const assessed = (id: string, free: number) =>
  assessSubnet({ subnetId: id, availabilityZone: 'eu-west-1a', availableIps: free, totalIps: 251 }, [], THRESHOLDS);

/** A run that read prod, with these subnets low. */
const runWith = (low: string[]) =>
  runOf(
    [{ cluster: 'prod', lastCheckAt: QUIET, ...(low.length ? {} : { healthySince: T0 }) }],
    new Map([['prod', low]]),
  );

describe('which subnets an exhaustion incident speaks for', () => {
  it.each<[string, string[], string, boolean]>([
    ['the subnet it names', ['subnet-a'], 'subnet-a', true],
    ['not another one', ['subnet-a'], 'subnet-b', false],
    ['every subnet when it names none (a CNI line without a subnet id)', [], 'subnet-b', true],
  ])('%s', (_, subnets, subnet, expected) => {
    expect(speaksFor(stored(EXHAUSTION_RULE, subnets), subnet)).toBe(expected);
  });

  it('relates a headroom incident that shares one subnet, not one that shares none', () => {
    const exhaustion = stored(EXHAUSTION_RULE, ['subnet-a']);
    expect(sameSubnets(exhaustion, stored(HEADROOM_RULE, ['subnet-a', 'subnet-b']))).toBe(true);
    expect(sameSubnets(exhaustion, stored(HEADROOM_RULE, ['subnet-c']))).toBe(false);
  });

  it('is the incident the analyzer records for the cluster', () => {
    expect(exhaustionIdOf('prod')).toBe(stored(EXHAUSTION_RULE, []).findingId);
  });

  it('pairs with the headroom incident the check records for the cluster', () => {
    const incident = headroomIncident('prod', [assessed('subnet-a', 3)], T0, '444455556666');
    expect(headroomIdOf('prod', '444455556666')).toBe(incident.findingId);
  });
});

describe('unfoldedAssessments', () => {
  const both = [assessed('subnet-a', 3), assessed('subnet-b', 20)];

  it('leaves low only the subnets an open exhaustion incident does not name', () => {
    const unfolded = unfoldedAssessments(both, stored(EXHAUSTION_RULE, ['subnet-a']), T0);
    expect(unfolded.map((a) => [a.facts.subnetId, a.verdict])).toEqual([
      ['subnet-a', undefined],
      ['subnet-b', 'below-minimum'],
    ]);
  });

  it.each<[string, IncidentState | undefined]>([
    ['no exhaustion incident', undefined],
    ['a resolved one', { ...stored(EXHAUSTION_RULE, ['subnet-a']), status: 'resolved' }],
    ['one past its expiry', { ...stored(EXHAUSTION_RULE, ['subnet-a']), expiresAt: T0 / 1000 - 1 }],
  ])('folds nothing with %s', (_, exhaustion) => {
    expect(unfoldedAssessments(both, exhaustion, T0).filter((a) => a.verdict)).toHaveLength(2);
  });
});

describe('followedWarning', () => {
  const exhaustion = stored(EXHAUSTION_RULE, ['subnet-a']);

  it.each<[string, IncidentState | undefined, boolean]>([
    ['an open warning on the same subnet', stored(HEADROOM_RULE, ['subnet-a']), true],
    ['an open warning on other subnets', stored(HEADROOM_RULE, ['subnet-c']), false],
    ['a resolved warning', { ...stored(HEADROOM_RULE, ['subnet-a']), status: 'resolved' }, false],
    ['no warning', undefined, false],
  ])('follows %s: %s', (_, warning, follows) => {
    expect(followedWarning(exhaustion, warning, T0) !== undefined).toBe(follows);
  });
});

describe('the sweep of an exhaustion incident and the headroom warning of its subnets', () => {
  const exhaustion = stored(EXHAUSTION_RULE, ['subnet-a']);
  const warning = stored(HEADROOM_RULE, ['subnet-a'], T0 - 10 * MINUTE);
  const relations = relationsOf([exhaustion, warning], HEADROOM_RULE, QUIET);

  it.each<[string, IncidentState, string[], string]>([
    ['exhaustion quiet but its subnet still low: kept open', exhaustion, ['subnet-a'], 'none'],
    ['exhaustion quiet and another subnet low: resolved', exhaustion, ['subnet-b'], 'write'],
    ['the warning, while the exhaustion incident is open: left for it to close', warning, [], 'none'],
  ])('%s', (_, state, low, kind) => {
    expect(sweepWork(state, runWith(low), undefined, QUIET, DEFAULT_POLICY, relations).kind).toBe(kind);
  });

  it('reminds of an exhaustion incident held open by its subnet once the re-notify interval has passed', () => {
    const due = T0 + DEFAULT_POLICY.renotifyAfterMs;
    const lone = relationsOf([exhaustion], HEADROOM_RULE, due);

    expect(sweepWork(exhaustion, runWith(['subnet-a']), undefined, due - 1, DEFAULT_POLICY, lone).kind).toBe('none');
    expect(sweepWork(exhaustion, runWith(['subnet-a']), undefined, due, DEFAULT_POLICY, lone)).toMatchObject({
      kind: 'write',
      resolves: false,
      reminds: true,
      state: {
        status: 'open',
        version: exhaustion.version + 1,
        pending: { reason: 'interval', status: 'ongoing', generation: 2 },
      },
    });
  });

  it('closes the warning with the resolution: named in its notice, event only for the warning', () => {
    const work = sweepWork(exhaustion, runWith([]), undefined, QUIET, DEFAULT_POLICY, relations);

    if (work.kind !== 'write') throw new Error('expected a write');
    expect(work.state.pending?.closes).toEqual([
      { findingId: warning.findingId, rule: HEADROOM_RULE, openedAt: warning.openedAt },
    ]);
    expect(work.closes).toMatchObject({
      expected: warning.version,
      state: { findingId: warning.findingId, status: 'resolved', pending: { snsDone: true, eventsDone: false } },
    });
  });

  it('leaves open a warning one of whose subnets the run still reads low', () => {
    const wider = stored(HEADROOM_RULE, ['subnet-a', 'subnet-b'], T0 - 10 * MINUTE);
    const work = sweepWork(
      exhaustion,
      runWith(['subnet-b']),
      undefined,
      QUIET,
      DEFAULT_POLICY,
      relationsOf([exhaustion, wider], HEADROOM_RULE, QUIET),
    );

    expect(work).toMatchObject({ kind: 'write', resolves: true });
    expect(work.kind === 'write' && work.closes).toBeUndefined();
  });

  it('closes on the next sweep a warning that a resolution named but did not get to write', () => {
    const work = sweepWork(exhaustion, runWith([]), undefined, QUIET, DEFAULT_POLICY, relations);
    if (work.kind !== 'write') throw new Error('expected a write');
    const later = relationsOf([work.state, warning], HEADROOM_RULE, QUIET + 5 * MINUTE);

    const next = sweepWork(warning, runWith([]), undefined, QUIET + 5 * MINUTE, DEFAULT_POLICY, later);

    expect(next).toMatchObject({ kind: 'write', resolves: true, state: { status: 'resolved' } });
    expect(next.kind === 'write' && next.state.pending?.snsDone).toBe(true);
  });

  it('does not close a warning opened again after the resolution that named the earlier one', () => {
    const work = sweepWork(exhaustion, runWith([]), undefined, QUIET, DEFAULT_POLICY, relations);
    if (work.kind !== 'write') throw new Error('expected a write');
    const reopened = { ...warning, openedAt: QUIET + MINUTE };

    expect(relationsOf([work.state, reopened], HEADROOM_RULE, QUIET + 2 * MINUTE).closedBy.size).toBe(0);
  });

  it('resolves the closed warning one version on, its notice pending for the event only', () => {
    expect(closedWith(warning, QUIET)).toMatchObject({
      status: 'resolved',
      version: warning.version + 1,
      pending: { status: 'resolved', snsDone: true, eventsDone: false },
    });
  });
});
