import type { FindingContext } from '../core/context';
import { errorMessage } from '../core/decode';
import { findingEventOf, type ArnScope } from '../core/events';
import { buildFinding, type Finding } from '../core/finding';
import { incidentOf, type IncidentState, type PendingNotification } from '../core/lifecycle';
import { snsNotificationOf } from '../core/render-notification';
import { needsEnrichment, type Enricher } from './enrich';
import type { IncidentStore } from './incident-store';
import type { Publisher } from './publish';

/** An incident whose notification is due (or unfinished), as the store returned it. */
export interface Due {
  state: IncidentState;
  notify: PendingNotification;
}

export interface NotifierOptions {
  eventSource: string;
  /** Partition, region and account of the function, for resource ARNs and the finding. */
  scope?: ArnScope;
  /** The AWS account of the logs (the subscription payload's `owner`). @default scope.account */
  account?: string;
}

/** A channel of one notification that could not be published. */
export interface PublishFailure {
  findingId: string;
  channel: 'sns' | 'events';
  error: string;
}

export interface NotifyOutcome {
  findings: Finding[];
  /** What could not be published; the caller fails the invocation so that a retry finishes it. */
  failures: PublishFailure[];
}

/**
 * Turns due notifications into published ones (DESIGN §3 steps 6–8): live context for the findings
 * that need it, the finding document, one SNS publish and one EventBridge entry each — skipping the
 * channels a previous attempt already published, and marking each channel in the store as it goes out.
 */
export class Notifier {
  constructor(
    private readonly store: IncidentStore,
    private readonly enricher: Enricher,
    private readonly publisher: Publisher,
    private readonly options: NotifierOptions,
  ) {}

  /**
   * Publishes what each due notification still lacks. `contexts` supplies the live context of
   * findings whose caller already has it (the headroom check); the rest are enriched within `budgetMs`.
   */
  async notify(
    due: Due[],
    budgetMs: number,
    contexts: Map<string, FindingContext> = new Map(),
  ): Promise<NotifyOutcome> {
    if (due.length === 0) return { findings: [], failures: [] };
    const toEnrich = due.filter(
      ({ state, notify }) =>
        notify.status !== 'resolved' && !contexts.has(state.findingId) && needsEnrichment(state.rule),
    );
    const enriched = toEnrich.length
      ? await this.enricher.enrich(
          toEnrich.map(({ state }) => ({
            findingId: state.findingId,
            rule: state.rule,
            cluster: state.cluster,
            entities: state.entities,
          })),
          budgetMs,
        )
      : new Map<string, FindingContext>();

    const built = due.map(({ state, notify }) => ({
      notify,
      finding: buildFinding(incidentOf(state), {
        status: notify.status,
        severity: state.severity,
        account: this.options.account ?? this.options.scope?.account,
        region: this.options.scope?.region,
        context: contexts.get(state.findingId) ?? enriched.get(state.findingId),
        occurrences: state.occurrences,
        firstSeen: state.firstSeen,
      }),
    }));

    const failures: PublishFailure[] = [];
    await Promise.all(
      built
        .filter(({ notify }) => !notify.snsDone)
        .map(async ({ finding, notify }) => {
          try {
            await this.publisher.publishNotification(snsNotificationOf(finding));
          } catch (error) {
            failures.push({ findingId: finding.findingId, channel: 'sns', error: errorMessage(error) });
            return;
          }
          await this.store.markPublished(finding.findingId, notify.generation, 'sns');
        }),
    );

    const pendingEvents = built.filter(({ notify }) => !notify.eventsDone);
    const outcome = await this.publisher.putEvents(
      pendingEvents.map(({ finding }) => findingEventOf(finding, this.options.eventSource, this.options.scope)),
    );
    const generationOf = new Map(pendingEvents.map(({ finding, notify }) => [finding.findingId, notify.generation]));
    await Promise.all(
      outcome.put.map((findingId) => this.store.markPublished(findingId, generationOf.get(findingId)!, 'events')),
    );
    for (const failed of outcome.failed)
      failures.push({ findingId: failed.findingId, channel: 'events', error: failed.error });
    return { findings: built.map((b) => b.finding), failures };
  }
}
