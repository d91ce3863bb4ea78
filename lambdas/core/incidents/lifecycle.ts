import { DEFAULT_WINDOWS } from '../../../contracts/defaults';
import type { EventCount, Evidence, Incident } from './aggregate';
import { MAX_EVENT_COUNTS, MAX_EVIDENCE } from './aggregate';
import { RULES, type RuleId } from '../recognise/rules';
import type { FindingStatus } from '../findings/finding';
import { SEVERITIES, type Entities, type EntityKind, type Severity } from '../model';

/**
 * The incident lifecycle (docs/architecture.md, The incident lifecycle): what the store keeps per finding
 * key, and the pure decision of what one batch does to it — notify as new, count as ongoing, re-notify, or
 * nothing because the batch was counted before. The DynamoDB adapter only loads, writes conditionally and
 * retries; every decision is made here.
 */

/** Why a notification goes out. */
export type NotifyReason = 'new' | 'reopened' | 'interval' | 'severity' | 'affected' | 'quiet' | 'resolved';

/** A notification that was decided but is not yet fully published. */
export interface PendingNotification {
  /** Increments with every notification of the incident; publish marks name it. */
  generation: number;
  /** The batch that decided it: only a retry of that batch completes it, so no two invocations race. */
  batchId: string;
  status: FindingStatus;
  reason: NotifyReason;
  snsDone: boolean;
  eventsDone: boolean;
  /** When a later delivery or the sweep took the unfinished notification over (epoch ms). */
  claimedAt?: number;
  /** For a resolution the cluster stated (reason `resolved`): what it says now (`Launched=True`). */
  said?: string;
  /** Related incidents this resolution closes with it (a headroom warning on the same subnets). */
  closes?: Array<{ findingId: string; rule: RuleId; openedAt: number }>;
}

/** What the store keeps for one finding key. */
export interface IncidentState {
  findingId: string;
  cluster: string;
  /** The cluster's account when it is not the deployment's own (`Incident.account`). */
  account?: string;
  rule: RuleId;
  keyValue?: string;
  status: 'open' | 'resolved';
  severity: Severity;
  /** Log time of the first and last line seen (ISO 8601). */
  firstSeen?: string;
  lastSeen?: string;
  /** Wall-clock epoch milliseconds the incident was opened and last counted. */
  openedAt: number;
  updatedAt: number;
  occurrences: number;
  entities: Entities;
  evidence: Evidence[];
  /** Distinct workloads of a per-workload incident, counted beyond the entity cap (the largest batch's). */
  workloadCount?: number;
  /** The values of the rule's affected-set entity (e.g. the subnets out of IPs) seen so far. */
  affected: string[];
  /** Batches already counted, newest last and bounded, so a retried or re-delivered batch counts once. */
  batches: string[];
  /**
   * The highest count counted of each recent Kubernetes event (`Incident.eventCounts`), most recently
   * counted last and at most MAX_EVENT_COUNTS: an event re-emitted in a later delivery adds only what
   * its count grew by. An event pushed out by newer ones counts in full if it comes back (as every
   * event did before counts were kept). Absent on items written before it existed.
   */
  eventCounts?: EventCount[];
  /** What the latest notification said. */
  notified?: { at: number; generation: number; severity: Severity; affected: string[] };
  pending?: PendingNotification;
  resolvedAt?: number;
  /** Optimistic-locking version; every write expects the version it read. */
  version: number;
  /** Epoch seconds after which the item counts as gone, whether or not TTL has deleted it yet. */
  expiresAt: number;
}

/** The windows of the lifecycle, in milliseconds. */
export interface LifecyclePolicy {
  /** An ongoing incident is notified again after this long. */
  renotifyAfterMs: number;
  /** No escalation notice within this long of the previous notification of the same incident. */
  suppressForMs: number;
  /** An incident not seen for this long is forgotten: the next line opens a new one. */
  retainForMs: number;
  /** An open incident quiet for this long is resolved by the sweep. */
  resolveAfterMs: number;
}

