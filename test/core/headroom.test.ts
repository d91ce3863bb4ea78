import type { SubnetFacts } from '../../lambdas/core/context';
import type { HeadroomThresholds, Sample } from '../../lambdas/core/forecast';
import {
  appendSample,
  assessSubnet,
  HEADROOM_RULE,
  headroomSeverity,
  holdBackFromSweep,
  judgeCluster,
  MAX_SAMPLES,
  needsStoredHealth,
  runIdOf,
  type HeadroomRun,
} from '../../lambdas/core/headroom';
import { DEFAULT_POLICY, sweepStep, advanceIncident, type IncidentState } from '../../lambdas/core/lifecycle';

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
      'subnet-c (eu-west-1c): 30 of 251 IPs free [below-minimum]',
      'subnet-b (eu-west-1b): 40 of 251 IPs free [below-minimum]',
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
  const headroom = { rule: HEADROOM_RULE, cluster: 'prod' };
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
    const other = { rule: 'subnet-ip-exhaustion' as const, cluster: 'prod' };
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
