import { hash } from 'node:crypto';
import { type Keying, keyingOf, keyValueOf } from './incident-key';
import { severityOf, type RuleId } from '../recognise/rules';
import type { Entities, EntityKind, LogRecord, Severity, Signal } from '../model';
import { sanitizeLine } from '../common/sanitize';
import { isoOf } from '../common/timestamp';

/** Evidence lines kept per incident. */
export const MAX_EVIDENCE = 3;
/** Characters kept of one evidence message. */
export const MAX_EVIDENCE_CHARS = 1000;
/** Values kept per entity kind across an incident. */
const MAX_ENTITY_VALUES = 50;
/**
 * Kubernetes events whose highest count an incident carries (the most recently counted ones), so
 * that a later delivery holding the same event at a higher count adds only the difference. Each
 * is about 30 bytes in the incident item: 256 keep it under 8 KB, far from DynamoDB's 400 KB.
 */
export const MAX_EVENT_COUNTS = 256;
/**
 * Within one analysis, events whose highest count an incident remembers, and distinct workloads it
 * counts: more than a 1 MB delivery can hold (so a delivery is counted exactly), a bound for a
 * gigabyte log read by the CLI. An event forgotten and seen again counts in full, as one pushed out
 * of `eventCounts` does across deliveries; the workload count stops growing at the bound.
 */
export const MAX_REMEMBERED = 10_000;

/** One log line that shows an incident, as stored in a finding. */
export interface Evidence {
  timestamp?: string;
  logGroup?: string;
  logStream?: string;
  eventId?: string;
  file?: string;
  line?: number;
  /** Sanitised and truncated log text. */
  message: string;
}

/** Signals of one batch grouped by incident key, before any state or enrichment. */
export interface Incident {
  /** Stable id: hash of cluster, rule and key entity. */
  findingId: string;
  cluster: string;
  /**
   * The AWS account of the cluster when it is not the deployment's own (a cluster of another account
   * of the organisation); undefined for the home account and for local analysis.
   */
  account?: string;
  rule: RuleId;
  /** Value of the rule's key entity that separates this incident; undefined when cluster-wide. */
  keyValue?: string;
  firstSeen?: string;
  lastSeen?: string;
  occurrences: number;
  entities: Entities;
  evidence: Evidence[];
  /**
   * Distinct workloads of a per-workload incident in this batch, counted beyond the entity cap, so
   * that a digest accounts for every one of them.
   */
  workloadCount?: number;
  /**
   * Other scheduling reasons the same records gave, kept as causes of this incident's rule (which
   * leads: lambdas/core/scheduling-causes.ts); absent when there are none.
   */
  causes?: RuleId[];
  /**
   * The highest count of each Kubernetes event this batch counted, by a short hash of its uid or
   * name (`eventKeyOf`), most recently counted last, at most MAX_EVENT_COUNTS: what the incident
   * store needs to count an event re-emitted in a later delivery once (lambdas/core/lifecycle.ts).
   * Events told apart only by their object and message (kubectl rows) are not in it: a new Event of
   * the same message can start again from 1, so they count per delivery. Absent when there are none.
   */
  eventCounts?: EventCount[];
}

/** One Kubernetes event's key (`eventKeyOf`) and the highest count seen of it. */
export type EventCount = [key: string, count: number];

/**
 * The stable id of the incident of `rule` in `cluster` about `keyValue`. `account` is the cluster's
 * account when it is not the deployment's own (`keyAccountOf`): the same cluster name in two
 * accounts is two incidents, and home-account ids stay what they were before accounts existed.
 */
export function findingIdOf(cluster: string, rule: RuleId, keyValue: string | undefined, account?: string): string {
  // One call on one string: what hashing `account:…\0` and then the rest gave, without a Hash object.
  const text = `${cluster}\u0000${rule}\u0000${keyValue ?? ''}`;
  return hash('sha256', account ? `account:${account}\u0000${text}` : text, 'hex').slice(0, 24);
}

/** What the aggregator keeps of one incident besides the incident itself. */
interface IncidentState {
  incident: Incident;
  /** Entity values by kind, each at most MAX_ENTITY_VALUES, kinds in the order first named. */
  entitySets: Map<EntityKind, KindValues>;
  /** First and last times seen (epoch ms): numbers until the incident is read. */
  seen?: { first: number; last: number };
  /** The distinct workloads of a per-workload incident, at most MAX_REMEMBERED (a 1 MB batch holds ~10,000). */
  workloads?: Set<string>;
  /** The record summaries the evidence was drawn from (until the evidence is full). */
  evidenceSummaries?: string[];
  /** The highest count seen of each Kubernetes event the incident counted (`EventCounts`). */
  eventCounts?: EventCounts;
  /** What `add` returns for a signal that neither opened the incident nor grew it: most signals. */
  unchanged: IncidentChange;
}

