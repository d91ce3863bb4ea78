/**
 * The aggregator as it was before its per-signal work was cut down (issue 17), with the incident key
 * of that time, kept as the reference the property test in test/core/aggregate-reference.test.ts
 * holds the fast one to. Not used by the analyzer.
 */
import { createHash } from 'node:crypto';
import { CAUSE_KIND } from '../../lambdas/core/incident-key';
import { CATALOG, severityOf, type RuleId } from '../../lambdas/core/rules';
import type { Entities, EntityKind, LogRecord, Signal } from '../../lambdas/core/model';
import { sanitizeLine } from '../../lambdas/core/sanitize';
import { isoOf } from '../../lambdas/core/timestamp';

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
  const hash = createHash('sha256');
  if (account) hash.update(`account:${account}\u0000`);
  return hash
    .update(`${cluster}\u0000${rule}\u0000${keyValue ?? ''}`)
    .digest('hex')
    .slice(0, 24);
}

/** Groups signals into incidents keyed by (cluster, rule, key entity), in the order first seen. */
export class Aggregator {
  private readonly incidents = new Map<string, Incident>();
  private readonly entitySets = new Map<string, Map<EntityKind, Set<string>>>();
  /** Finding ids by rule, then key value: one hash per incident, not one per signal. */
  private readonly ids = new Map<RuleId, Map<string | undefined, string>>();
  /** First and last times seen (epoch ms) by finding id: numbers until an incident is read. */
  private readonly seen = new Map<string, { first: number; last: number }>();
  /** The distinct workloads of each per-workload incident, at most MAX_REMEMBERED (a 1 MB batch holds ~10,000). */
  private readonly workloads = new Map<string, Set<string>>();
  /** The record summaries each incident's evidence was drawn from (until its evidence is full). */
  private readonly evidenceSummaries = new Map<string, string[]>();
  /** The highest count seen of each Kubernetes event, by finding id and event identity. */
  private readonly eventCounts = new Map<string, Map<string, number>>();

  constructor(
    private readonly cluster: string,
    /** The cluster's account when it is not the deployment's own (see `Incident.account`). */
    private readonly account?: string,
  ) {}

  /** Counts a signal into its incident; says whether it opened the incident and which entity kinds grew. */
  add(signal: Signal): IncidentChange {
    const keyValue = incidentKeyOf(signal.rule, signal.entities);
    let ids = this.ids.get(signal.rule);
    if (!ids) this.ids.set(signal.rule, (ids = new Map()));
    let findingId = ids.get(keyValue);
    if (findingId === undefined) {
      findingId = findingIdOf(this.cluster, signal.rule, keyValue, this.account);
      ids.set(keyValue, findingId);
    }
    let incident = this.incidents.get(findingId);
    const opened = !incident;
    if (!incident) {
      incident = {
        findingId,
        cluster: this.cluster,
        ...(this.account ? { account: this.account } : {}),
        rule: signal.rule,
        keyValue,
        occurrences: 0,
        entities: {},
        evidence: [],
      };
      this.incidents.set(findingId, incident);
      this.entitySets.set(findingId, new Map());
    }
    incident.occurrences += this.weightOf(findingId, signal.record);
    if (signal.causes?.length) {
      const causes = new Set([...(incident.causes ?? []), ...signal.causes]);
      if (!incident.causes || causes.size > incident.causes.length) incident.causes = [...causes];
    }
    if (isPerWorkload(signal.rule)) {
      let workloads = this.workloads.get(findingId);
      if (!workloads) this.workloads.set(findingId, (workloads = new Set()));
      for (const workload of signal.entities.workloads ?? []) {
        if (workloads.size < MAX_REMEMBERED) workloads.add(workload);
      }
    }
    const time = timeOf(signal.record);
    if (time !== undefined) {
      const seen = this.seen.get(findingId);
      if (!seen) this.seen.set(findingId, { first: time, last: time });
      else if (time < seen.first) seen.first = time;
      else if (time > seen.last) seen.last = time;
    }
    const sets = this.entitySets.get(findingId)!;
    const grown: EntityKind[] = [];
    const entities = signal.entities;
    for (const key in entities) {
      const kind = key as EntityKind;
      const values = entities[kind]!;
      let set = sets.get(kind);
      if (!set) sets.set(kind, (set = new Set()));
      const size = set.size;
      for (const value of values) if (set.size < MAX_ENTITY_VALUES) set.add(value);
      if (set.size > size) grown.push(kind);
    }
    if (incident.evidence.length < MAX_EVIDENCE) {
      // A summary already looked at gives the same message: it is not sanitised and compared again
      // (an incident whose lines all read alike would otherwise sanitise every one of them).
      let summaries = this.evidenceSummaries.get(findingId);
      if (!summaries) this.evidenceSummaries.set(findingId, (summaries = []));
      if (!summaries.includes(signal.record.summary)) {
        // Bounded: distinct summaries can share a message (cut at the same length) without end.
        if (summaries.length < 16) summaries.push(signal.record.summary);
        const evidence = evidenceOf(signal.record, time === undefined ? undefined : isoOf(time));
        if (!incident.evidence.some((e) => e.message === evidence.message)) incident.evidence.push(evidence);
      }
    }
    return { findingId, opened, grown };
  }

