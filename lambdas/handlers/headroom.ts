import type { Metrics } from '@aws-lambda-powertools/metrics';
import type { Context } from 'aws-lambda';
import type { AccountEnrichers } from '../adapters/accounts';
import type { Enricher } from '../adapters/enrich';
import { HeadroomStore } from '../adapters/headroom-store';
import { IncidentStore } from '../adapters/incident-store';
import { clusterScopeOf, keyAccountOf } from '../core/decode/account';
import { zoneTotals, type FindingContext } from '../core/findings/context';
import { scopeOfArn, type ArnScope } from '../core/findings/bus-entries';
import {
  checkCluster,
  countedSubnets,
  healthAfter,
  needsStoredHealth,
  runIdOf,
  runOf,
  sweepWork,
  HEADROOM_RULE,
  type ClusterHealth,
  type HeadroomRun,
  type SubnetAssessment,
} from '../core/headroom/subnet-headroom';
import { exhaustionIdOf, relationsOf } from '../core/headroom/related';
import { dueOf, type Due } from '../core/incidents/lifecycle';
import { lazyAwsClients } from '../shared/aws-clients';
import { METRIC } from '../../contracts/names';
import { PublishError, type FunctionDeps, type InvocationContext } from '../shared/invocation';
import { recordNotifyMetrics } from './notify-metrics';
import { observability, observeInvocation, recordCounts } from '../shared/observability';
import { headroomSettings, type ClusterEntry, type HeadroomSettings } from '../shared/settings';
import { enrichersOf, notifierOf } from './wiring';

export interface HeadroomDeps extends FunctionDeps<HeadroomSettings> {
  enricher?: Enricher;
}

export interface HeadroomResult {
  /** Clusters whose subnets were read, and those whose check failed (a gap in the history). */
  checked: string[];
  gaps: string[];
  /**
   * Subnets (`cluster/subnet`) whose stored history DynamoDB left unread on every retry: judged on this
   * run's count alone, their history left as it was.
   */
  unreadHistories: string[];
  /** Finding ids notified (low headroom) and resolved (by the sweep). */
  notified: string[];
  resolved: string[];
  /** Open incidents whose unfinished first notice the sweep sent. */
  finished: string[];
  /** Exhaustion incidents held open by their low subnets, reminded on the re-notify interval. */
  reminded: string[];
}

const DESCRIBE_BUDGET_MS = 8_000;

/** The adapters of one run. */
interface HeadroomIo {
  store: IncidentStore;
  headroom: HeadroomStore;
  enricher: AccountEnrichers<Enricher>;
  scope?: ArnScope;
}

/** What the check of one cluster leaves for the sweep and the notifier. */
interface ClusterOutcome {
  health: ClusterHealth;
  due: Due[];
  context?: [findingId: string, context: FindingContext];
  /** The cluster's subnets found low, when they were read. */
  low?: [scope: string, subnets: string[]];
}

/**
 * The scheduled headroom check (docs/architecture.md, The headroom schedule): for each cluster, read the free
 * IPs of the subnets Karpenter launches into, keep their history, forecast exhaustion, and raise
 * `subnet-ip-headroom-low` before pods go Pending; then sweep every incident that has been quiet for the
 * resolve window and send its resolved notice once. A failed read is a gap, never a recovery. Every
 * decision is in core (`checkCluster`, `healthAfter`, `sweepWork` in `core/headroom.ts`); this reads,
 * writes and publishes.
 */
