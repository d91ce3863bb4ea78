import type { SubnetFacts } from '../../../lambdas/core/findings/context';
import type { HeadroomThresholds, Sample } from '../../../lambdas/core/headroom/forecast';
import {
  appendSample,
  assessSubnet,
  checkCluster,
  countedSubnets,
  HEADROOM_RULE,
  healthAfter,
  headroomSeverity,
  holdBackFromSweep,
  judgeCluster,
  MAX_SAMPLES,
  needsStoredHealth,
  runIdOf,
  runOf,
  sweepWork,
  type CheckOutcome,
  type HeadroomRun,
  type StoredHistories,
} from '../../../lambdas/core/headroom/subnet-headroom';
import {
  DEFAULT_POLICY,
  sweepStep,
  advanceIncident,
  dueOf,
  type IncidentState,
  type Outcome,
} from '../../../lambdas/core/incidents/lifecycle';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const T0 = Date.parse('2026-11-28T00:00:00Z');
const THRESHOLDS: HeadroomThresholds = { minFreeIps: 64, minFreePercent: 10, horizonHours: 6 };

const subnet = (
  subnetId: string,
  availableIps: number,
  zone = 'eu-west-1a',
): SubnetFacts & { availableIps: number } => ({
  subnetId,
  availabilityZone: zone,
  vpcId: 'vpc-1',
  cidrBlock: '10.0.0.0/24',
  availableIps,
  totalIps: 251,
});

/** A history falling `perHour` IPs an hour, every five minutes for `hours`, ending at `end` free at T0. */
function falling(end: number, perHour: number, hours = 1): Sample[] {
  const samples: Sample[] = [];
  for (let t = T0 - hours * HOUR; t <= T0; t += 5 * MINUTE) {
    samples.push({ t, free: Math.round(end + ((T0 - t) / HOUR) * perHour) });
  }
  return samples;
}

describe('appendSample', () => {
  it('keeps the last day before the new sample, then the new sample', () => {
    const old = { t: T0 - 25 * HOUR, free: 200 };
    const recent = { t: T0 - HOUR, free: 190 };

    expect(appendSample([old, recent], { t: T0, free: 180 })).toEqual([recent, { t: T0, free: 180 }]);
  });

  it('drops samples from the future of the new one (a clock that went back) and keeps at most a day of them', () => {
    const history = Array.from({ length: MAX_SAMPLES + 10 }, (_, i) => ({ t: T0 - (i + 1) * MINUTE, free: 100 }));
    const future = { t: T0 + MINUTE, free: 1 };

    const kept = appendSample([...history.reverse(), future], { t: T0, free: 99 });

    expect(kept).toHaveLength(MAX_SAMPLES);
    expect(kept.at(-1)).toEqual({ t: T0, free: 99 });
    expect(kept).not.toContainEqual(future);
  });
});

describe('assessSubnet', () => {
  it('has no verdict for a roomy subnet with a flat history', () => {
    const assessed = assessSubnet(subnet('subnet-a', 200), falling(200, 0), THRESHOLDS);

    expect(assessed.verdict).toBeUndefined();
    expect(assessed.forecast).toBeUndefined();
  });

  it('warns of a steady decline before any threshold is crossed, with the trend in the facts', () => {
    const assessed = assessSubnet(subnet('subnet-a', 150), falling(150, 30), THRESHOLDS);

    expect(assessed.verdict).toBe('runs-out-soon');
    expect(assessed.facts.ipsPerHour).toBe(-30);
    expect(assessed.facts.hoursToExhaustion).toBe(5);
  });

  it('judges a subnet below the minimum on its current count alone, without a history', () => {
    expect(assessSubnet(subnet('subnet-a', 20), [{ t: T0, free: 20 }], THRESHOLDS)).toMatchObject({
      verdict: 'below-minimum',
      forecast: undefined,
    });
  });
});