/** The values an incident keeps of one entity kind. */
class KindValues {
  readonly values = new Set<string>();
  /** The value a record named alone the last time one did (always in `values`): the likeliest next. */
  last: string | undefined = undefined;
}

/** The incidents of one rule and how the rule keys them: one lookup per signal finds both. */
interface RuleIncidents {
  keying: Keying;
  byKey: Map<string | undefined, IncidentState>;
  /** Signals of the rule added. */
  signals: number;
}

/** Severities from the most severe down: the order `incidentsFound` sorts by. */
const SEVERITY_RANK: Readonly<Record<Severity, number>> = { critical: 0, high: 1, medium: 2, low: 3 };

/** What `add` says when a signal added no entity value: most do, once an incident has its names. */
const NO_GROWTH: readonly EntityKind[] = Object.freeze([]);

/** Groups signals into incidents keyed by (cluster, rule, key entity), in the order first seen. */
export class Aggregator {
  /** Each incident and what is kept with it, by finding id, in the order opened. */
  private readonly states = new Map<string, IncidentState>();
  /** Incidents by rule, then key value: one hash per incident, not one per signal. */
  private readonly byRule = new Map<RuleId, RuleIncidents>();

  constructor(
    private readonly cluster: string,
    /** The cluster's account when it is not the deployment's own (see `Incident.account`). */
    private readonly account?: string,
  ) {}

  /**
   * Counts a signal into its incident; says whether it opened the incident and which entity kinds
   * grew. With `report` false nobody reads that (the analyzer without a listener: the Lambda): the
   * same incident, without an answer built for the signals that grow it (most of an outage's, each
   * naming fresh pods and NodeClaims).
   */
  add(signal: Signal, report: false): undefined;
  add(signal: Signal, report?: true): IncidentChange;
  add(signal: Signal, report = true): IncidentChange | undefined {
    const { rule, entities, record } = signal;
    let incidents = this.byRule.get(rule);
    if (incidents === undefined) {
      this.byRule.set(rule, (incidents = { keying: keyingOf(rule), byKey: new Map(), signals: 0 }));
    }
    incidents.signals++;
    const keyValue = keyValueOf(incidents.keying, entities);
    let state = incidents.byKey.get(keyValue);
    let opened = false;
    if (state === undefined) {
      const findingId = findingIdOf(this.cluster, rule, keyValue, this.account);
      state = this.states.get(findingId);
      if (state === undefined) {
        opened = true;
        state = {
          incident: {
            findingId,
            cluster: this.cluster,
            ...(this.account ? { account: this.account } : {}),
            rule,
            keyValue,
            occurrences: 0,
            entities: {},
            evidence: [],
          },
          entitySets: new Map(),
          unchanged: Object.freeze({ findingId, opened: false, grown: NO_GROWTH }),
        };
        this.states.set(findingId, state);
      }
      incidents.byKey.set(keyValue, state);
    }
    const incident = state.incident;
    incident.occurrences += weightOf(state, record);
    const causes = signal.causes;
    if (causes !== undefined && causes.length > 0) addCauses(incident, causes);
    if (incidents.keying.perWorkload) {
      const workloads = (state.workloads ??= new Set());
      const named = entities.workloads;
      if (named !== undefined)
        for (const workload of named) if (workloads.size < MAX_REMEMBERED) workloads.add(workload);
    }
    const time = timeOf(record);
    if (time !== undefined) {
      const seen = state.seen;
      if (!seen) state.seen = { first: time, last: time };
      else if (time < seen.first) seen.first = time;
      else if (time > seen.last) seen.last = time;
    }
    const kinds = state.entitySets;
    let grown: EntityKind[] | undefined;
    for (const kind in entities) {
      const values = entities[kind as EntityKind]!;
      let held = kinds.get(kind as EntityKind);
      if (held === undefined) kinds.set(kind as EntityKind, (held = new KindValues()));
      const set = held.values;
      // A kind that has all the values it keeps takes no more (the names of a long outage).
      const size = set.size;
      if (size >= MAX_ENTITY_VALUES) continue;
      if (values.length === 1) {
        // Most records name one value of a kind, most often the one the record before named (the
        // NodePool, the namespace, the error code): compared with it, not hashed and looked up again.
        const value = values[0]!;
        if (value === held.last) continue;
        held.last = value;
        set.add(value);
      } else {
        for (let i = 0; i < values.length; i++) {
          set.add(values[i]!);
          if (set.size >= MAX_ENTITY_VALUES) break;
        }
      }
      if (report && set.size > size) (grown ??= []).push(kind as EntityKind);
    }
    if (incident.evidence.length < MAX_EVIDENCE) {
      // A summary already looked at gives the same message: it is not sanitised and compared again
      // (an incident whose lines all read alike would otherwise sanitise every one of them).
      const summaries = (state.evidenceSummaries ??= []);
      if (!summaries.includes(record.summary)) {
        // Bounded: distinct summaries can share a message (cut at the same length) without end.
        if (summaries.length < 16) summaries.push(record.summary);
        const evidence = evidenceOf(record, time === undefined ? undefined : isoOf(time));
        if (!hasMessage(incident.evidence, evidence.message)) incident.evidence.push(evidence);
      }
    }
    if (!report) return undefined;
    if (!opened && grown === undefined) return state.unchanged;
    return { findingId: incident.findingId, opened, grown: grown ?? NO_GROWTH };
  }