  /**
   * What a signal adds to its incident's occurrences: 1 for a log line; for a Kubernetes event
   * whose identity is known, what its count adds to the highest count seen of that event. An event
   * re-emitted with its count rising (31 copies, the last with count 31) is 31 occurrences, not the
   * sum of the copies' counts nor the number of lines.
   */
  private weightOf(findingId: string, record: LogRecord): number {
    const identity = eventIdentityOf(record);
    if (identity === undefined) return 1;
    const count = record.event?.count ?? 1;
    let counts = this.eventCounts.get(findingId);
    if (!counts) this.eventCounts.set(findingId, (counts = new Map()));
    const seen = counts.get(identity) ?? 0;
    if (count <= seen) return 0;
    // Deleted first, so the map stays in the order events were last counted (newest last).
    counts.delete(identity);
    counts.set(identity, count);
    if (counts.size > MAX_REMEMBERED) counts.delete(counts.keys().next().value!);
    return count - seen;
  }

  /** The counts of the incident's uniquely named events, most recently counted last (`Incident.eventCounts`). */
  private eventCountsOf(findingId: string): EventCount[] | undefined {
    const counts = this.eventCounts.get(findingId);
    if (!counts) return undefined;
    const kept: EventCount[] = [];
    const identities = [...counts.keys()];
    for (let i = identities.length - 1; i >= 0 && kept.length < MAX_EVENT_COUNTS; i--) {
      const key = eventKeyOf(identities[i]!);
      if (key !== undefined) kept.push([key, counts.get(identities[i]!)!]);
    }
    return kept.length > 0 ? kept.reverse() : undefined;
  }

  private snapshot(incident: Incident): Incident {
    const seen = this.seen.get(incident.findingId);
    const workloads = this.workloads.get(incident.findingId);
    const eventCounts = this.eventCountsOf(incident.findingId);
    return {
      ...incident,
      ...(seen && { firstSeen: isoOf(seen.first), lastSeen: isoOf(seen.last) }),
      entities: toEntities(this.entitySets.get(incident.findingId)!),
      evidence: [...incident.evidence],
      ...(incident.causes && { causes: [...incident.causes] }),
      ...(workloads ? { workloadCount: workloads.size } : {}),
      ...(eventCounts ? { eventCounts } : {}),
    };
  }

  addAll(signals: Iterable<Signal>): this {
    for (const signal of signals) this.add(signal);
    return this;
  }

  /** One incident as it stands now, or undefined when no signal opened it. */
  incident(findingId: string): Incident | undefined {
    const incident = this.incidents.get(findingId);
    return incident && this.snapshot(incident);
  }

  /** The incidents, most severe first, then by occurrences. */
  incidentsFound(): Incident[] {
    const order = ['critical', 'high', 'medium', 'low'];
    return [...this.incidents.values()]
      .map((incident) => this.snapshot(incident))
      .sort((a, b) => order.indexOf(severityOf(a)) - order.indexOf(severityOf(b)) || b.occurrences - a.occurrences);
  }
}

/** What one signal did to its incident. */
export interface IncidentChange {
  findingId: string;
  /** The signal opened the incident. */
  opened: boolean;
  /** Entity kinds that gained a value (a second subnet, a new IAM action). */
  grown: EntityKind[];
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
  return createHash('sha256').update(identity).digest('base64url').slice(0, 16);
}

function toEntities(sets: Map<EntityKind, Set<string>>): Entities {
  const entities: Entities = {};
  for (const [kind, set] of sets) entities[kind] = [...set].sort();
  return entities;
}

/** When a record was written, in epoch ms: its own time, else when CloudWatch received it. */
export function timeOf(record: LogRecord): number | undefined {
  return record.timeMs ?? (record.origin.timestampMs || undefined);
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

/** Per-workload rules key on their cause; the others on their catalog entity (lambdas/core/incident-key.ts, as it was). */
const MAX_KEY_CHARS = 200;
const isPerWorkload = (rule: RuleId): boolean => CATALOG[rule].keyEntity === 'workloads';
function incidentKeyOf(rule: RuleId, entities: Entities): string | undefined {
  const keyEntity = CATALOG[rule].keyEntity;
  if (!keyEntity) return undefined;
  if (keyEntity !== 'workloads') return entities[keyEntity]?.[0];
  const cause = CAUSE_KIND[rule];
  if (!cause) return undefined;
  const values = [...new Set(entities[cause] ?? [])].sort();
  return values.length ? values.join(',').slice(0, MAX_KEY_CHARS) : undefined;
}