describe('judgeCluster', () => {
  it('is healthy when no subnet is low', () => {
    const assessed = [assessSubnet(subnet('subnet-a', 200), [], THRESHOLDS)];

    expect(judgeCluster('prod', assessed, THRESHOLDS, T0)).toEqual({ low: false });
  });

  it('names the low subnets and zones, and tells the worst first in the evidence', () => {
    const assessed = [
      assessSubnet(subnet('subnet-b', 40, 'eu-west-1b'), [], THRESHOLDS),
      assessSubnet(subnet('subnet-a', 200), [], THRESHOLDS),
      assessSubnet(subnet('subnet-c', 30, 'eu-west-1c'), [], THRESHOLDS),
    ];

    const judged = judgeCluster('prod', assessed, THRESHOLDS, T0);

    expect(judged.low).toBe(true);
    if (!judged.low) return;
    expect(judged.severity).toBe('high');
    expect(judged.incident).toMatchObject({
      cluster: 'prod',
      rule: HEADROOM_RULE,
      entities: { subnets: ['subnet-b', 'subnet-c'], zones: ['eu-west-1b', 'eu-west-1c'] },
    });
    expect(judged.incident.evidence.map((e) => e.message)).toEqual([
      'subnet-c (eu-west-1c): 30 of 251 IPs free: under the minimum of 64 free',
      'subnet-b (eu-west-1b): 40 of 251 IPs free: under the minimum of 64 free',
    ]);
  });

  // A /28 has 11 usable addresses: the configured 64 can never be met there (issue 31).
  const slash28 = (free: number) => ({ ...subnet('subnet-028', free), totalIps: 11 });
  it.each([
    ['an empty /28 is healthy', 11, undefined],
    ['a /28 with 5 free is healthy', 5, undefined],
    ['a /28 with 3 free is low, high', 3, 'high'],
    ['a full /28 is critical', 0, 'critical'],
  ] as const)('%s', (_name, free, severity) => {
    const judged = judgeCluster('prod', [assessSubnet(slash28(free), [], THRESHOLDS)], THRESHOLDS, T0);
    expect(judged.low ? judged.severity : undefined).toBe(severity);
  });

  it('says once that a small subnet is judged against a minimum scaled to its size', () => {
    const judged = judgeCluster('prod', [assessSubnet(slash28(3), [], THRESHOLDS)], THRESHOLDS, T0);
    expect(judged.low && judged.incident.evidence.map((e) => e.message)).toEqual([
      'subnet-028 (eu-west-1a): 3 of 11 IPs free: under 5 free, the minimum for a subnet of 11 (smaller than the configured 64 by design)',
    ]);
  });

  it('gives the same finding id to every check of a cluster, so the checks are one incident', () => {
    const one = judgeCluster('prod', [assessSubnet(subnet('subnet-a', 20), [], THRESHOLDS)], THRESHOLDS, T0);
    const later = judgeCluster('prod', [assessSubnet(subnet('subnet-b', 10), [], THRESHOLDS)], THRESHOLDS, T0 + HOUR);
    const other = judgeCluster('staging', [assessSubnet(subnet('subnet-a', 20), [], THRESHOLDS)], THRESHOLDS, T0);

    expect(one.low && later.low && one.incident.findingId === later.incident.findingId).toBe(true);
    expect(one.low && other.low && one.incident.findingId !== other.incident.findingId).toBe(true);
  });
});

describe('countedSubnets', () => {
  it('keeps the subnets whose free IPs EC2 reported, in the order read', () => {
    const unknown = { subnetId: 'subnet-x', availabilityZone: 'eu-west-1a' };

    expect(countedSubnets([subnet('subnet-b', 5), unknown, subnet('subnet-a', 0)]).map((s) => s.subnetId)).toEqual([
      'subnet-b',
      'subnet-a',
    ]);
  });
});