/** The configuration's default windows. */
export const DEFAULT_POLICY: LifecyclePolicy = {
  renotifyAfterMs: DEFAULT_WINDOWS.renotifyMinutes * 60_000,
  suppressForMs: DEFAULT_WINDOWS.suppressMinutes * 60_000,
  retainForMs: DEFAULT_WINDOWS.retentionDays * 24 * 60 * 60_000,
  resolveAfterMs: DEFAULT_WINDOWS.resolveMinutes * 60_000,
};

/**
 * An unfinished notification is taken over by a later delivery or the sweep once its owner has had
 * this long to finish it: longer than the function timeout, so no two invocations publish it at once.
 */
export const TAKEOVER_AFTER_MS = 2 * 60_000;

/** Batch ids kept per incident: far more than the retries and re-deliveries of one batch can span. */
export const MAX_BATCHES = 32;
const MAX_ENTITY_VALUES = 50;

/**
 * The entity whose growth is an escalation: a second subnet running dry is news even while the
 * incident is ongoing. Rules not listed escalate only by severity.
 */
export const escalationKindOf = (rule: RuleId): EntityKind | undefined => RULES[rule].escalatesOn;

export type Outcome =
  /** Counted; a notification is due (in `notify`). */
  | { kind: 'notify'; notify: PendingNotification }
  /** Counted; nothing to tell. */
  | { kind: 'ongoing' }
  /** This batch was counted before (a retry or a re-delivery); `notify` is its unfinished notification, if any. */
  | { kind: 'seen'; notify?: PendingNotification };

/** A notice to send: the incident as stored, and the notification it holds. */
export interface Due {
  state: IncidentState;
  notify: PendingNotification;
}

/**
 * The notices due after recording: every incident whose outcome holds a notification (a new one, or
 * the unfinished one of a batch seen before); an ongoing incident tells nothing.
 */
export function dueOf(recorded: ReadonlyArray<{ state: IncidentState; outcome: Outcome }>): Due[] {
  return recorded.flatMap(({ state, outcome }) =>
    outcome.kind !== 'ongoing' && outcome.notify ? [{ state, notify: outcome.notify }] : [],
  );
}

export interface Advance {
  state: IncidentState;
  outcome: Outcome;
  /** False when the state is unchanged and need not be written. */
  changed: boolean;
}

