import { MetricUnit, type Metrics } from '@aws-lambda-powertools/metrics';
import type { Context } from 'aws-lambda';
import { accountEnrichers } from '../adapters/accounts';
import { Enricher } from '../adapters/enrich';
import { HeadroomStore } from '../adapters/headroom-store';
import { IncidentStore } from '../adapters/incident-store';
import { Notifier, type Due } from '../adapters/notifier';
import { Publisher } from '../adapters/publish';
import { clusterScopeOf, keyAccountOf } from '../core/account';
import { zoneTotals, type FindingContext } from '../core/context';
import { scopeOfArn } from '../core/events';
import {
  appendSample,
  assessSubnet,
  holdBackFromSweep,
  judgeCluster,
  needsStoredHealth,
  runIdOf,
  type HeadroomRun,
  type SubnetAssessment,
} from '../core/headroom';
import { sweepStep } from '../core/lifecycle';
import { lazyAwsClients } from '../shared/aws-clients';
import { METRIC } from '../../contracts/names';
import { PublishError, type FunctionDeps, type InvocationContext } from '../shared/invocation';
import { recordNotifyMetrics } from './notify-metrics';
import { observability } from '../shared/observability';
import { headroomSettings, type HeadroomSettings } from '../shared/settings';
import { clusterSettingsOf } from '../core/cluster';

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
}

const DESCRIBE_BUDGET_MS = 8_000;

/**
 * The scheduled headroom check (docs/architecture.md, The headroom schedule): for each cluster, read the free
 * IPs of the subnets Karpenter launches into, keep their history, forecast exhaustion, and raise
 * `subnet-ip-headroom-low` before pods go Pending; then sweep every incident that has been quiet for the
 * resolve window and send its resolved notice once. A failed read is a gap, never a recovery. Every
 * decision is in core (`core/headroom.ts`, `sweepStep` in `core/lifecycle.ts`); this reads, writes and
 * publishes.
 */
export async function checkHeadroom(
  event: unknown,
  context: InvocationContext,
  deps: HeadroomDeps,
): Promise<HeadroomResult> {
  const { settings, logger, metrics } = deps;
  const now = deps.now();
  const result: HeadroomResult = {
    checked: [],
    gaps: [],
    unreadHistories: [],
    notified: [],
    resolved: [],
    finished: [],
  };
  const store = new IncidentStore(deps.clients.dynamo, settings.tableName, { sleep: deps.sleep });
  const headroom = new HeadroomStore(deps.clients.dynamo, settings.tableName, { sleep: deps.sleep });
  const scope = scopeOfArn(context.invokedFunctionArn);
  const home =
    deps.enricher ??
    new Enricher(deps.clients, {
      clusterSettings: (cluster) => clusterSettingsOf(settings.clusters, cluster),
      now: deps.now,
    });
  // Clusters of other accounts are read through the spoke's read-only role.
  const enricher = accountEnrichers(deps.clients, {
    clusterSettings: (cluster, account) => clusterSettingsOf(settings.clusters, cluster, account),
    now: deps.now,
    home,
  });
  const run = runIdOf(event, now);
  const due: Due[] = [];
  const contexts = new Map<string, FindingContext>();
  const stillLow = new Set<string>();
  /** Since when each cluster checked this run has been healthy: the sweep reads it here, not again. */
  const healthySince = new Map<string, number>();

  for (const entry of settings.clusters) {
    // One cluster of one account: its history, health and incident are its own. `scoped` is the
    // cluster's name in the home account and `<account>/<name>` in another.
    const account = keyAccountOf(entry.account, scope?.account);
    const scoped = clusterScopeOf({ cluster: entry.name, account });
    const found = await enricher.enricherFor(account, scope);
    const read = found.ok
      ? await found.enricher.karpenterSubnets(entry.name, DESCRIBE_BUDGET_MS)
      : { ok: false as const, error: found.error };
    const cluster = scoped;
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

    const counted = read.subnets.filter((s): s is typeof s & { availableIps: number } => s.availableIps !== undefined);
    const histories = await headroom.histories(
      cluster,
      counted.map((s) => s.subnetId),
    );
    const unread = counted.filter((s) => histories.unread.has(s.subnetId)).map((s) => s.subnetId);
    if (unread.length > 0) {
      result.unreadHistories.push(...unread.map((subnet) => `${cluster}/${subnet}`));
      logger.warn('Subnet histories left unread by DynamoDB: judged on this count alone, kept as they were', {
        cluster,
        subnets: unread,
      });
    }
    const assessed = await Promise.all(
      counted.map(async (subnet) => {
        const sample = { t: now, free: subnet.availableIps };
        if (histories.unread.has(subnet.subnetId)) return assessSubnet(subnet, [sample], settings.thresholds);
        const samples = appendSample(histories.samples.get(subnet.subnetId) ?? [], sample);
        await headroom.saveHistory(cluster, subnet.subnetId, samples);
        return assessSubnet(subnet, samples, settings.thresholds);
      }),
    );
    recordSubnetMetrics(metrics, cluster, assessed);

    const judged = judgeCluster(entry.name, assessed, settings.thresholds, now, account);
    if (!judged.low) {
      const since = (await headroom.health(cluster))?.healthySince ?? now;
      healthySince.set(cluster, since);
      await headroom.saveHealth({ cluster, lastCheckAt: now, healthySince: since });
      continue;
    }
    stillLow.add(cluster);
    await headroom.saveHealth({ cluster, lastCheckAt: now });

    const { incident, severity } = judged;
    const [recorded] = await store.record([{ incident, severity }], `headroom:${cluster}:${run}`, now, settings.policy);
    const subnets = assessed.map((a) => a.facts).sort((a, b) => a.subnetId.localeCompare(b.subnetId));
    contexts.set(incident.findingId, { subnets, zones: zoneTotals(subnets), vpcs: read.vpcs, enrichmentErrors: [] });
    if (recorded && recorded.outcome.kind !== 'ongoing' && recorded.outcome.notify) {
      due.push({ state: recorded.state, notify: recorded.outcome.notify });
      result.notified.push(incident.findingId);
    }
  }

  const checked: HeadroomRun = { stillLow, healthySince };
  for (const state of await store.scanIncidents()) {
    const stored = needsStoredHealth(state, checked)
      ? (await headroom.health(clusterScopeOf(state)))?.healthySince
      : undefined;
    const holdBack = holdBackFromSweep(state, checked, stored, now, settings.policy);
    const step = sweepStep(state, now, settings.policy, holdBack);
    if (step.kind === 'finish') {
      due.push({ state, notify: state.pending! });
    } else if (step.kind !== 'keep' && (await store.putIfVersion(step.state, state.version))) {
      // A conditional write: of concurrent sweepers, only one resolves or takes over.
      due.push({ state: step.state, notify: step.state.pending! });
      (step.kind === 'resolve' ? result.resolved : result.finished).push(state.findingId);
    }
  }

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

function recordSubnetMetrics(metrics: Metrics, cluster: string, assessed: SubnetAssessment[]): void {
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
  warm.logger.addContext(context);
  const deps: HeadroomDeps = { ...warm, settings: headroomSettings() };
  try {
    return await checkHeadroom(event, context, deps);
  } finally {
    deps.metrics.publishStoredMetrics();
  }
}