describe('checkCluster', () => {
  const VPCS = [{ vpcId: 'vpc-1', cidrBlocks: ['10.0.0.0/16'] }];
  const stored = (samples: Record<string, Sample[]>, unread: string[] = []): StoredHistories => ({
    samples: new Map(Object.entries(samples)),
    unread: new Set(unread),
  });
  const check = (subnets: ReturnType<typeof subnet>[], histories = stored({}), account?: string) =>
    checkCluster({ cluster: 'prod', account, subnets, vpcs: VPCS, histories, now: T0, thresholds: THRESHOLDS });

  it.each([
    ['no stored history', {}, [{ t: T0, free: 180 }]],
    [
      'a stored history',
      { 'subnet-a': [{ t: T0 - HOUR, free: 190 }] },
      [
        { t: T0 - HOUR, free: 190 },
        { t: T0, free: 180 },
      ],
    ],
    ['a history older than a day', { 'subnet-a': [{ t: T0 - 25 * HOUR, free: 250 }] }, [{ t: T0, free: 180 }]],
  ])('writes back the history with this run’s sample appended: %s', (_, samples, written) => {
    expect(check([subnet('subnet-a', 180)], stored(samples)).histories).toEqual([
      { subnetId: 'subnet-a', samples: written },
    ]);
  });

  it('never writes the history it could not read, and judges that subnet on this count alone', () => {
    // A falling history would forecast exhaustion; unread, the subnet is judged on 150 free alone.
    const result = check([subnet('subnet-a', 150), subnet('subnet-b', 200)], stored({}, ['subnet-a']));

    expect(result.unread).toEqual(['subnet-a']);
    expect(result.histories.map((h) => h.subnetId)).toEqual(['subnet-b']);
    expect(result.assessed[0]!.forecast).toBeUndefined();
    expect(result.headroom.low).toBe(false);
  });

  it('forecasts from the stored history: a steady decline is low before any threshold is crossed', () => {
    const history = falling(150, 30).slice(0, -1);
    const result = check([subnet('subnet-a', 150)], stored({ 'subnet-a': history }));

    expect(result.assessed[0]!.verdict).toBeDefined();
    expect(result.headroom).toMatchObject({ low: true, severity: 'high' });
  });

  it('gives a healthy cluster no incident and no context', () => {
    const result = check([subnet('subnet-a', 200)]);

    expect(result.headroom).toEqual({ low: false });
    expect(result.context).toBeUndefined();
  });

  it('gives a low cluster the context of every subnet read, by id, with zone totals and the VPCs', () => {
    const result = check([subnet('subnet-b', 200, 'eu-west-1b'), subnet('subnet-a', 20)], stored({}), '444455556666');

    expect(result.headroom).toMatchObject({ low: true, incident: { cluster: 'prod', account: '444455556666' } });
    expect(result.context?.subnets?.map((s) => s.subnetId)).toEqual(['subnet-a', 'subnet-b']);
    expect(result.context?.zones?.map((z) => [z.availabilityZone, z.availableIps])).toEqual([
      ['eu-west-1a', 20],
      ['eu-west-1b', 200],
    ]);
    expect(result.context).toMatchObject({ vpcs: VPCS, enrichmentErrors: [] });
  });
});

describe('healthAfter and runOf', () => {
  it.each<[string, CheckOutcome, object]>([
    [
      'a gap keeps the error and no healthy streak',
      { kind: 'gap', error: 'ec2:DescribeSubnets: throttled' },
      { lastError: 'ec2:DescribeSubnets: throttled' },
    ],
    ['a low check ends the streak', { kind: 'low' }, {}],
    ['a first healthy check starts the streak now', { kind: 'healthy' }, { healthySince: T0 }],
    [
      'a healthy check continues the stored streak',
      { kind: 'healthy', healthySince: T0 - HOUR },
      { healthySince: T0 - HOUR },
    ],
  ])('%s', (_, outcome, fields) => {
    // toStrictEqual: no key with an undefined value reaches the table.
    expect(healthAfter('prod', outcome, T0)).toStrictEqual({ cluster: 'prod', lastCheckAt: T0, ...fields });
  });

  it('tells the sweep which clusters are still low (a gap or a low check) and since when the others are healthy', () => {
    const run = runOf([
      healthAfter('prod', { kind: 'gap', error: 'x' }, T0),
      healthAfter('444455556666/prod', { kind: 'low' }, T0),
      healthAfter('batch', { kind: 'healthy', healthySince: T0 - HOUR }, T0),
    ]);

    expect([...run.stillLow]).toEqual(['prod', '444455556666/prod']);
    expect([...run.healthySince]).toEqual([['batch', T0 - HOUR]]);
  });
});

describe('headroomSeverity', () => {
  it.each([
    ['below the minimum', 40, [] as Sample[], 'high'],
    ['under a quarter of the minimum', 15, [], 'critical'],
    ['out within the hour', 50, falling(50, 60), 'critical'],
    ['out within the horizon, not the hour', 150, falling(150, 30), 'high'],
  ])('is %s → %s', (_, free, history, severity) => {
    const low = [assessSubnet(subnet('subnet-a', free), history, THRESHOLDS)];

    expect(headroomSeverity(low, THRESHOLDS)).toBe(severity);
  });

  it('is critical when one low subnet of several is', () => {
    const low = [
      assessSubnet(subnet('subnet-a', 40), [], THRESHOLDS),
      assessSubnet(subnet('subnet-b', 3), [], THRESHOLDS),
    ];

    expect(headroomSeverity(low, THRESHOLDS)).toBe('critical');
  });
});