  /**
   * The incident as a finding reads it, its members in the order they have always had (the stored
   * incident's, then times, workload count and event counts): findings are serialised as they are.
   */
  private snapshot(state: IncidentState): Incident {
    const { incident, seen, workloads } = state;
    const { findingId, cluster, account, rule, keyValue, occurrences } = incident;
    const entities = toEntities(state.entitySets);
    const evidence = incident.evidence.slice();
    const snapshot: Incident =
      account === undefined
        ? { findingId, cluster, rule, keyValue, occurrences, entities, evidence }
        : { findingId, cluster, account, rule, keyValue, occurrences, entities, evidence };
    if (incident.causes) snapshot.causes = incident.causes.slice();
    if (seen) {
      snapshot.firstSeen = isoOf(seen.first);
      snapshot.lastSeen = isoOf(seen.last);
    }
    if (workloads) snapshot.workloadCount = workloads.size;
    const eventCounts = eventCountsOf(state);
    if (eventCounts) snapshot.eventCounts = eventCounts;
    return snapshot;
  }

  /** Signals added, by rule, in the order each rule was first added (`AnalysisStats.signalsByRule`). */
  signalsByRule(): Partial<Record<RuleId, number>> {
    const counts: Partial<Record<RuleId, number>> = {};
    for (const [rule, incidents] of this.byRule) counts[rule] = incidents.signals;
    return counts;
  }

  addAll(signals: Iterable<Signal>): this {
    for (const signal of signals) this.add(signal, false);
    return this;
  }

  /** One incident as it stands now, or undefined when no signal opened it. */
  incident(findingId: string): Incident | undefined {
    const state = this.states.get(findingId);
    return state && this.snapshot(state);
  }

  /** The incidents, most severe first, then by occurrences. */
  incidentsFound(): Incident[] {
    // Each incident's severity read once, not once per comparison.
    const ranked: Array<{ incident: Incident; rank: number }> = [];
    for (const state of this.states.values()) {
      const incident = this.snapshot(state);
      ranked.push({ incident, rank: SEVERITY_RANK[severityOf(incident)] });
    }
    ranked.sort((a, b) => a.rank - b.rank || b.incident.occurrences - a.incident.occurrences);
    return ranked.map((entry) => entry.incident);
  }
}

/** True when one of the evidence lines reads `message` (a loop: no closure per line looked at). */
function hasMessage(evidence: readonly Evidence[], message: string): boolean {
  for (let i = 0; i < evidence.length; i++) if (evidence[i]!.message === message) return true;
  return false;
}

/** Adds a signal's causes to its incident's, in the order first given, unless it has them all already. */
function addCauses(incident: Incident, causes: readonly RuleId[]): void {
  const known = incident.causes;
  if (known !== undefined) {
    let all = true;
    for (const cause of causes) {
      if (!known.includes(cause)) {
        all = false;
        break;
      }
    }
    if (all) return;
  }
  incident.causes = [...new Set([...(known ?? []), ...causes])];
}

