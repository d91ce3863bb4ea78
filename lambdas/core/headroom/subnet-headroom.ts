import { clusterScopeOf } from '../decode/account';
import { findingIdOf, type Incident } from '../incidents/aggregate';
import { zoneTotals, type FindingContext, type SubnetFacts, type VpcFacts } from '../findings/context';
import {
  type Forecast,
  type HeadroomThresholds,
  type Sample,
  forecastExhaustion,
  headroomVerdict,
  minimumFreeIps,
} from './forecast';
import { isObject } from '../common/json';
import { sweepReminder, sweepStep, type Due, type IncidentState, type LifecyclePolicy } from '../incidents/lifecycle';
import {
  EXHAUSTION_RULE,
  HEADROOM_RULE,
  NO_RELATIONS,
  closedWith,
  sameSubnets,
  speaksFor,
  unfoldedAssessments,
  type SweepRelations,
} from './related';
import type { Severity } from '../model';

/**
 * The decisions of the scheduled headroom check (docs/architecture.md, The headroom schedule): which
 * samples a subnet's history keeps and which histories are written back, how a subnet and a cluster
 * are judged, what the incident says and how severe it is, what a cluster's health record becomes,
 * and what the sweep does with each stored incident. The handler reads and writes; every choice is
 * made here, without I/O.
 */

/** The rule the headroom check raises (defined beside the exhaustion rule it folds into). */
export { HEADROOM_RULE };

/** Samples kept per subnet: a day at the default five-minute schedule. */
export const MAX_SAMPLES = 288;
const HISTORY_MS = 24 * 60 * 60_000;

/** The history after this run's sample: the last day before it, then it, at most MAX_SAMPLES. */
export function appendSample(previous: readonly Sample[], sample: Sample): Sample[] {
  return [...previous.filter((s) => s.t > sample.t - HISTORY_MS && s.t < sample.t), sample].slice(-MAX_SAMPLES);
}

/** One subnet as the check judged it. */
export interface SubnetAssessment {
  /** What was read, with the trend when there is one. */
  facts: SubnetFacts;
  forecast?: Forecast;
  /** Why the subnet is low; undefined when it has headroom. */
  verdict?: ReturnType<typeof headroomVerdict>;
}

/** Judges a subnet by its free IPs now and its history (this run's sample last). */
export function assessSubnet(
  subnet: SubnetFacts & { availableIps: number },
  history: readonly Sample[],
  thresholds: HeadroomThresholds,
): SubnetAssessment {
  const forecast = forecastExhaustion(history);
  const facts: SubnetFacts = forecast
    ? { ...subnet, ipsPerHour: round(forecast.ipsPerHour), hoursToExhaustion: round(forecast.hoursToExhaustion) }
    : subnet;
  return { facts, forecast, verdict: headroomVerdict(subnet.availableIps, subnet.totalIps, forecast, thresholds) };
}

/** A cluster whose subnets were read: healthy, or low with the incident to record. */
export type ClusterHeadroom = { low: false } | { low: true; incident: Incident; severity: Severity };

/** The cluster is low when any subnet is; the incident names the low ones. */
export function judgeCluster(
  cluster: string,
  assessed: readonly SubnetAssessment[],
  thresholds: HeadroomThresholds,
  now: number,
  /** The cluster's account when it is not the deployment's own (`keyAccountOf`). */
  account?: string,
): ClusterHeadroom {
  const low = assessed.filter((a) => a.verdict);
  if (low.length === 0) return { low: false };
  return {
    low: true,
    incident: headroomIncident(cluster, low, now, account, thresholds),
    severity: headroomSeverity(low, thresholds),
  };
}

/** A subnet whose free IPs EC2 reported: the only kind the check can judge. */
export type CountedSubnet = SubnetFacts & { availableIps: number };

/** The subnets of a read whose free IPs are known, in the order read. */
export function countedSubnets(subnets: readonly SubnetFacts[]): CountedSubnet[] {
  return subnets.filter((s): s is CountedSubnet => s.availableIps !== undefined);
}

/** The stored histories of a cluster's subnets, as read from the table. */
export interface StoredHistories {
  /** Per subnet; a subnet with no stored history yet has none here. */
  samples: ReadonlyMap<string, readonly Sample[]>;
  /** Subnets whose stored history could not be read (left unprocessed on every retry): unknown, not empty. */
  unread: ReadonlySet<string>;
}