describe('the sweep of headroom incidents', () => {
  const policy = { resolveAfterMs: 30 * MINUTE };
  const headroom = { rule: HEADROOM_RULE, cluster: 'prod', entities: { subnets: ['subnet-a'] } };
  const run = (over: Partial<HeadroomRun> = {}): HeadroomRun => ({
    stillLow: new Set(),
    healthySince: new Map(),
    ...over,
  });

  it('holds back the incident of a cluster still low or unread this run', () => {
    expect(holdBackFromSweep(headroom, run({ stillLow: new Set(['prod']) }), T0 - HOUR, T0, policy)).toBe(true);
  });

  it('holds back a cluster healthy for less than the resolve window, and releases it after', () => {
    const since = (at: number) => run({ healthySince: new Map([['prod', at]]) });

    expect(holdBackFromSweep(headroom, since(T0 - 10 * MINUTE), undefined, T0, policy)).toBe(true);
    expect(holdBackFromSweep(headroom, since(T0 - 30 * MINUTE), undefined, T0, policy)).toBe(false);
  });

  it('reads the stored health only for a cluster this run did not check, and holds it back without any', () => {
    expect(needsStoredHealth(headroom, run())).toBe(true);
    expect(needsStoredHealth(headroom, run({ stillLow: new Set(['prod']) }))).toBe(false);
    expect(needsStoredHealth(headroom, run({ healthySince: new Map([['prod', T0]]) }))).toBe(false);
    expect(holdBackFromSweep(headroom, run(), undefined, T0, policy)).toBe(true);
    expect(holdBackFromSweep(headroom, run(), T0 - HOUR, T0, policy)).toBe(false);
  });

  it('never holds back nor reads health for another rule, even of a low cluster', () => {
    const other = { rule: 'subnet-ip-exhaustion' as const, cluster: 'prod', entities: { subnets: ['subnet-a'] } };
    const low = run({ stillLow: new Set(['prod']) });

    expect(needsStoredHealth(other, run())).toBe(false);
    expect(holdBackFromSweep(other, low, undefined, T0, policy)).toBe(false);
  });
});

describe('sweepStep', () => {
  const incident = {
    findingId: 'f00d',
    cluster: 'prod',
    rule: 'subnet-ip-exhaustion' as const,
    occurrences: 1,
    entities: { subnets: ['subnet-a'] },
    evidence: [{ message: 'InsufficientFreeAddressesInSubnet' }],
  };
  const open = (sent: boolean): IncidentState => {
    const { state } = advanceIncident(undefined, incident, 'critical', 'b1', T0, DEFAULT_POLICY);
    return sent ? { ...state, pending: { ...state.pending!, snsDone: true, eventsDone: true } } : state;
  };
  const quiet = T0 + DEFAULT_POLICY.resolveAfterMs;

  it('resolves a quiet open incident with its resolved notice pending, one version on', () => {
    const step = sweepStep(open(true), quiet, DEFAULT_POLICY, false);

    expect(step).toMatchObject({ kind: 'resolve', state: { status: 'resolved', version: 2 } });
    expect(step.kind === 'resolve' && step.state.pending).toMatchObject({ status: 'resolved', reason: 'quiet' });
  });

  it('keeps a quiet incident that is held back, and one not yet quiet', () => {
    expect(sweepStep(open(true), quiet, DEFAULT_POLICY, true)).toEqual({ kind: 'keep' });
    expect(sweepStep(open(true), quiet - 1, DEFAULT_POLICY, false)).toEqual({ kind: 'keep' });
  });

  it('takes over a first notice that never went out, even when held back', () => {
    expect(sweepStep(open(false), quiet, DEFAULT_POLICY, true)).toMatchObject({
      kind: 'take-over',
      state: { status: 'open', version: 2, pending: { batchId: 'sweep', status: 'open' } },
    });
  });

  it('finishes a resolved notice whose publishing failed, without a new state', () => {
    const resolved = sweepStep(open(true), quiet, DEFAULT_POLICY, false);
    if (resolved.kind !== 'resolve') throw new Error('expected a resolve');

    expect(sweepStep(resolved.state, quiet + MINUTE, DEFAULT_POLICY, false)).toEqual({ kind: 'finish' });
  });
});