/** Applies one batch's incident to the stored state (undefined when none) at wall time `now`. */
export function advanceIncident(
  previous: IncidentState | undefined,
  batch: Incident,
  severity: Severity,
  batchId: string,
  now: number,
  policy: LifecyclePolicy,
): Advance {
  const live = previous !== undefined && isLive(previous, now) && previous.status === 'open';
  if (live && previous.batches.includes(batchId)) {
    const pending = previous.pending;
    const unfinished = pending && pending.batchId === batchId && !(pending.snsDone && pending.eventsDone);
    return { state: previous, outcome: { kind: 'seen', notify: unfinished ? pending : undefined }, changed: false };
  }

  // A resolved incident that is still kept remembers the counts of its events: an old copy of one
  // (an event exporter re-sending what it listed on restart) neither reopens it nor counts again.
  const remembered = previous !== undefined && isLive(previous, now) ? previous.eventCounts : undefined;
  const occurrences = batch.occurrences - countedBefore(remembered, batch.eventCounts);
  if (remembered && occurrences <= 0) {
    return { state: previous!, outcome: { kind: 'seen' }, changed: false };
  }
  const eventCounts = mergeEventCounts(remembered, batch.eventCounts);

  const expiresAt = Math.ceil((now + policy.retainForMs) / 1000);
  if (!live) {
    const reason: NotifyReason = previous && isLive(previous, now) ? 'reopened' : 'new';
    const fresh: IncidentState = {
      findingId: batch.findingId,
      cluster: batch.cluster,
      ...(batch.account ? { account: batch.account } : {}),
      rule: batch.rule,
      keyValue: batch.keyValue,
      status: 'open',
      severity,
      firstSeen: batch.firstSeen,
      lastSeen: batch.lastSeen,
      openedAt: now,
      updatedAt: now,
      occurrences,
      entities: batch.entities,
      evidence: batch.evidence,
      affected: affectedOf(batch.rule, batch.entities),
      ...(batch.workloadCount !== undefined ? { workloadCount: batch.workloadCount } : {}),
      batches: [batchId],
      ...(eventCounts ? { eventCounts } : {}),
      version: (previous?.version ?? 0) + 1,
      expiresAt,
    };
    return notifyWith(fresh, 'open', reason, batchId, now, previous?.notified?.generation ?? 0);
  }

  const entities = mergeEntities(previous.entities, batch.entities);
  const state: IncidentState = {
    ...previous,
    severity: worse(previous.severity, severity),
    firstSeen: earliest(previous.firstSeen, batch.firstSeen),
    lastSeen: latest(previous.lastSeen, batch.lastSeen),
    updatedAt: now,
    occurrences: previous.occurrences + occurrences,
    entities,
    evidence: mergeEvidence(batch.evidence, previous.evidence),
    affected: affectedOf(batch.rule, entities),
    ...(batch.workloadCount !== undefined || previous.workloadCount !== undefined
      ? {
          workloadCount: Math.max(
            previous.workloadCount ?? 0,
            batch.workloadCount ?? 0,
            entities.workloads?.length ?? 0,
          ),
        }
      : {}),
    batches: [...previous.batches, batchId].slice(-MAX_BATCHES),
    ...(eventCounts ? { eventCounts } : {}),
    version: previous.version + 1,
    expiresAt,
  };
  // A notification that never fully went out (SNS or EventBridge failed every attempt) is not
  // forgotten: this batch takes it over, as it was (the first, `open` notice stays `open`), and
  // finishes it. Until its owner has had time to finish, the batch only counts.
  const unfinished = unfinishedPending(previous);
  if (unfinished) {
    if (!staleFor(unfinished, previous, now)) return { state, outcome: { kind: 'ongoing' }, changed: true };
    const notify: PendingNotification = { ...unfinished, batchId, claimedAt: now };
    return { state: { ...state, pending: notify }, outcome: { kind: 'notify', notify }, changed: true };
  }
  const reason = renotifyReason(state, now, policy);
  if (!reason) return { state, outcome: { kind: 'ongoing' }, changed: true };
  return notifyWith(state, 'ongoing', reason, batchId, now, previous.notified?.generation ?? 0);
}

/** Who is sweeping: resolved notices carry this batch id, so only the sweep finishes them. */
export const SWEEP_BATCH = 'sweep';

/** What the sweep does with one stored incident. */
export type SweepAction = 'resolve' | 'finish' | 'keep';

/**
 * The sweep's decision: an open incident quiet for the resolve window is resolved (once: the write
 * is conditional); a resolved notice whose publishing failed is finished; everything else is kept.
 * `stillFailing` holds back incidents whose cause a live check still sees (or could not check).
 */
export function sweepAction(
  state: IncidentState,
  now: number,
  policy: LifecyclePolicy,
  stillFailing = false,
): SweepAction {
  if (!isLive(state, now)) return 'keep';
  const pending = state.pending;
  if (state.status === 'resolved') {
    return pending?.status === 'resolved' && !(pending.snsDone && pending.eventsDone) ? 'finish' : 'keep';
  }
  // An open incident whose notice never went out, and no delivery has come to finish it.
  const unfinished = unfinishedPending(state);
  if (unfinished && staleFor(unfinished, state, now)) return 'finish';
  if (stillFailing) return 'keep';
  return now - state.updatedAt >= policy.resolveAfterMs ? 'resolve' : 'keep';
}