/** What the check decides for one cluster whose subnets were read. */
export interface ClusterCheck {
  assessed: SubnetAssessment[];
  /** The histories to write back: each stored one with this run's sample appended. */
  histories: Array<{ subnetId: string; samples: Sample[] }>;
  /**
   * Subnets whose stored history was not read: judged on this run's count alone, and their history
   * is not written (one sample would overwrite a day of them).
   */
  unread: string[];
  headroom: ClusterHeadroom;
  /** Every subnet judged low, those an open exhaustion incident speaks for included. */
  low: string[];
  /** The finding context of the incident when the cluster is low: every subnet, per-zone totals, the VPCs. */
  context?: FindingContext;
}

/** Judges one cluster from this run's counts and the stored histories of its subnets. */
export function checkCluster(input: {
  cluster: string;
  /** The cluster's account when it is not the deployment's own (`keyAccountOf`). */
  account?: string;
  subnets: readonly CountedSubnet[];
  vpcs: VpcFacts[];
  histories: StoredHistories;
  now: number;
  thresholds: HeadroomThresholds;
  /** The cluster's exhaustion incident as stored: while open, it pages for the subnets it names. */
  exhaustion?: IncidentState;
}): ClusterCheck {
  const { subnets, histories, now, thresholds } = input;
  const check: ClusterCheck = { assessed: [], histories: [], unread: [], headroom: { low: false }, low: [] };
  for (const subnet of subnets) {
    const sample = { t: now, free: subnet.availableIps };
    if (histories.unread.has(subnet.subnetId)) {
      check.unread.push(subnet.subnetId);
      check.assessed.push(assessSubnet(subnet, [sample], thresholds));
      continue;
    }
    const samples = appendSample(histories.samples.get(subnet.subnetId) ?? [], sample);
    check.histories.push({ subnetId: subnet.subnetId, samples });
    check.assessed.push(assessSubnet(subnet, samples, thresholds));
  }
  check.low = check.assessed.filter((a) => a.verdict).map((a) => a.facts.subnetId);
  const unfolded = unfoldedAssessments(check.assessed, input.exhaustion, now);
  check.headroom = judgeCluster(input.cluster, unfolded, thresholds, now, input.account);
  if (check.headroom.low) {
    const facts = check.assessed.map((a) => a.facts).sort((a, b) => a.subnetId.localeCompare(b.subnetId));
    check.context = { subnets: facts, zones: zoneTotals(facts), vpcs: input.vpcs, enrichmentErrors: [] };
  }
  return check;
}

/** How the headroom checks of a cluster have gone, for the resolve sweep (one record per cluster). */
export interface ClusterHealth {
  /** As `clusterScopeOf` writes it: one per account. */
  cluster: string;
  /** Epoch ms since which every check succeeded and found no low subnet; unset after a low or failed check. */
  healthySince?: number;
  lastCheckAt: number;
  lastError?: string;
}

/** How this run's check of a cluster went. */
export type CheckOutcome =
  /** Its subnets could not be read. */
  | { kind: 'gap'; error: string }
  | { kind: 'low' }
  /** No subnet low; `healthySince` is the stored record's, when there is one. */
  | { kind: 'healthy'; healthySince?: number };

/**
 * The cluster's health record after this run: a failed read is a gap and a low check ends the
 * healthy streak (neither is a recovery); a healthy check continues the streak, or starts it now.
 */
export function healthAfter(cluster: string, outcome: CheckOutcome, now: number): ClusterHealth {
  switch (outcome.kind) {
    case 'gap':
      return { cluster, lastCheckAt: now, lastError: outcome.error };
    case 'low':
      return { cluster, lastCheckAt: now };
    case 'healthy':
      return { cluster, lastCheckAt: now, healthySince: outcome.healthySince ?? now };
  }
}

/**
 * What the sweep learns of this run from the health records it wrote (healthy clusters and the rest)
 * and from the subnets each read cluster had low.
 */
export function runOf(
  healths: readonly ClusterHealth[],
  lowSubnets: ReadonlyMap<string, readonly string[]> = new Map(),
): HeadroomRun {
  const stillLow = new Set<string>();
  const healthySince = new Map<string, number>();
  for (const health of healths) {
    if (health.healthySince === undefined) stillLow.add(health.cluster);
    else healthySince.set(health.cluster, health.healthySince);
  }
  const low = new Map([...lowSubnets].map(([scope, subnets]) => [scope, new Set(subnets)] as const));
  return { stillLow, healthySince, lowSubnets: low };
}

