import { MetricUnit, type Metrics } from '@aws-lambda-powertools/metrics';
import { Enricher } from '../adapters/enrich';
import { HeadroomStore } from '../adapters/headroom-store';
import { IncidentStore } from '../adapters/incident-store';
import { Notifier, type Due } from '../adapters/notifier';
import { Publisher } from '../adapters/publish';
import { findingIdOf, type Incident } from '../core/aggregate';
import { zoneTotals, type FindingContext, type SubnetFacts } from '../core/context';
import { isObject } from '../core/json';
import { scopeOfArn } from '../core/events';
import { forecastExhaustion, headroomVerdict, type Forecast, type HeadroomThresholds } from '../core/forecast';
import { resolveIncident, sweepAction, takeOverPending } from '../core/lifecycle';
import type { Severity } from '../core/model';
import { lazyAwsClients } from '../shared/aws-clients';
import { METRIC } from '../../contracts/names';
import { PublishError, type FunctionDeps, type InvocationContext } from '../shared/invocation';
import { recordNotifyMetrics } from './notify-metrics';
import { observability } from '../shared/observability';
import { clusterSettingsOf, headroomSettings, type HeadroomSettings } from '../shared/settings';

export interface HeadroomDeps extends FunctionDeps<HeadroomSettings> {
  enricher?: Enricher;
}

export interface HeadroomResult {
  /** Clusters whose subnets were read, and those whose check failed (a gap in the history). */
  checked: string[];
  gaps: string[];
  /** Finding ids notified (low headroom) and resolved (by the sweep). */
  notified: string[];
  resolved: string[];
  /** Open incidents whose unfinished first notice the sweep sent. */
  finished: string[];
}

const RULE = 'subnet-ip-headroom-low';
const DESCRIBE_BUDGET_MS = 8_000;

/**
 * The scheduled headroom check (docs/architecture.md, The headroom schedule): for each cluster, read the free
 * IPs of the subnets Karpenter launches into, keep their history, forecast exhaustion, and raise
 * `subnet-ip-headroom-low` before pods go Pending; then sweep every incident that has been quiet for the
 * resolve window and send its resolved notice once. A failed read is a gap, never a recovery.
 */
export async function checkHeadroom(
  event: unknown,
  context: InvocationContext,
  deps: HeadroomDeps,
): Promise<HeadroomResult> {
  const { settings, logger, metrics } = deps;
  const now = deps.now();
  const result: HeadroomResult = { checked: [], gaps: [], notified: [], resolved: [], finished: [] };
  const store = new IncidentStore(deps.clients.dynamo, settings.tableName);
  const headroom = new HeadroomStore(deps.clients.dynamo, settings.tableName);
  const enricher =
    deps.enricher ??
    new Enricher(deps.clients, {
      clusterSettings: (cluster) => clusterSettingsOf(settings.clusters, cluster),
      now: deps.now,
    });
  const run = runIdOf(event, now);
  const due: Due[] = [];
  const contexts = new Map<string, FindingContext>();
  const stillLow = new Set<string>();
  /** Since when each cluster checked this run has been healthy: the sweep reads it here, not again. */
  const healthySinceOf = new Map<string, number>();

  for (const { name: cluster } of settings.clusters) {
    const read = await enricher.karpenterSubnets(cluster, DESCRIBE_BUDGET_MS);
    if (!read.ok) {
      result.gaps.push(cluster);
      stillLow.add(cluster);
      logger.warn('Headroom check gap: subnets could not be read', { cluster, error: read.error });
      metricsFor(metrics, { cluster }, { [METRIC.headroomCheckGaps]: 1 });
      await headroom.saveHealth({
        cluster,
        lastCheckAt: now,
        lastError: `${read.error.source}: ${read.error.message}`,
      });
      continue;
    }
    result.checked.push(cluster);

    const histories = await headroom.histories(
      cluster,
      read.subnets.map((s) => s.subnetId),
    );
    const assessed = await Promise.all(
      read.subnets
        .filter((s) => s.availableIps !== undefined)
        .map(async (subnet) => {
          const samples = await headroom.append(cluster, subnet.subnetId, histories.get(subnet.subnetId) ?? [], {
            t: now,
            free: subnet.availableIps!,
          });
          const forecast = forecastExhaustion(samples);
          const facts: SubnetFacts = forecast
            ? {
                ...subnet,
                ipsPerHour: round(forecast.ipsPerHour),
                hoursToExhaustion: round(forecast.hoursToExhaustion),
              }
            : subnet;
          return {
            facts,
            forecast,
            verdict: headroomVerdict(subnet.availableIps!, subnet.totalIps, forecast, settings.thresholds),
          };
        }),
    );
    recordSubnetMetrics(metrics, cluster, assessed);

    const low = assessed.filter((a) => a.verdict);
    if (low.length === 0) {
      const healthySince = (await headroom.health(cluster))?.healthySince ?? now;
      healthySinceOf.set(cluster, healthySince);
      await headroom.saveHealth({ cluster, lastCheckAt: now, healthySince });
      continue;
    }
    stillLow.add(cluster);
    await headroom.saveHealth({ cluster, lastCheckAt: now });

    const incident = headroomIncident(cluster, low, now);
    const [recorded] = await store.record(
      [{ incident, severity: severityOf(low, settings.thresholds) }],
      `headroom:${cluster}:${run}`,
      now,
      settings.policy,
    );
    const subnets = assessed.map((a) => a.facts).sort((a, b) => a.subnetId.localeCompare(b.subnetId));
    contexts.set(incident.findingId, { subnets, zones: zoneTotals(subnets), vpcs: read.vpcs, enrichmentErrors: [] });
    if (recorded && recorded.outcome.kind !== 'ongoing' && recorded.outcome.notify) {
      due.push({ state: recorded.state, notify: recorded.outcome.notify });
      result.notified.push(incident.findingId);
    }
  }

  for (const state of await store.scanIncidents()) {
    const healthySince =
      state.rule !== RULE || healthySinceOf.has(state.cluster) || stillLow.has(state.cluster)
        ? healthySinceOf.get(state.cluster)
        : (await headroom.health(state.cluster))?.healthySince; // a cluster no longer configured
    const healthyForWindow = healthySince !== undefined && now - healthySince >= settings.policy.resolveAfterMs;
    const holdBack = state.rule === RULE && (stillLow.has(state.cluster) || !healthyForWindow);
    const action = sweepAction(state, now, settings.policy, holdBack);
    if (action === 'finish' && state.status === 'open') {
      // A first notice that failed every attempt, and no delivery came to finish it: the sweep takes
      // it over (a conditional write, so only one taker) and sends it as it was decided.
      const taken = takeOverPending(state, now);
      if (taken && (await store.putIfVersion(taken.state, state.version))) {
        due.push({ state: taken.state, notify: taken.state.pending! });
        result.finished.push(state.findingId);
      }
    } else if (action === 'finish' && state.pending) {
      due.push({ state, notify: state.pending });
    } else if (action === 'resolve') {
      const resolved = resolveIncident(state, now);
      if (await store.putIfVersion(resolved.state, state.version)) {
        due.push({ state: resolved.state, notify: resolved.state.pending! });
        result.resolved.push(state.findingId);
      }
    }
  }

  const scope = scopeOfArn(context.invokedFunctionArn);
  const notifier = new Notifier(
    store,
    enricher,
    new Publisher(deps.clients.sns, deps.clients.events, {
      topicArn: settings.topicArn,
      eventBusName: settings.eventBusName,
      sleep: deps.sleep,
    }),
    {
      eventSource: settings.eventSource,
      scope,
      maxNoticesPerCluster: settings.limits.maxNoticesPerCluster,
      concurrency: settings.limits.concurrency,
    },
  );
  const { findings, failures } = await notifier.notify(due, DESCRIBE_BUDGET_MS, contexts);
  recordNotifyMetrics(findings, failures, deps);
  if (failures.length > 0) {
    throw new PublishError(`could not publish ${failures.length} notification channel(s); the retry finishes them`);
  }
  return result;
}