/** The sweep's claim on an unfinished notification of an open incident, to write conditionally. */
export function takeOverPending(state: IncidentState, now: number): Advance | undefined {
  const unfinished = unfinishedPending(state);
  if (!unfinished) return undefined;
  const notify: PendingNotification = { ...unfinished, batchId: SWEEP_BATCH, claimedAt: now };
  return {
    state: { ...state, pending: notify, version: state.version + 1 },
    outcome: { kind: 'notify', notify },
    changed: true,
  };
}

/**
 * The resolved state of an incident, with the resolved notice pending: `quiet` after the resolve
 * window, or `resolved` with what the cluster says now when its own state shows the recovery.
 */
export function resolveIncident(state: IncidentState, now: number, said?: string): Advance {
  const generation = (state.notified?.generation ?? 0) + 1;
  const notify: PendingNotification = {
    generation,
    batchId: SWEEP_BATCH,
    status: 'resolved',
    reason: said === undefined ? 'quiet' : 'resolved',
    snsDone: false,
    eventsDone: false,
    ...(said === undefined ? {} : { said }),
  };
  return {
    state: {
      ...state,
      status: 'resolved',
      resolvedAt: now,
      notified: { at: now, generation, severity: state.severity, affected: state.affected },
      pending: notify,
      version: state.version + 1,
    },
    outcome: { kind: 'notify', notify },
    changed: true,
  };
}

/**
 * One step of the sweep for a stored incident: keep it; take over its unfinished first notice or
 * resolve it (each a new state to write conditionally on the stored version, then send its pending
 * notice); or finish the resolved notice it already holds (send it as it is).
 */
export type SweepStep =
  | { kind: 'keep' }
  | { kind: 'take-over'; state: IncidentState }
  | { kind: 'resolve'; state: IncidentState }
  | { kind: 'finish' };

/** The sweep's step for one incident (`sweepAction`, with the state it leads to). */
export function sweepStep(state: IncidentState, now: number, policy: LifecyclePolicy, holdBack: boolean): SweepStep {
  const action = sweepAction(state, now, policy, holdBack);
  if (action === 'finish' && state.status === 'open') {
    // A first notice that failed every attempt, and no delivery came to finish it: the sweep takes it
    // over and sends it as it was decided.
    const taken = takeOverPending(state, now);
    return taken ? { kind: 'take-over', state: taken.state } : { kind: 'keep' };
  }
  if (action === 'finish' && state.pending) return { kind: 'finish' };
  if (action === 'resolve') return { kind: 'resolve', state: resolveIncident(state, now).state };
  return { kind: 'keep' };
}

/**
 * The sweep's reminder of an open incident that it holds open while no line comes (a subnet still out
 * of IPs): due once the re-notify interval has passed since the last notice, as a batch would be.
 */
export function sweepReminder(state: IncidentState, now: number, policy: LifecyclePolicy): IncidentState | undefined {
  if (state.status !== 'open' || unfinishedPending(state) || !state.notified) return undefined;
  if (now - state.notified.at < policy.renotifyAfterMs) return undefined;
  const advanced = notifyWith(state, 'ongoing', 'interval', SWEEP_BATCH, now, state.notified.generation);
  return { ...advanced.state, version: state.version + 1 };
}

/** The incident as the aggregator would have produced it, from what the store accumulated. */
export function incidentOf(state: IncidentState): Incident {
  return {
    findingId: state.findingId,
    cluster: state.cluster,
    ...(state.account ? { account: state.account } : {}),
    rule: state.rule,
    keyValue: state.keyValue,
    firstSeen: state.firstSeen,
    lastSeen: state.lastSeen,
    occurrences: state.occurrences,
    entities: state.entities,
    evidence: state.evidence,
  };
}

/** An item past its expiry counts as absent, whether or not TTL has deleted it yet. */
export const isLive = (state: IncidentState, now: number): boolean => state.expiresAt * 1000 > now;

function unfinishedPending(state: IncidentState): PendingNotification | undefined {
  const pending = state.pending;
  return pending && !(pending.snsDone && pending.eventsDone) ? pending : undefined;
}