/** The incident of one check: the low subnets and zones, and one evidence line per subnet (the three worst). */
export function headroomIncident(
  cluster: string,
  low: readonly SubnetAssessment[],
  now: number,
  account?: string,
  thresholds?: HeadroomThresholds,
): Incident {
  const at = new Date(now).toISOString();
  const worst = [...low].sort((a, b) => (a.facts.availableIps ?? 0) - (b.facts.availableIps ?? 0));
  return {
    findingId: findingIdOf(cluster, HEADROOM_RULE, undefined, account),
    cluster,
    ...(account ? { account } : {}),
    rule: HEADROOM_RULE,
    occurrences: 1,
    firstSeen: at,
    lastSeen: at,
    entities: {
      subnets: low.map((l) => l.facts.subnetId).sort(),
      zones: [...new Set(low.map((l) => l.facts.availabilityZone).filter((z): z is string => Boolean(z)))].sort(),
    },
    evidence: worst.slice(0, 3).map(({ facts, forecast, verdict }) => ({
      timestamp: at,
      message: `${facts.subnetId}${facts.availabilityZone ? ` (${facts.availabilityZone})` : ''}: ${facts.availableIps}${
        facts.totalIps ? ` of ${facts.totalIps}` : ''
      } IPs free${forecast ? `, falling ${Math.round(-forecast.ipsPerHour)} an hour, out in about ${forecast.hoursToExhaustion.toFixed(1)} h` : ''}${
        verdict && thresholds ? `: ${verdictText(verdict, facts.totalIps, thresholds)}` : ''
      }`,
    })),
  };
}

/**
 * High; critical when a subnet is nearly empty (under a quarter of the minimum its size allows) or
 * runs out within the hour.
 */
export function headroomSeverity(low: readonly SubnetAssessment[], thresholds: HeadroomThresholds): Severity {
  const critical = low.some(
    ({ facts, forecast }) =>
      (facts.availableIps ?? 0) < Math.max(1, minimumFreeIps(facts.totalIps, thresholds) / 4) ||
      (forecast?.hoursToExhaustion ?? Infinity) <= 1,
  );
  return critical ? 'critical' : 'high';
}

/** What this run learnt about the configured clusters, for the sweep. */
export interface HeadroomRun {
  /**
   * Clusters (as `clusterScopeOf` writes them: one per account) whose check failed or found a low
   * subnet: their headroom incident stays open.
   */
  stillLow: ReadonlySet<string>;
  /** Since when each cluster checked healthy this run has been healthy. */
  healthySince: ReadonlyMap<string, number>;
  /** The subnets found low in each cluster whose subnets this run read (empty sets for healthy ones). */
  lowSubnets?: ReadonlyMap<string, ReadonlySet<string>>;
}

/**
 * Whether the sweep must read the stored health of the incident's cluster: a headroom incident of a
 * cluster this run did not check (no longer configured). Every other incident is decided without it.
 */
export function needsStoredHealth(
  state: Pick<IncidentState, 'rule' | 'cluster' | 'account'>,
  run: HeadroomRun,
): boolean {
  const scoped = clusterScopeOf(state);
  return state.rule === HEADROOM_RULE && !run.healthySince.has(scoped) && !run.stillLow.has(scoped);
}

/**
 * Whether the sweep holds a headroom incident back: its cluster is still low (or could not be read),
 * or has not been healthy for the whole resolve window. A quiet headroom incident is not a recovery:
 * only healthy checks are. Incidents of other rules are never held back here.
 */
export function holdBackFromSweep(
  state: Pick<IncidentState, 'rule' | 'cluster' | 'account' | 'entities'>,
  run: HeadroomRun,
  /** The cluster's stored `healthySince`, read when `needsStoredHealth` said so. */
  storedHealthySince: number | undefined,
  now: number,
  policy: Pick<LifecyclePolicy, 'resolveAfterMs'>,
  relations: SweepRelations = NO_RELATIONS,
): boolean {
  const scoped = clusterScopeOf(state);
  // Out of IPs is not over while the check still sees a subnet of it low, whatever the logs say.
  if (state.rule === EXHAUSTION_RULE) return [...(run.lowSubnets?.get(scoped) ?? [])].some((s) => speaksFor(state, s));
  if (state.rule !== HEADROOM_RULE) return false;
  // The open exhaustion incident of the same subnets closes it when it resolves.
  const exhaustion = relations.exhaustion.get(scoped);
  if (exhaustion && sameSubnets(exhaustion, state)) return true;
  if (run.stillLow.has(scoped)) return true;
  const healthySince = run.healthySince.get(scoped) ?? storedHealthySince;
  return healthySince === undefined || now - healthySince < policy.resolveAfterMs;
}

/**
 * What the sweep does with one stored incident: nothing; send the resolved notice it already holds;
 * or write the state it leads to (resolved, or its unfinished first notice taken over), conditionally
 * on the stored version so that of concurrent sweepers only one does, and then send that notice.
 */
