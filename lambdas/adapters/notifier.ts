import { clusterScopeOf } from '../core/decode/account';
import { digestNotificationOf } from '../core/notice/digest-text';
import type { FindingContext } from '../core/findings/context';
import { errorMessage } from '../core/common/error-message';
import {
  buildDigest,
  DEFAULT_LIMITS,
  planNotices,
  type DigestMember,
  type NoticeCandidate,
} from '../core/incidents/digest';
import { planWindow, splitAnnounced, windowStartOf, type WindowPlan } from '../core/incidents/notice-window';
import { findingEventOf, type ArnScope } from '../core/findings/bus-entries';
import { buildFinding, type Finding } from '../core/findings/finding';
import { incidentOf, type Due, type IncidentState, type PendingNotification } from '../core/incidents/lifecycle';
import { snsNotificationOf } from '../core/findings/render-notification';
import { noticeOfDue, relatedWarningText } from '../core/notice/kind';
import { EXHAUSTION_RULE, followedWarning, headroomIdOf } from '../core/headroom/related';
import { mapLimit } from '../shared/concurrency';
import type { FindingEnricher } from './accounts';
import { needsEnrichment, rereadsAtResolution } from './enrich';
import type { Channel, IncidentStore } from './incident-store';
import type { Publisher } from './publish';

/** An incident whose notification is due (or unfinished), as the store returned it. */
export interface NotifierOptions {
  eventSource: string;
  /** Partition, region and account of the function, for resource ARNs and the finding. */
  scope?: ArnScope;
  /** The AWS account of the logs (the subscription payload's `owner`). @default scope.account */
  account?: string;
  /** Notices of their own per cluster per call; the rest go into one digest per cluster. @default 5 */
  maxNoticesPerCluster?: number;
  /** SNS publishes and DynamoDB writes in flight at the same time. @default 8 */
  concurrency?: number;
  /** Notices per cluster per hour, digests included (core/notice-window.ts). @default 12 */
  maxNoticesPerHour?: number;
  /** The clock of the notice windows. @default Date.now */
  now?: () => number;
}

/** A channel of one notification that could not be published. */
export interface PublishFailure {
  findingId: string;
  channel: Channel;
  error: string;
}

export interface NotifyOutcome {
  /** Every finding told, on its own or in a digest. */
  findings: Finding[];
  /** Findings sent as notices of their own (the rest are in `digests`). */
  notices: number;
  /** Digest notices published (one per cluster at most). */
  digests: number;
  /** What could not be published; the caller fails the invocation so that a retry finishes it. */
  failures: PublishFailure[];
}

/** Incidents of the delivery beyond its limit: told in the digest of their cluster, never stored. */
export interface Untracked {
  members: DigestMember[];
  /** The log group of the delivery, for the digest's "see everything" command. */
  logGroup?: string;
}

/**
 * Turns due notifications into published ones (docs/architecture.md, One delivery, steps 6–8): per cluster
 * the most severe few as notices of their own, with live context; everything else in one digest per cluster;
 * one EventBridge entry per finding — skipping channels a previous attempt already published, and marking
 * each finding's channels in the store in one write once they went out. Every AWS call runs with bounded
 * concurrency, so one delivery's calls are bounded whatever it holds.
 */
export class Notifier {
  constructor(
    private readonly store: IncidentStore,
    private readonly enricher: FindingEnricher,
    private readonly publisher: Publisher,
    private readonly options: NotifierOptions,
  ) {}