/** The incident of one check: the low subnets and zones, and one evidence line per subnet. */
function headroomIncident(
  cluster: string,
  low: Array<{ facts: SubnetFacts; forecast?: Forecast; verdict?: string }>,
  now: number,
): Incident {
  const at = new Date(now).toISOString();
  const worst = [...low].sort((a, b) => (a.facts.availableIps ?? 0) - (b.facts.availableIps ?? 0));
  return {
    findingId: findingIdOf(cluster, RULE, undefined),
    cluster,
    rule: RULE,
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
      } IPs free${forecast ? `, falling ${Math.round(-forecast.ipsPerHour)} an hour, out in about ${forecast.hoursToExhaustion.toFixed(1)} h` : ''} [${verdict}]`,
    })),
  };
}

/** High; critical when a subnet is nearly empty or runs out within the hour. */
function severityOf(low: Array<{ facts: SubnetFacts; forecast?: Forecast }>, thresholds: HeadroomThresholds): Severity {
  const critical = low.some(
    ({ facts, forecast }) =>
      (facts.availableIps ?? 0) < Math.max(1, thresholds.minFreeIps / 4) ||
      (forecast?.hoursToExhaustion ?? Infinity) <= 1,
  );
  return critical ? 'critical' : 'high';
}

function recordSubnetMetrics(
  metrics: Metrics,
  cluster: string,
  assessed: Array<{ facts: SubnetFacts; forecast?: Forecast }>,
): void {
  for (const { facts, forecast } of assessed) {
    metricsFor(
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
    metricsFor(
      metrics,
      { cluster, zone: zone.availabilityZone },
      {
        [METRIC.zoneFreeIps]: zone.availableIps,
        [METRIC.zoneTotalIps]: zone.totalIps,
      },
    );
  }
}

/** One EMF record with these dimensions and every metric whose value is known. */
function metricsFor(
  metrics: Metrics,
  dimensions: Record<string, string>,
  values: Record<string, number | undefined>,
): void {
  const single = metrics.singleMetric();
  for (const [key, dimension] of Object.entries(dimensions)) single.addDimension(key, dimension);
  for (const [name, value] of Object.entries(values)) {
    if (value !== undefined) single.addMetric(name, MetricUnit.Count, value);
  }
}

/** The scheduled time of this run (the same for Scheduler's retries of it), else the current minute. */
function runIdOf(event: unknown, now: number): string {
  const scheduled = isObject(event) && typeof event.scheduledTime === 'string' ? Date.parse(event.scheduledTime) : NaN;
  return new Date(Number.isNaN(scheduled) ? Math.floor(now / 60_000) * 60_000 : scheduled).toISOString();
}

const round = (value: number): number => Math.round(value * 10) / 10;

let warm: Omit<HeadroomDeps, 'settings'> | undefined;

/** The Lambda entry point, invoked by EventBridge Scheduler with `{"scheduledTime": "…"}`. */
export async function handler(event: unknown, context: InvocationContext): Promise<HeadroomResult> {
  if (!warm) {
    const { logger, metrics } = observability('headroom');
    warm = { clients: lazyAwsClients(), logger, metrics, now: Date.now };
  }
  const deps: HeadroomDeps = { ...warm, settings: headroomSettings() };
  try {
    return await checkHeadroom(event, context, deps);
  } finally {
    deps.metrics.publishStoredMetrics();
  }
}