/**
 * What a signal adds to its incident's occurrences: 1 for a log line; for a Kubernetes event
 * whose identity is known, what its count adds to the highest count seen of that event. An event
 * re-emitted with its count rising (31 copies, the last with count 31) is 31 occurrences, not the
 * sum of the copies' counts nor the number of lines.
 */
function weightOf(state: IncidentState, record: LogRecord): number {
  const event = record.event;
  if (event === undefined) return 1;
  // The identity of `eventIdentityOf`, looked up by its uid or name alone (no string built per copy).
  const uid = event.uid;
  const name = event.name;
  if (uid) return (state.eventCounts ??= new EventCounts()).weigh(IdentityKind.Uid, uid, event.count ?? 1);
  if (name) return (state.eventCounts ??= new EventCounts()).weigh(IdentityKind.Name, name, event.count ?? 1);
  if (event.count === undefined) return 1;
  const identity = eventIdentityOf(record)!;
  return (state.eventCounts ??= new EventCounts()).weigh(IdentityKind.Object, identity, event.count);
}

/** What an event's identity (`eventIdentityOf`) is made of: its uid, its name, or its object and message. */
const enum IdentityKind {
  Uid,
  Name,
  Object,
}

/** The highest count of an event, and when it was last raised (the incident's count of raises). */
interface EventSeen {
  count: number;
  order: number;
}

/**
 * The highest count seen of each event of one incident, by identity (`eventIdentityOf`): one map per
 * kind of identity, keyed by the uid, the name or the whole object identity, so that a copy is
 * looked up by a string it already has. Each map is in the order its events were last raised
 * (newest last); `order` puts the three in one order, which is what a single map of identities kept:
 * past MAX_REMEMBERED the event raised longest ago is forgotten, and `eventCountsOf` lists the newest.
 */
class EventCounts {
  private readonly maps: [Map<string, EventSeen>, Map<string, EventSeen>, Map<string, EventSeen>] = [
    new Map(),
    new Map(),
    new Map(),
  ];
  private raised = 0;

  /** What a copy of the event `key` (of `kind`) with `count` adds: the rise over the highest count seen. */
  weigh(kind: IdentityKind, key: string, count: number): number {
    const map = this.maps[kind];
    const previous = map.get(key);
    const seen = previous === undefined ? 0 : previous.count;
    if (count <= seen) return 0;
    if (previous === undefined) {
      map.set(key, { count, order: this.raised++ });
    } else {
      // Deleted and set again, so the map stays in the order its events were last raised (newest last).
      map.delete(key);
      previous.count = count;
      previous.order = this.raised++;
      map.set(key, previous);
    }
    if (this.size() > MAX_REMEMBERED) this.forgetOldest();
    return count - seen;
  }

  /** The counts of the uniquely named events (uid, name), most recently raised last (`Incident.eventCounts`). */
  named(): EventCount[] | undefined {
    const [uids, names] = this.maps;
    if (uids.size === 0 && names.size === 0) return undefined;
    // Only the newest MAX_EVENT_COUNTS of each map can be listed: the older ones are passed over.
    const byUid = newest(uids, MAX_EVENT_COUNTS);
    const byName = newest(names, MAX_EVENT_COUNTS);
    const kept: EventCount[] = [];
    // Both lists newest last: merged from their ends, newest first, as a single map was walked.
    let u = byUid.keys.length - 1;
    let n = byName.keys.length - 1;
    while ((u >= 0 || n >= 0) && kept.length < MAX_EVENT_COUNTS) {
      if (n < 0 || (u >= 0 && byUid.seen[u]!.order > byName.seen[n]!.order)) {
        kept.push([namedEventKey(`uid\u0000${byUid.keys[u]!}`), byUid.seen[u--]!.count]);
      } else {
        kept.push([namedEventKey(`name\u0000${byName.keys[n]!}`), byName.seen[n--]!.count]);
      }
    }
    return kept.reverse();
  }

  private size(): number {
    return this.maps[0].size + this.maps[1].size + this.maps[2].size;
  }

  /** Forgets the event raised longest ago: the first of one of the three maps. */
  private forgetOldest(): void {
    let oldest: Map<string, EventSeen> | undefined;
    let oldestKey = '';
    let oldestOrder = Infinity;
    for (const map of this.maps) {
      for (const [key, seen] of map) {
        if (seen.order < oldestOrder) {
          oldest = map;
          oldestKey = key;
          oldestOrder = seen.order;
        }
        break;
      }
    }
    oldest?.delete(oldestKey);
  }
}

