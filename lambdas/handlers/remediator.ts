import { MetricUnit } from '@aws-lambda-powertools/metrics';
import type { Context, EventBridgeEvent } from 'aws-lambda';
import { REMEDIATION_ROLE_NAME } from '../../contracts/organization';
import { AccountAccess } from '../adapters/accounts';
import { IncidentStore } from '../adapters/incident-store';
import { Remediator } from '../adapters/remediator';
import { clusterScopeOf, keyAccountOf } from '../core/decode/account';
import { errorMessage } from '../core/common/error-message';
import { remediationEventOf, resourceArnsOf, scopeOfArn } from '../core/findings/bus-entries';
import { readFindingEvent } from '../core/findings/finding-event';
import { buildFinding } from '../core/findings/finding';
import { incidentOf } from '../core/incidents/lifecycle';
import { admitFinding, remediationNotificationOf, type RemediationReport } from '../core/plans/remediation-plan';
import { lazyAwsClients } from '../shared/aws-clients';
import { METRIC } from '../../contracts/names';
import { PublishError, type FunctionDeps, type InvocationContext } from '../shared/invocation';
import { observability, observeInvocation, recordCounts } from '../shared/observability';
import { remediatorSettings, type RemediatorSettings } from '../shared/settings';
import { clusterSettingsOf } from '../core/decode/cluster';
import { publisherOf } from './wiring';

export type RemediatorDeps = FunctionDeps<RemediatorSettings>;

export interface RemediatorResult {
  /** `ignored`: not a finding event; `refused`: a finding event that may not lead to any action. */
  outcome: 'ignored' | 'refused' | 'done';
  reason?: string;
  reports: RemediationReport[];
}

/** How long a claimed report publication is held against concurrent duplicates. */
const REPORT_LEASE_MS = 2 * 60_000;

/**
 * An EventBridge `Karpenter Finding` event in; for each action the incident's rule maps to and the
 * configuration turns on, a plan or a guarded change out, each told once as a `Karpenter Remediation`
 * event and an SNS notice. The event only names a finding id: the incident is reloaded from the
 * stack's own table and every target comes from configuration and live AWS state, so a forged event
 * changes nothing and is refused (counted and logged). Anything else — its own remediation events,
 * other sources, malformed details — is ignored and counted.
 */
export async function remediate(
  event: unknown,
  context: InvocationContext,
  deps: RemediatorDeps,
): Promise<RemediatorResult> {
  const { settings, logger, metrics } = deps;
  const ignore = (reason: string): RemediatorResult => {
    logger.info('Event ignored', { reason });
    metrics.addMetric(METRIC.ignoredEvents, MetricUnit.Count, 1);
    return { outcome: 'ignored', reason, reports: [] };
  };
  const refuse = (reason: string, details: Record<string, string> = {}): RemediatorResult => {
    logger.warn('Finding event refused; nothing was changed', { reason, ...details });
    metrics.addMetric(METRIC.refusedEvents, MetricUnit.Count, 1);
    return { outcome: 'refused', reason, reports: [] };
  };
  const read = readFindingEvent(event, settings.eventSource);
  if (!read.ok) return ignore(read.reason);
  const { findingId, claimed } = read;
  logger.appendKeys({ findingId });

  const store = new IncidentStore(deps.clients.dynamo, settings.tableName);
  const scope = scopeOfArn(context.invokedFunctionArn);
  const state = await store.get(findingId);
  const admission = admitFinding({
    claimed,
    own: scope,
    incident: state,
    configuredClusters: settings.clusters.map((c) =>
      clusterScopeOf({ cluster: c.name, account: keyAccountOf(c.account, scope?.account) }),
    ),
    now: deps.now(),
  });
  if (!admission.admitted || !state || !scope) {
    return refuse(admission.admitted ? 'unreachable' : admission.reason, { claimedCluster: String(claimed.cluster) });
  }
  logger.appendKeys({ cluster: state.cluster, rule: state.rule, ...(state.account ? { account: state.account } : {}) });
  // A cluster of another account is changed through that account's remediation role, or not at all.
  const access = await new AccountAccess(deps.clients, {
    sts: deps.clients.sts,
    roleName: REMEDIATION_ROLE_NAME,
    now: deps.now,
  }).clientsFor(state.account, scope);
  if (!access.ok) {
    return refuse(`the remediation role of account ${state.account} cannot be assumed (${access.error.message})`);
  }
  // The finding as this stack recorded it, in the cluster's account and this region: nothing from the event.
  const finding = buildFinding(incidentOf(state), {
    status: 'open',
    severity: state.severity,
    account: scope.account,
    region: scope.region,
    occurrences: state.occurrences,
    firstSeen: state.firstSeen,
  });

  const remediator = new Remediator(
    access.clients,
    store,
    settings.remediation,
    (cluster) => clusterSettingsOf(settings.clusters, cluster, state.account),
    deps.now,
    state.account,
  );
  const results = await remediator.run(finding, admission.actions);
  const publisher = publisherOf(deps);

  const failures: string[] = [];
  for (const { key, report } of results) {
    // Claimed before publishing, like notices: a concurrent duplicate of this event publishes nothing.
    if (!(await store.claimReportPublication(key, deps.now(), REPORT_LEASE_MS))) continue;
    try {
      await publisher.publishNotification(remediationNotificationOf(report));
      const put = await publisher.putEvents([
        remediationEventOf(report, settings.eventSource, resourceArnsOf(finding, scope)),
      ]);
      if (put.failed.length > 0) throw new Error(`PutEvents: ${put.failed[0]!.error}`);
      await store.saveOnceReport(key, report, true);
    } catch (error) {
      failures.push(`${report.action}: ${errorMessage(error)}`);
      await store.releaseReportPublication(key).catch(() => undefined);
      continue;
    }
    recordCounts(metrics, { action: report.action, outcome: report.outcome }, { [METRIC.remediations]: 1 });
    logger.info('Remediation reported', {
      action: report.action,
      mode: report.mode,
      outcome: report.outcome,
      summary: report.summary,
    });
  }
  if (failures.length > 0) {
    metrics.addMetric(METRIC.publishFailures, MetricUnit.Count, failures.length);
    throw new PublishError(
      `could not publish ${failures.length} remediation report(s); the retry publishes them: ${failures.join('; ')}`,
    );
  }
  return { outcome: 'done', reports: results.map((r) => r.report) };
}

let warm: Omit<RemediatorDeps, 'settings'> | undefined;

/**
 * The Lambda entry point, the target of the EventBridge rule on `Karpenter Finding` events. Its
 * detail is validated as `unknown`: the remediator trusts nothing in the event.
 */
export async function handler(event: EventBridgeEvent<string, unknown>, context: Context): Promise<RemediatorResult> {
  if (!warm) {
    const { logger, metrics } = observability('remediator');
    warm = { clients: lazyAwsClients(), logger, metrics, now: Date.now };
  }
  const environment = warm;
  return observeInvocation(environment, context, () =>
    remediate(event, context, { ...environment, settings: remediatorSettings() }),
  );
}