  /**
   * Publishes what each due notification still lacks. `contexts` supplies the live context of
   * findings whose caller already has it (the headroom check); the notices of their own are enriched
   * within `budgetMs`.
   */
  async notify(
    due: Due[],
    budgetMs: number,
    contexts: Map<string, FindingContext> = new Map(),
    untracked: Untracked = { members: [] },
  ): Promise<NotifyOutcome> {
    const outcome: NotifyOutcome = { findings: [], notices: 0, digests: 0, failures: [] };
    if (due.length === 0 && untracked.members.length === 0) return outcome;
    const limit = this.options.concurrency ?? DEFAULT_LIMITS.concurrency;
    const candidates = due.map((d) => ({
      ...d,
      findingId: d.state.findingId,
      cluster: d.state.cluster,
      account: d.state.account,
      severity: d.state.severity,
      status: d.notify.status,
    }));
    const windows = await this.windowsOf(candidates, untracked.members, limit);
    const plan = planNotices(candidates, (scope) => windows.get(scope)?.plan.individual ?? 0);

    const toEnrich = plan.individual.filter(
      ({ state, notify }) =>
        !notify.snsDone &&
        !contexts.has(state.findingId) &&
        (notify.status === 'resolved' ? rereadsAtResolution(state.rule) : needsEnrichment(state.rule)),
    );
    const enriched = toEnrich.length
      ? await this.enricher.enrich(
          toEnrich.map(({ state }) => ({
            findingId: state.findingId,
            rule: state.rule,
            cluster: state.cluster,
            ...(state.account ? { account: state.account } : {}),
            entities: state.entities,
          })),
          budgetMs,
          this.options.scope,
        )
      : new Map<string, FindingContext>();

    const account = this.options.account ?? this.options.scope?.account;
    const region = this.options.scope?.region;
    const build = ({ state, notify }: Due): Built => ({
      notify,
      state,
      done: new Set<Channel>(),
      finding: buildFinding(incidentOf(state), {
        status: notify.status,
        severity: state.severity,
        account,
        region,
        context: contexts.get(state.findingId) ?? enriched.get(state.findingId),
        occurrences: state.occurrences,
        firstSeen: state.firstSeen,
      }),
    });
    const follows = await this.followedWarnings(plan.individual, limit);
    const individual = plan.individual.map((d) => ({ ...build(d), follows: follows.get(d.state.findingId) }));
    const digested = plan.digested.map(build);
    const all = [...individual, ...digested];

    await mapLimit(
      individual.filter((b) => !b.notify.snsDone),
      limit,
      async (built) => {
        try {
          await this.publisher.publishNotification(snsNotificationOf(built.finding, noticeOf(built)));
          built.done.add('sns');
          outcome.notices++;
          windows.get(clusterScopeOf(built.state))!.notices++;
        } catch (error) {
          outcome.failures.push({ findingId: built.finding.findingId, channel: 'sns', error: errorMessage(error) });
        }
      },
    );

    // One digest per cluster of one account: `prod` of two accounts gets two.
    const scopes = new Map<string, { cluster: string; account?: string }>();
    for (const item of [...digested.map((b) => b.state), ...untracked.members])
      scopes.set(clusterScopeOf(item), { cluster: item.cluster, account: item.account });
    await mapLimit([...scopes], limit, async ([scope, { cluster, account: clusterAccount }]) => {
      const window = windows.get(scope)!;
      // Past the window's budget the rest waits: digested incidents stay due, untracked ones unannounced.
      if (!window.plan.digest) return;
      const members = digested.filter((b) => clusterScopeOf(b.state) === scope && !b.notify.snsDone);
      const extra = window.fresh;
      if (members.length === 0 && extra.length === 0) return;
      const digest = buildDigest(
        cluster,
        [
          ...members.map(({ state, notify }) => ({
            findingId: state.findingId,
            cluster: state.cluster,
            ...(state.account ? { account: state.account } : {}),
            rule: state.rule,
            severity: state.severity,
            status: notify.status,
            keyValue: state.keyValue,
            occurrences: state.occurrences,
            workloads: state.entities.workloads ?? [],
            workloadCount: state.workloadCount,
          })),
          ...extra,
        ],
        {
          account: clusterAccount ?? account,
          region,
          logGroup: untracked.logGroup,
          ...startOf(members.map((m) => m.state.firstSeen)),
        },
      );
      try {
        await this.publisher.publishNotification(digestNotificationOf(digest));
        for (const built of members) built.done.add('sns');
        outcome.digests++;
        window.notices++;
        window.announced = extra.map((m) => m.findingId);
      } catch (error) {
        for (const built of members)
          outcome.failures.push({ findingId: built.finding.findingId, channel: 'sns', error: errorMessage(error) });
        if (members.length === 0)
          outcome.failures.push({ findingId: `digest:${scope}`, channel: 'sns', error: errorMessage(error) });
      }
    });

    const pendingEvents = all.filter((b) => !b.notify.eventsDone);
    const put = await this.publisher.putEvents(
      pendingEvents.map((built) =>
        findingEventOf(built.finding, this.options.eventSource, this.options.scope, noticeOf(built)),
      ),
    );
    const byId = new Map(all.map((b) => [b.finding.findingId, b]));
    for (const findingId of put.put) byId.get(findingId)?.done.add('events');
    for (const failed of put.failed)
      outcome.failures.push({ findingId: failed.findingId, channel: 'events', error: failed.error });

    await mapLimit(
      all.filter((b) => b.done.size > 0),
      limit,
      (b) => this.store.markPublished(b.state.findingId, b.notify.generation, [...b.done]),
    );
    // Recorded after publishing: a failed write costs a notice again, never a notice lost.
    await mapLimit([...windows], limit, ([scope, w]) =>
      this.store.addToNoticeWindow(scope, w.start, {
        notices: w.notices,
        announced: w.announced,
        counted: w.repeat.reduce((sum, m) => sum + m.occurrences, 0),
      }),
    );
    outcome.findings = all.map((b) => b.finding);
    return outcome;
  }

