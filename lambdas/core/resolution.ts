import type { LogRecord, Signal } from './model';
import type { RuleId } from './rules';
import { SCHEDULING_LEAD_ORDER } from './scheduling-causes';

/**
 * A pod that cannot be scheduled is often placed a second later: Karpenter nominates it for a
 * NodeClaim it launches (a Normal `Nominated` event, "Pod should schedule on: nodeclaim/…",
 * sigs.k8s.io/karpenter pkg/controllers/provisioning/scheduling/events.go), or the scheduler binds
 * it (`Scheduled`, "Successfully assigned ns/pod to node"). A scheduling failure that a later event
 * of the same delivery resolves for every pod it names is routine, not a finding: it is held until
 * the end of the delivery and dropped when resolved.
 */

/** Rules about pods that cannot be placed: a later placement of the pod resolves them. */
export const RESOLVABLE_RULES: ReadonlySet<RuleId> = new Set<RuleId>([
  ...SCHEDULING_LEAD_ORDER,
  'karpenter-controller-unschedulable',
]);

/** Event reasons that say a pod has a place: Karpenter's nomination, the scheduler's binding. */
const PLACEMENT_REASONS: ReadonlySet<string> = new Set(['Nominated', 'Scheduled']);

/** `Successfully assigned <namespace>/<pod> to <node>`: the scheduler's binding message. */
export const ASSIGNED = /\bSuccessfully assigned ([a-z0-9][a-z0-9-]{0,62})\/([a-z0-9][a-z0-9.-]{0,252}) to /;

/** A pod placed by a record, as `namespace/name` (or `name` when the record has no namespace). */
export function placedPodOf(record: LogRecord): string | undefined {
  const event = record.event;
  if (!event?.reason || !PLACEMENT_REASONS.has(event.reason) || event.type === 'Warning') return undefined;
  const object = event.object;
  if (object && (object.kind === undefined || object.kind === 'Pod')) {
    return object.namespace ? `${object.namespace}/${object.name}` : object.name;
  }
  const assigned = ASSIGNED.exec(record.text);
  return assigned ? `${assigned[1]}/${assigned[2]}` : undefined;
}

/** True when a raw line may be a placement: the prefilter lets it through to be parsed. */
export const mayBePlacement = (raw: string): boolean =>
  raw.includes('Nominated') || raw.includes('Successfully assigned');

interface Held {
  signal: Signal;
  /** Pods not yet placed after this failure. */
  pods: Set<string>;
  /** When the failure was logged (epoch ms), if known. */
  time?: number;
  /** When it arrived, in records' time (epoch ms) as far as the stream has told: for the window. */
  arrived?: number;
}

/** How a resolution tracker releases what it holds. */
export interface ResolutionOptions {
  /**
   * Release a held failure once a record this much later (in the records' own times) arrives, so a
   * followed stream still prints it; without it, failures are held to the end of the delivery.
   */
  windowMs?: number;
}

/**
 * The window of a followed stream: Karpenter batches pending pods for up to 10 s
 * (BATCH_MAX_DURATION) before it nominates them, so a minute leaves room for a slow simulation.
 */
export const FOLLOW_RESOLUTION_WINDOW_MS = 60_000;

/** Placements remembered per delivery, beyond which the oldest are forgotten. */
const MAX_PLACEMENTS = 10_000;

/**
 * Holds the scheduling failures of one delivery and drops those that a placement of every pod they
 * name resolves. A placement resolves a failure logged no later than it (by the records' times when
 * both have one; else by arrival).
 */
export class ResolutionTracker {
  private held: Held[] = [];
  /** Placements seen so far: pod name → namespace ('' unknown) and time. */
  private readonly placements = new Map<string, Array<{ namespace: string; time?: number }>>();
  private newest: number | undefined;
  /** Failures dropped because every pod they named was placed. */
  resolved = 0;

  constructor(private readonly options: ResolutionOptions = {}) {}

  /**
   * Takes the signals of one record; returns those to count now. A resolvable failure naming pods
   * is held (or dropped, when a placement already seen resolves it); a placement resolves what is held.
   */
  accept(record: LogRecord, signals: Signal[], time: number | undefined): Signal[] {
    if (time !== undefined && (this.newest === undefined || time > this.newest)) this.newest = time;
    const placed = signals.length === 0 ? placedPodOf(record) : undefined;
    if (placed) this.place(placed, time);
    const now: Signal[] = [];
    for (const signal of signals) {
      const pods = RESOLVABLE_RULES.has(signal.rule) ? (signal.entities.pods ?? []) : [];
      if (pods.length === 0) {
        now.push(signal);
        continue;
      }
      const open = new Set(pods.filter((pod) => !this.placedSince(pod, time)));
      if (open.size === 0) this.resolved++;
      else this.held.push({ signal, pods: open, time, arrived: this.newest });
    }
    return [...this.expired(), ...now];
  }

  /** Every failure still held, released: the end of the delivery. */
  drain(): Signal[] {
    const all = this.held.map((held) => held.signal);
    this.held = [];
    return all;
  }

  /** The held failures older than the window, released (none without a window). */
  private expired(): Signal[] {
    const window = this.options.windowMs;
    if (window === undefined || this.newest === undefined) return [];
    const cutoff = this.newest - window;
    const released: Signal[] = [];
    while (this.held.length > 0 && (this.held[0]!.arrived ?? this.newest) < cutoff) {
      released.push(this.held.shift()!.signal);
    }
    return released;
  }

  private place(pod: string, time: number | undefined): void {
    const { namespace, name } = splitPod(pod);
    let list = this.placements.get(name);
    if (!list) {
      if (this.placements.size >= MAX_PLACEMENTS) this.placements.delete(this.placements.keys().next().value!);
      this.placements.set(name, (list = []));
    }
    list.push({ namespace, time });
    this.held = this.held.filter((held) => {
      if (held.time !== undefined && time !== undefined && time < held.time) return true;
      for (const open of held.pods) if (samePod(open, namespace, name)) held.pods.delete(open);
      if (held.pods.size > 0) return true;
      this.resolved++;
      return false;
    });
  }

  /** True when a placement of the pod already seen is no earlier than a failure at `time`. */
  private placedSince(pod: string, time: number | undefined): boolean {
    const { namespace, name } = splitPod(pod);
    return (this.placements.get(name) ?? []).some(
      (placement) =>
        (!placement.namespace || !namespace || placement.namespace === namespace) &&
        placement.time !== undefined &&
        time !== undefined &&
        placement.time >= time,
    );
  }
}

function splitPod(pod: string): { namespace: string; name: string } {
  const slash = pod.indexOf('/');
  return slash < 0 ? { namespace: '', name: pod } : { namespace: pod.slice(0, slash), name: pod.slice(slash + 1) };
}

/** The same pod, when the names agree and the namespaces do where both are known. */
function samePod(pod: string, namespace: string, name: string): boolean {
  const other = splitPod(pod);
  return other.name === name && (!other.namespace || !namespace || other.namespace === namespace);
}