export async function checkHeadroom(
  event: unknown,
  context: InvocationContext,
  deps: HeadroomDeps,
): Promise<HeadroomResult> {
  const now = deps.now();
  const result: HeadroomResult = {
    checked: [],
    gaps: [],
    unreadHistories: [],
    notified: [],
    resolved: [],
    finished: [],
    reminded: [],
  };
  const io = headroomIo(deps, context);
  const run = runIdOf(event, now);

  const outcomes: ClusterOutcome[] = [];
  for (const entry of deps.settings.clusters) outcomes.push(await checkOneCluster(entry, io, deps, now, run, result));
  const due = outcomes.flatMap((o) => o.due);
  result.notified.push(...due.map((d) => d.state.findingId));

  const lows = new Map(outcomes.flatMap((o) => (o.low ? [o.low] : [])));
  due.push(
    ...(await sweep(
      runOf(
        outcomes.map((o) => o.health),
        lows,
      ),
      io,
      deps,
      now,
      result,
    )),
  );

  const contexts = new Map(outcomes.flatMap((o) => (o.context ? [o.context] : [])));
  const notifier = notifierOf(deps, io.store, io.enricher, { scope: io.scope });
  const { findings, failures } = await notifier.notify(due, DESCRIBE_BUDGET_MS, contexts);
  recordNotifyMetrics(findings, failures, deps);
  if (failures.length > 0) {
    throw new PublishError(`could not publish ${failures.length} notification channel(s); the retry finishes them`);
  }
  return result;
}

function headroomIo(deps: HeadroomDeps, context: InvocationContext): HeadroomIo {
  const { clients, settings } = deps;
  return {
    store: new IncidentStore(clients.dynamo, settings.tableName, { sleep: deps.sleep }),
    headroom: new HeadroomStore(clients.dynamo, settings.tableName, { sleep: deps.sleep }),
    // Clusters of other accounts are read through the spoke's read-only role.
    enricher: enrichersOf(deps, deps.enricher),
    scope: scopeOfArn(context.invokedFunctionArn),
  };
}

/**
 * One cluster of one account: read its subnets and their histories, judge them (core), write the
 * histories and the cluster's health, and record the incident when it is low. Its history, health and
 * incident are its own: `cluster` is its name in the home account and `<account>/<name>` in another.
 */
async function checkOneCluster(
  entry: ClusterEntry,
  io: HeadroomIo,
  deps: HeadroomDeps,
  now: number,
  run: string,
  result: HeadroomResult,
): Promise<ClusterOutcome> {
  const { logger, metrics, settings } = deps;
  const account = keyAccountOf(entry.account, io.scope?.account);
  const cluster = clusterScopeOf({ cluster: entry.name, account });
  const found = await io.enricher.enricherFor(account, io.scope);
  const read = found.ok
    ? await found.enricher.karpenterSubnets(entry.name, DESCRIBE_BUDGET_MS)
    : { ok: false as const, error: found.error };
  if (!read.ok) {
    result.gaps.push(cluster);
    logger.warn('Headroom check gap: subnets could not be read', { cluster, error: read.error });
    recordCounts(metrics, { cluster }, { [METRIC.headroomCheckGaps]: 1 });
    const error = `${read.error.source}: ${read.error.message}`;
    return saved(io, healthAfter(cluster, { kind: 'gap', error }, now));
  }
  result.checked.push(cluster);

  const subnets = countedSubnets(read.subnets);
  const [histories, exhaustion] = await Promise.all([
    io.headroom.histories(
      cluster,
      subnets.map((s) => s.subnetId),
    ),
    io.store.get(exhaustionIdOf(entry.name, account)),
  ]);
  const check = checkCluster({
    cluster: entry.name,
    account,
    subnets,
    vpcs: read.vpcs,
    histories,
    now,
    thresholds: settings.thresholds,
    exhaustion,
  });
  if (check.unread.length > 0) {
    result.unreadHistories.push(...check.unread.map((subnet) => `${cluster}/${subnet}`));
    logger.warn('Subnet histories left unread by DynamoDB: judged on this count alone, kept as they were', {
      cluster,
      subnets: check.unread,
    });
  }
  await Promise.all(check.histories.map((h) => io.headroom.saveHistory(cluster, h.subnetId, h.samples)));
  recordSubnetMetrics(metrics, cluster, check.assessed);

  const low: ClusterOutcome['low'] = [cluster, check.low];
  if (check.low.length === 0) {
    const stored = await io.headroom.health(cluster);
    return {
      ...(await saved(io, healthAfter(cluster, { kind: 'healthy', healthySince: stored?.healthySince }, now))),
      low,
    };
  }
  const outcome = { ...(await saved(io, healthAfter(cluster, { kind: 'low' }, now))), low };
  // Low subnets that the open exhaustion incident already pages for: no second page.
  if (!check.headroom.low) return outcome;
  const { incident, severity } = check.headroom;
  const recorded = await io.store.record([{ incident, severity }], `headroom:${cluster}:${run}`, now, settings.policy);
  return { ...outcome, due: dueOf(recorded), context: [incident.findingId, check.context!] };
}