  /**
   * The open headroom warning each first exhaustion notice follows, read from the store (one read per
   * such notice, which is rare), as the line that links it.
   */
  private async followedWarnings(due: readonly Due[], limit: number): Promise<Map<string, string>> {
    const first = due.filter(
      ({ state, notify }) =>
        state.rule === EXHAUSTION_RULE &&
        notify.status === 'open' &&
        (notify.reason === 'new' || notify.reason === 'reopened'),
    );
    const lines = new Map<string, string>();
    const now = (this.options.now ?? Date.now)();
    await mapLimit(first, limit, async ({ state }) => {
      const warning = followedWarning(state, await this.store.get(headroomIdOf(state.cluster, state.account)), now);
      if (warning) lines.set(state.findingId, relatedWarningText(warning));
    });
    return lines;
  }

  /** Each cluster's notice window and what this delivery may send in it. */
  private async windowsOf(
    candidates: readonly NoticeCandidate[],
    untracked: readonly DigestMember[],
    limit: number,
  ): Promise<Map<string, WindowUse>> {
    const start = windowStartOf((this.options.now ?? Date.now)());
    const scopes = new Set([...candidates, ...untracked].map((item) => clusterScopeOf(item)));
    const windows = new Map<string, WindowUse>();
    await mapLimit([...scopes], limit, async (scope) => {
      const window = await this.store.noticeWindow(scope, start);
      const { fresh, repeat } = splitAnnounced(
        untracked.filter((m) => clusterScopeOf(m) === scope),
        window,
      );
      const plan = planWindow(candidates.filter((c) => clusterScopeOf(c) === scope).length, fresh.length, window, {
        maxPerDelivery: this.options.maxNoticesPerCluster ?? DEFAULT_LIMITS.maxNoticesPerCluster,
        maxPerHour: this.options.maxNoticesPerHour ?? DEFAULT_LIMITS.maxNoticesPerHour,
      });
      windows.set(scope, { start, plan, fresh, repeat, notices: 0, announced: [] });
    });
    return windows;
  }
}

/** One cluster's window during a delivery: its plan, and what went out. */
interface WindowUse {
  start: number;
  plan: WindowPlan;
  fresh: DigestMember[];
  repeat: DigestMember[];
  notices: number;
  announced: string[];
}

interface Built {
  state: IncidentState;
  notify: PendingNotification;
  finding: Finding;
  /** The related warning a first notice follows, in words. */
  follows?: string;
  /** Channels that went out in this call. */
  done: Set<Channel>;
}

const noticeOf = (built: { state: IncidentState; notify: PendingNotification; follows?: string }) => {
  const notice = noticeOfDue(built.state, built.notify);
  return built.follows ? { ...notice, follows: built.follows } : notice;
};

/** `--start-time` of the digest's command: a minute before the earliest first-seen line. */
function startOf(firstSeen: Array<string | undefined>): { startTime?: number } {
  const times = firstSeen.map((t) => (t ? Date.parse(t) : NaN)).filter(Number.isFinite);
  return times.length ? { startTime: Math.min(...times) - 60_000 } : {};
}