export type SweepWork =
  | { kind: 'none' }
  | { kind: 'send'; due: Due }
  | {
      kind: 'write';
      state: IncidentState;
      due: Due;
      resolves: boolean;
      /** A reminder of an incident held open (neither resolved nor a notice taken over). */
      reminds?: boolean;
      /** The headroom incident this resolution closes, to write (conditionally on `expected`) after it. */
      closes?: { state: IncidentState; due: Due; expected: number };
    };

/** The sweep's work for one incident, with headroom incidents held back as `holdBackFromSweep` says. */
export function sweepWork(
  state: IncidentState,
  run: HeadroomRun,
  /** The cluster's stored `healthySince`, read when `needsStoredHealth` said so. */
  storedHealthySince: number | undefined,
  now: number,
  policy: LifecyclePolicy,
  relations: SweepRelations = NO_RELATIONS,
): SweepWork {
  const folded = relations.closedBy.has(state.findingId);
  if (folded) {
    // Its exhaustion incident resolved and said so, but the sweep stopped before closing it.
    const closed = closedWith(state, now);
    return { kind: 'write', state: closed, due: { state: closed, notify: closed.pending! }, resolves: true };
  }
  const held = holdBackFromSweep(state, run, storedHealthySince, now, policy, relations);
  const step = sweepStep(state, now, policy, held);
  switch (step.kind) {
    case 'keep': {
      // Held open by its subnets, not by new lines: reminded on the interval, as the warning it folds was.
      const reminder = held && state.rule === EXHAUSTION_RULE ? sweepReminder(state, now, policy) : undefined;
      return reminder
        ? {
            kind: 'write',
            state: reminder,
            due: { state: reminder, notify: reminder.pending! },
            resolves: false,
            reminds: true,
          }
        : { kind: 'none' };
    }
    case 'finish':
      return { kind: 'send', due: { state, notify: state.pending! } };
    default: {
      const closes = step.kind === 'resolve' ? closedHeadroomOf(state, run, relations, now) : undefined;
      const resolved: IncidentState = closes
        ? {
            ...step.state,
            pending: {
              ...step.state.pending!,
              closes: [{ findingId: closes.findingId, rule: closes.rule, openedAt: closes.openedAt }],
            },
          }
        : step.state;
      const closedState = closes && closedWith(closes, now);
      return {
        kind: 'write',
        state: resolved,
        due: { state: resolved, notify: resolved.pending! },
        resolves: step.kind === 'resolve',
        ...(closes && closedState
          ? {
              closes: {
                state: closedState,
                due: { state: closedState, notify: closedState.pending! },
                expected: closes.version,
              },
            }
          : {}),
      };
    }
  }
}

/**
 * The open headroom incident that the resolution of an exhaustion incident closes: the same cluster
 * and subnets, read by this run and none of them low any more.
 */
function closedHeadroomOf(
  state: IncidentState,
  run: HeadroomRun,
  relations: SweepRelations,
  now: number,
): IncidentState | undefined {
  if (state.rule !== EXHAUSTION_RULE) return undefined;
  const scoped = clusterScopeOf(state);
  const headroom = relations.headroom.get(scoped);
  const low = run.lowSubnets?.get(scoped);
  if (!headroom || !low || headroom.openedAt > now || !sameSubnets(state, headroom)) return undefined;
  return (headroom.entities.subnets ?? []).some((s) => low.has(s)) ? undefined : headroom;
}

/** The scheduled time of this run (the same for Scheduler's retries of it), else the current minute. */
export function runIdOf(event: unknown, now: number): string {
  const scheduled = isObject(event) && typeof event.scheduledTime === 'string' ? Date.parse(event.scheduledTime) : NaN;
  return new Date(Number.isNaN(scheduled) ? Math.floor(now / 60_000) * 60_000 : scheduled).toISOString();
}

/** The verdict in words; a subnet smaller than the configured minimum says so, once, in its own line. */
export function verdictText(
  verdict: NonNullable<SubnetAssessment['verdict']>,
  total: number | undefined,
  thresholds: HeadroomThresholds,
): string {
  const minimum = minimumFreeIps(total, thresholds);
  switch (verdict) {
    case 'below-minimum':
      return minimum < thresholds.minFreeIps
        ? `under ${minimum} free, the minimum for a subnet of ${total} (smaller than the configured ${thresholds.minFreeIps} by design)`
        : `under the minimum of ${minimum} free`;
    case 'below-percent':
      return `under ${thresholds.minFreePercent}% free`;
    case 'runs-out-soon':
      return `runs out within ${thresholds.horizonHours} h at this trend`;
  }
}

const round = (value: number): number => Math.round(value * 10) / 10;