/** True when the owner of `pending` has had time to finish it (since it was decided or last taken over). */
function staleFor(pending: PendingNotification, state: IncidentState, now: number): boolean {
  const since = pending.claimedAt ?? state.notified?.at ?? state.updatedAt;
  return now - since >= TAKEOVER_AFTER_MS;
}

function renotifyReason(state: IncidentState, now: number, policy: LifecyclePolicy): NotifyReason | undefined {
  const last = state.notified;
  if (!last) return 'new';
  const since = now - last.at;
  if (since >= policy.renotifyAfterMs) return 'interval';
  if (since < policy.suppressForMs) return undefined;
  if (SEVERITIES.indexOf(state.severity) < SEVERITIES.indexOf(last.severity)) return 'severity';
  const told = new Set(last.affected);
  if (state.affected.some((value) => !told.has(value))) return 'affected';
  return undefined;
}

function notifyWith(
  state: IncidentState,
  status: PendingNotification['status'],
  reason: NotifyReason,
  batchId: string,
  now: number,
  lastGeneration: number,
): Advance {
  const generation = lastGeneration + 1;
  const notify: PendingNotification = { generation, batchId, status, reason, snsDone: false, eventsDone: false };
  return {
    state: {
      ...state,
      notified: { at: now, generation, severity: state.severity, affected: state.affected },
      pending: notify,
    },
    outcome: { kind: 'notify', notify },
    changed: true,
  };
}

/**
 * What a batch's events add up to that was counted before: each event's count in the batch as far
 * as the store already counted it (the batch counted each event by its highest count, from 0).
 */
function countedBefore(stored: EventCount[] | undefined, batch: EventCount[] | undefined): number {
  if (!stored?.length || !batch?.length) return 0;
  const known = new Map(stored);
  let counted = 0;
  for (const [key, count] of batch) counted += Math.min(count, known.get(key) ?? 0);
  return counted;
}

/** The stored counts raised by the batch's, the batch's events moved to the newest end, bounded. */
function mergeEventCounts(stored: EventCount[] | undefined, batch: EventCount[] | undefined): EventCount[] | undefined {
  if (!batch?.length) return stored;
  const merged = new Map(stored ?? []);
  for (const [key, count] of batch) {
    const highest = Math.max(count, merged.get(key) ?? 0);
    merged.delete(key);
    merged.set(key, highest);
  }
  return [...merged].slice(-MAX_EVENT_COUNTS);
}

function affectedOf(rule: RuleId, entities: Entities): string[] {
  const kind = escalationKindOf(rule);
  return kind ? [...(entities[kind] ?? [])] : [];
}

function mergeEntities(a: Entities, b: Entities): Entities {
  const merged: Entities = { ...a };
  for (const [kind, values] of Object.entries(b) as Array<[EntityKind, string[]]>) {
    const set = new Set(merged[kind] ?? []);
    for (const value of values) if (set.size < MAX_ENTITY_VALUES) set.add(value);
    merged[kind] = [...set].sort();
  }
  return merged;
}

/** Newest evidence first, distinct messages, at most MAX_EVIDENCE. */
function mergeEvidence(newer: Evidence[], older: Evidence[]): Evidence[] {
  const seen = new Set<string>();
  const merged: Evidence[] = [];
  for (const evidence of [...newer, ...older]) {
    if (merged.length === MAX_EVIDENCE) break;
    if (seen.has(evidence.message)) continue;
    seen.add(evidence.message);
    merged.push(evidence);
  }
  return merged;
}

const worse = (a: Severity, b: Severity): Severity => (SEVERITIES.indexOf(a) <= SEVERITIES.indexOf(b) ? a : b);
const earliest = (a?: string, b?: string): string | undefined => (a && b ? (a < b ? a : b) : (a ?? b));
const latest = (a?: string, b?: string): string | undefined => (a && b ? (a > b ? a : b) : (a ?? b));
