import { accountEnrichers, type AccountEnrichers, type FindingEnricher } from '../adapters/accounts';
import type { Enricher } from '../adapters/enrich';
import type { IncidentStore } from '../adapters/incident-store';
import { Notifier, type NotifierOptions } from '../adapters/notifier';
import { Publisher } from '../adapters/publish';
import { clusterSettingsOf } from '../core/decode/cluster';
import type { FunctionDeps } from '../shared/invocation';
import type { AnalyzerSettings } from '../shared/settings';

/**
 * How the handlers build the adapters they share from their settings and clients: one place, so that
 * the analyzer, the headroom check and the remediator publish and enrich the same way.
 */

/** The publisher to the function's findings topic and event bus. */
export function publisherOf(deps: FunctionDeps<Pick<AnalyzerSettings, 'topicArn' | 'eventBusName'>>): Publisher {
  return new Publisher(deps.clients.sns, deps.clients.events, {
    topicArn: deps.settings.topicArn,
    eventBusName: deps.settings.eventBusName,
    sleep: deps.sleep,
  });
}

/**
 * The enrichment of every account: the function's own clients for its home account (or `home`, when
 * given), the spoke's read-only role for the others, one cache per account.
 */
export function enrichersOf(
  deps: FunctionDeps<Pick<AnalyzerSettings, 'clusters'>>,
  home?: Enricher,
): AccountEnrichers<Enricher> {
  return accountEnrichers(deps.clients, {
    clusterSettings: (cluster, account) => clusterSettingsOf(deps.settings.clusters, cluster, account),
    now: deps.now,
    ...(home ? { home } : {}),
  });
}

/** The notifier of one invocation: the incident store, the enrichment and the publisher, within the delivery limits. */
export function notifierOf(
  deps: FunctionDeps<AnalyzerSettings>,
  store: IncidentStore,
  enricher: FindingEnricher,
  where: Pick<NotifierOptions, 'scope' | 'account'>,
): Notifier {
  return new Notifier(store, enricher, publisherOf(deps), {
    eventSource: deps.settings.eventSource,
    ...where,
    maxNoticesPerCluster: deps.settings.limits.maxNoticesPerCluster,
    maxNoticesPerHour: deps.settings.limits.maxNoticesPerHour,
    now: deps.now,
    concurrency: deps.settings.limits.concurrency,
  });
}