describe('sweepWork', () => {
  const incident = (rule: 'subnet-ip-exhaustion' | typeof HEADROOM_RULE) => ({
    findingId: `f-${rule}`,
    cluster: 'prod',
    rule,
    occurrences: 1,
    entities: { subnets: ['subnet-a'] },
    evidence: [{ message: 'x' }],
  });
  const sent = (rule: 'subnet-ip-exhaustion' | typeof HEADROOM_RULE = 'subnet-ip-exhaustion'): IncidentState => {
    const { state } = advanceIncident(undefined, incident(rule), 'critical', 'b1', T0, DEFAULT_POLICY);
    return { ...state, pending: { ...state.pending!, snsDone: true, eventsDone: true } };
  };
  const quiet = T0 + DEFAULT_POLICY.resolveAfterMs;
  const healthy = (since: number): HeadroomRun => ({ stillLow: new Set(), healthySince: new Map([['prod', since]]) });
  const low: HeadroomRun = { stillLow: new Set(['prod']), healthySince: new Map() };

  it.each<[string, string, IncidentState, HeadroomRun, number]>([
    ['an incident not yet quiet', 'none', sent(), low, quiet - 1],
    ['a quiet incident of another rule, whatever the headroom', 'write', sent(), low, quiet],
    ['a quiet headroom incident of a cluster still low', 'none', sent(HEADROOM_RULE), low, quiet],
    ['a quiet headroom incident healthy for the window', 'write', sent(HEADROOM_RULE), healthy(T0), quiet],
    [
      'a quiet headroom incident healthy for less than the window',
      'none',
      sent(HEADROOM_RULE),
      healthy(quiet - 1),
      quiet,
    ],
  ])('%s → %s', (_, kind, state, run, now) => {
    expect(sweepWork(state, run, undefined, now, DEFAULT_POLICY).kind).toBe(kind);
  });

  it('writes the resolved state one version on and sends its notice', () => {
    const work = sweepWork(sent(), low, undefined, quiet, DEFAULT_POLICY);

    expect(work).toMatchObject({ kind: 'write', resolves: true, state: { status: 'resolved', version: 2 } });
    if (work.kind !== 'write') return;
    expect(work.due).toEqual({ state: work.state, notify: work.state.pending });
  });

  it('takes over an unfinished first notice (a write that does not resolve)', () => {
    const { state } = advanceIncident(undefined, incident(HEADROOM_RULE), 'high', 'b1', T0, DEFAULT_POLICY);

    expect(sweepWork(state, low, undefined, quiet, DEFAULT_POLICY)).toMatchObject({
      kind: 'write',
      resolves: false,
      state: { status: 'open', pending: { batchId: 'sweep' } },
    });
  });

  it('sends a resolved notice whose publishing failed as it is, without writing', () => {
    const resolved = sweepWork(sent(), low, undefined, quiet, DEFAULT_POLICY);
    if (resolved.kind !== 'write') throw new Error('expected a write');

    expect(sweepWork(resolved.state, low, undefined, quiet + MINUTE, DEFAULT_POLICY)).toEqual({
      kind: 'send',
      due: { state: resolved.state, notify: resolved.state.pending },
    });
  });

  it('releases a headroom incident of a cluster no longer checked by its stored health alone', () => {
    const none: HeadroomRun = { stillLow: new Set(), healthySince: new Map() };

    expect(sweepWork(sent(HEADROOM_RULE), none, undefined, quiet, DEFAULT_POLICY).kind).toBe('none');
    expect(sweepWork(sent(HEADROOM_RULE), none, T0 - HOUR, quiet, DEFAULT_POLICY).kind).toBe('write');
  });
});

describe('dueOf', () => {
  const { state, outcome } = advanceIncident(
    undefined,
    { findingId: 'f', cluster: 'prod', rule: 'oom-killed', occurrences: 1, entities: {}, evidence: [] },
    'medium',
    'b1',
    T0,
    DEFAULT_POLICY,
  );
  const notify = outcome.kind === 'notify' ? outcome.notify : undefined;

  it.each<[string, boolean, Outcome]>([
    ['a notification is due', true, { kind: 'notify', notify: notify! }],
    ['the incident is ongoing', false, { kind: 'ongoing' }],
    ['a batch seen before with its notice unfinished', true, { kind: 'seen', notify: notify! }],
    ['a batch seen before with nothing left to tell', false, { kind: 'seen' }],
  ])('%s → due: %s', (_, due, recorded) => {
    expect(dueOf([{ state, outcome: recorded }])).toEqual(due ? [{ state, notify }] : []);
  });
});

describe('runIdOf', () => {
  it("is Scheduler's scheduled time, the same for its retries", () => {
    expect(runIdOf({ scheduledTime: '2026-11-28T00:05:00Z' }, T0 + 7 * MINUTE)).toBe('2026-11-28T00:05:00.000Z');
  });

  it.each([undefined, {}, { scheduledTime: 'soon' }, { scheduledTime: 5 }])(
    'is the current minute without a usable scheduled time (%p)',
    (event) => {
      expect(runIdOf(event, T0 + 7 * MINUTE + 12_345)).toBe('2026-11-28T00:07:00.000Z');
    },
  );
});