/** The counts of the incident's uniquely named events, most recently counted last (`Incident.eventCounts`). */
function eventCountsOf(state: IncidentState): EventCount[] | undefined {
  return state.eventCounts?.named();
}

/** What one signal did to its incident. */
export interface IncidentChange {
  readonly findingId: string;
  /** The signal opened the incident. */
  readonly opened: boolean;
  /** Entity kinds that gained a value (a second subnet, a new IAM action). */
  readonly grown: readonly EntityKind[];
}

/**
 * What identifies one Kubernetes event across its copies: its uid, else its own name, else (for a
 * row that states a count) the object it is about with its type, reason and message. Undefined for log lines
 * and for event rows that can be told apart by nothing: each of those counts once.
 */
export function eventIdentityOf(record: LogRecord): string | undefined {
  const event = record.event;
  if (!event) return undefined;
  if (event.uid) return `uid\u0000${event.uid}`;
  if (event.name) return `name\u0000${event.name}`;
  // A describe row cut from its header names no object: its message and count still identify it.
  const object = event.object ?? { name: '' };
  if (event.count === undefined) return undefined;
  // The event recorder's own key: one object, type, reason and message make one Event whose count rises.
  return `object\u0000${object.kind ?? ''}\u0000${object.namespace ?? ''}\u0000${object.name}\u0000${event.type ?? ''}\u0000${record.text}`;
}

/**
 * The key under which an incident keeps an event's count across deliveries: a 96-bit hash of its
 * uid or name (both unique to one Event object for its life); undefined for an identity that only
 * its object and message make (`eventIdentityOf`).
 */
export function eventKeyOf(identity: string): string | undefined {
  if (!identity.startsWith('uid\u0000') && !identity.startsWith('name\u0000')) return undefined;
  return namedEventKey(identity);
}

/** `eventKeyOf` of an identity known to be a uid's or a name's. */
const namedEventKey = (identity: string): string => hash('sha256', identity, 'base64url').slice(0, 16);

/** The last `limit` keys of a map and what they map to, in the map's order. */
function newest<V>(map: ReadonlyMap<string, V>, limit: number): { keys: string[]; seen: V[] } {
  const keys: string[] = [];
  const seen: V[] = [];
  let skip = map.size - limit;
  for (const [key, value] of map) {
    if (skip > 0) {
      skip--;
      continue;
    }
    keys.push(key);
    seen.push(value);
  }
  return { keys, seen };
}

function toEntities(kinds: Map<EntityKind, KindValues>): Entities {
  const entities: Entities = {};
  for (const [kind, held] of kinds) entities[kind] = sortedValues(held.values);
  return entities;
}

/**
 * The values of a set in the order `[...set].sort()` gives (UTF-16 code units, what `<` compares for
 * strings), each inserted where a binary search places it: at most MAX_ENTITY_VALUES short strings,
 * for which the default sort's setup cost more than the comparisons.
 */
export function sortedValues(set: ReadonlySet<string>): string[] {
  const sorted: string[] = [];
  for (const value of set) {
    let low = 0;
    let high = sorted.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (sorted[middle]! > value) high = middle;
      else low = middle + 1;
    }
    for (let at = sorted.length; at > low; at--) sorted[at] = sorted[at - 1]!;
    sorted[low] = value;
  }
  return sorted;
}

/** When a record was written, in epoch ms: its own time, else when CloudWatch received it. */
export function timeOf(record: LogRecord): number | undefined {
  if (record.timeMs !== undefined) return record.timeMs;
  // The event's own time, if a Date can hold it: a delivery's timestamp is any JSON number, and one
  // beyond ±8.64e15 ms would make the incident's ISO times throw instead of being left out.
  const origin = record.origin.timestampMs;
  return origin !== undefined && origin !== 0 && Math.abs(origin) <= 8.64e15 ? origin : undefined;
}

function evidenceOf(record: LogRecord, timestamp: string | undefined): Evidence {
  const { logGroup, logStream, eventId, file, line } = record.origin;
  const evidence: Evidence = { message: sanitizeLine(record.summary, MAX_EVIDENCE_CHARS) };
  if (timestamp) evidence.timestamp = timestamp;
  if (logGroup) evidence.logGroup = logGroup;
  if (logStream) evidence.logStream = logStream;
  if (eventId) evidence.eventId = eventId;
  if (file) evidence.file = file;
  if (line) evidence.line = line;
  return evidence;
}