async function saved(io: HeadroomIo, health: ClusterHealth): Promise<ClusterOutcome> {
  await io.headroom.saveHealth(health);
  return { health, due: [] };
}

/**
 * Every stored incident, as `sweepWork` decides: the notices to send. A write is conditional on the
 * stored version: of concurrent sweepers, only one resolves or takes over.
 */
async function sweep(
  run: HeadroomRun,
  io: HeadroomIo,
  deps: HeadroomDeps,
  now: number,
  result: HeadroomResult,
): Promise<Due[]> {
  const due: Due[] = [];
  const states = await io.store.scanIncidents();
  const relations = relationsOf(states, HEADROOM_RULE, now);
  for (const state of states) {
    const stored = needsStoredHealth(state, run)
      ? (await io.headroom.health(clusterScopeOf(state)))?.healthySince
      : undefined;
    const work = sweepWork(state, run, stored, now, deps.settings.policy, relations);
    if (work.kind === 'none') continue;
    if (work.kind === 'write') {
      if (!(await io.store.putIfVersion(work.state, state.version))) continue;
      (work.resolves ? result.resolved : work.reminds ? result.reminded : result.finished).push(state.findingId);
      // Written after the resolution that names it: a sweep stopped in between closes it next run.
      if (work.closes && (await io.store.putIfVersion(work.closes.state, work.closes.expected))) {
        result.resolved.push(work.closes.state.findingId);
        due.push(work.closes.due);
      }
    }
    due.push(work.due);
  }
  return due;
}

function recordSubnetMetrics(metrics: Metrics, cluster: string, assessed: SubnetAssessment[]): void {
  for (const { facts, forecast } of assessed) {
    recordCounts(
      metrics,
      { cluster, subnet: facts.subnetId },
      {
        [METRIC.subnetFreeIps]: facts.availableIps,
        [METRIC.subnetTotalIps]: facts.totalIps,
        [METRIC.subnetHoursToExhaustion]: forecast?.hoursToExhaustion,
      },
    );
  }
  for (const zone of zoneTotals(assessed.map((a) => a.facts))) {
    recordCounts(
      metrics,
      { cluster, zone: zone.availabilityZone },
      {
        [METRIC.zoneFreeIps]: zone.availableIps,
        [METRIC.zoneTotalIps]: zone.totalIps,
      },
    );
  }
}

let warm: Omit<HeadroomDeps, 'settings'> | undefined;

/**
 * What EventBridge Scheduler sends: the stack's target input, with the `<aws.scheduler.scheduled-time>`
 * context attribute filled in (`lib/constructs/headroom-check.ts`).
 */
export interface HeadroomScheduleEvent {
  scheduledTime?: string;
}

/** The Lambda entry point, invoked by EventBridge Scheduler with `{"scheduledTime": "…"}`. */
export async function handler(event: HeadroomScheduleEvent, context: Context): Promise<HeadroomResult> {
  if (!warm) {
    const { logger, metrics } = observability('headroom');
    warm = { clients: lazyAwsClients(), logger, metrics, now: Date.now };
  }
  const environment = warm;
  return observeInvocation(environment, context, () =>
    checkHeadroom(event, context, { ...environment, settings: headroomSettings() }),
  );
}
