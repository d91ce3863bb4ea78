import { LaunchRounds } from './launch-rounds';
import type { LogRecord, Signal } from '../model';
import { RULE_LIST, type RuleId } from '../recognise/rules';

/**
 * A scheduling failure that a later Nominated or Scheduled event of the same delivery resolves for every
 * pod it names is held and dropped (docs/architecture.md, Placements that resolve a scheduling failure).
 */

/** Rules about pods that cannot be placed: a later placement of the pod resolves them. */
export const RESOLVABLE_RULES: ReadonlySet<RuleId> = new Set(
  RULE_LIST.filter((rule) => rule.resolvedByPlacement).map((rule) => rule.info.id),
);

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

/** What a raw line that may be a placement holds (Karpenter's event reason, the scheduler's message). */
export const PLACEMENT_MARKERS: readonly string[] = ['Nominated', 'Successfully assigned'];

/** True when a raw line may be a placement: the prefilter lets it through to be parsed. */
export const mayBePlacement = (raw: string): boolean => PLACEMENT_MARKERS.some((marker) => raw.includes(marker));

interface Held {
  signal: Signal;
  /** Pods not yet placed after this failure. */
  pods: Set<string>;
  /** When the failure was logged (epoch ms), if known. */
  time?: number;
  /** When it arrived, in records' time (epoch ms) as far as the stream has told: for the window. */
  arrived?: number;
  /** Resolved or released: no longer held, waiting only to leave the queue. */
  done?: boolean;
  /** Characters of its record's text and summary (`charsOf`), counted against `maxHeldChars`. */
  chars: number;
}

/** How a resolution tracker releases what it holds. */
export interface ResolutionOptions {
  /**
   * Release a held failure once a record this much later (in the records' own times) arrives, so a
   * followed stream still prints it; without it, failures are held to the end of the delivery.
   */
  windowMs?: number;
  /**
   * At most this many failures are held; past it the oldest is released and counted. A Lambda
   * delivery never comes near it; a gigabyte log file read by the CLI would otherwise hold every
   * scheduling failure of the file until its end.
   */
  maxHeld?: number;
  /**
   * At most this many characters of record text are held; past it the oldest failure is released
   * and counted, so that a few thousand very long records (continuations are joined up to 256 KB)
   * cannot hold gigabytes where ordinary ones hold megabytes.
   */
  maxHeldChars?: number;
  /**
   * Follow Karpenter's provisioning rounds: a launch resolves the failures of the pods its round
   * named (lambdas/core/launch-rounds.ts). Worth it only where Karpenter's log and the scheduler's
   * events meet in one analysis.
   * @default false
   */
  launches?: boolean;
}

/**
 * The window of a followed stream: Karpenter batches pending pods for up to 10 s
 * (BATCH_MAX_DURATION) before it nominates them, so a minute leaves room for a slow simulation.
 */
export const FOLLOW_RESOLUTION_WINDOW_MS = 60_000;

/** Failures held at most by default: a few MiB of signals, far above one delivery's. */
export const DEFAULT_MAX_HELD = 10_000;
/** Characters of held records at most by default: 16 M, a few dozen MiB, far above one delivery's. */
export const DEFAULT_MAX_HELD_CHARS = 16 * 2 ** 20;

/** Placements remembered per delivery, beyond which the oldest are forgotten. */
export const MAX_PLACEMENTS = 10_000;
/** Placements remembered per pod name: the latest few are the ones that can still resolve. */
const MAX_PLACEMENTS_PER_POD = 8;

/**
 * Holds the scheduling failures of one delivery and drops those that a placement of every pod they
 * name resolves. A placement resolves a failure logged no later than it (by the records' times when
 * both have one; else by arrival). Memory is bounded: placements by MAX_PLACEMENTS, held failures
 * by `maxHeld` and `maxHeldChars`; a placement finds what it resolves through an index by pod name, so a long input
 * costs time in proportion to its length, not to the square of it.
 */
export class ResolutionTracker {
  /** Held failures in arrival order (entries marked done are skipped and compacted away). */
  private queue: Held[] = [];
  /** Index of the oldest entry of `queue` that may still be held. */
  private head = 0;
  private heldCount = 0;
  private heldChars = 0;
  /** Held failures by the name of each pod they still wait for. */
  private readonly byPod = new Map<string, Set<Held>>();
  /** Placements seen so far: pod name → namespace ('' unknown) and time. */
  private readonly placements = new Map<string, Array<{ namespace: string; time?: number }>>();
  private newest: number | undefined;
  private readonly maxHeld: number;
  private readonly maxHeldChars: number;
  private readonly launches: LaunchRounds | undefined;
  /** Failures dropped because every pod they named was placed. */
  resolved = 0;

  constructor(private readonly options: ResolutionOptions = {}) {
    this.maxHeld = Math.max(1, options.maxHeld ?? DEFAULT_MAX_HELD);
    this.maxHeldChars = options.maxHeldChars ?? DEFAULT_MAX_HELD_CHARS;
    if (options.launches) this.launches = new LaunchRounds();
  }

  /** Failures held now. */
  get held(): number {
    return this.heldCount;
  }

  /**
   * Takes the signals of one record; returns those to count now. A resolvable failure naming pods
   * is held (or dropped, when a placement already seen resolves it); a placement resolves what is held.
   */
  accept(record: LogRecord, signals: Signal[], time: number | undefined): readonly Signal[] {
    if (time !== undefined && (this.newest === undefined || time > this.newest)) this.newest = time;
    if (signals.length === 0) {
      const placed = placedPodOf(record);
      if (placed) this.place(placed, time);
    }
    if (this.launches) for (const pod of this.launches.accept(record)) this.place(pod, time);
    // The record's own signals, the same array while none of them is held (most records).
    let now: Signal[] = signals;
    for (let i = 0; i < signals.length; i++) {
      const signal = signals[i]!;
      const pods = RESOLVABLE_RULES.has(signal.rule) ? signal.entities.pods : undefined;
      if (pods === undefined || pods.length === 0) {
        if (now !== signals) now.push(signal);
        continue;
      }
      if (now === signals) now = signals.slice(0, i);
      const open = new Set<string>();
      for (const pod of pods) if (!this.placedSince(pod, time)) open.add(pod);
      if (open.size === 0) this.resolved++;
      else this.hold({ signal, pods: open, time, arrived: this.newest, chars: charsOf(signal.record) });
    }
    const released = this.released();
    return released === NONE ? now : [...released, ...now];
  }

  /** Every failure still held, released: the end of the delivery. */
  drain(): Signal[] {
    const all = this.queue
      .slice(this.head)
      .filter((held) => !held.done)
      .map((held) => held.signal);
    this.queue = [];
    this.head = 0;
    this.heldCount = 0;
    this.heldChars = 0;
    this.byPod.clear();
    return all;
  }

  private hold(held: Held): void {
    this.queue.push(held);
    this.heldCount++;
    this.heldChars += held.chars;
    for (const pod of held.pods) {
      const name = podName(pod);
      let waiting = this.byPod.get(name);
      if (!waiting) this.byPod.set(name, (waiting = new Set()));
      waiting.add(held);
    }
  }

  /** Marks a held failure as no longer held and removes it from the index. */
  private release(held: Held): void {
    held.done = true;
    this.heldCount--;
    this.heldChars -= held.chars;
    for (const pod of held.pods) {
      const name = podName(pod);
      const waiting = this.byPod.get(name);
      waiting?.delete(held);
      if (waiting?.size === 0) this.byPod.delete(name);
    }
  }

  /** The held failures older than the window, or past the cap, released oldest first. */
  private released(): readonly Signal[] {
    const window = this.options.windowMs;
    const cutoff = window !== undefined && this.newest !== undefined ? this.newest - window : undefined;
    let released: Signal[] | undefined;
    for (; this.head < this.queue.length; this.head++) {
      const held = this.queue[this.head]!;
      if (held.done) continue;
      const late = cutoff !== undefined && (held.arrived ?? this.newest!) < cutoff;
      if (!late && this.heldCount <= this.maxHeld && this.heldChars <= this.maxHeldChars) break;
      this.release(held);
      (released ??= []).push(held.signal);
    }
    // Compacted now and then, so the queue costs amortised constant time per failure.
    if (this.head > 1024 && this.head * 2 > this.queue.length) {
      this.queue = this.queue.slice(this.head);
      this.head = 0;
    }
    if (this.queue.length - this.head > 2 * this.heldCount + 1024) {
      this.queue = this.queue.slice(this.head).filter((held) => !held.done);
      this.head = 0;
    }
    return released ?? NONE;
  }

  private place(pod: string, time: number | undefined): void {
    const { namespace, name } = splitPod(pod);
    let list = this.placements.get(name);
    if (!list) {
      if (this.placements.size >= MAX_PLACEMENTS) this.placements.delete(this.placements.keys().next().value!);
      this.placements.set(name, (list = []));
    }
    list.push({ namespace, time });
    if (list.length > MAX_PLACEMENTS_PER_POD) list.shift();
    const waiting = this.byPod.get(name);
    for (const held of [...(waiting ?? [])]) {
      if (held.time !== undefined && time !== undefined && time < held.time) continue;
      let placedHere = false;
      for (const open of held.pods) {
        if (samePod(open, namespace, name)) {
          held.pods.delete(open);
          placedHere = true;
        }
      }
      if (!placedHere) continue;
      if (![...held.pods].some((open) => podName(open) === name)) waiting!.delete(held);
      if (held.pods.size > 0) continue;
      this.release(held);
      this.resolved++;
    }
    if (waiting?.size === 0) this.byPod.delete(name);
  }

  /** True when a placement of the pod already seen is no earlier than a failure at `time`. */
  private placedSince(pod: string, time: number | undefined): boolean {
    if (time === undefined || this.placements.size === 0) return false;
    // No object per pod looked up (every pod of every held failure): its name, then its namespace.
    const list = this.placements.get(podName(pod));
    if (list === undefined) return false;
    const namespace = podNamespace(pod);
    for (const placement of list) {
      if (
        (!placement.namespace || !namespace || placement.namespace === namespace) &&
        placement.time !== undefined &&
        placement.time >= time
      )
        return true;
    }
    return false;
  }
}

/** What `released` returns when it releases nothing (nearly always): no array per record. */
const NONE: readonly Signal[] = Object.freeze([]);

/** What a held record keeps of its line, at least: its text and its summary. */
const charsOf = (record: LogRecord): number => record.text.length + record.summary.length;

/** The name of a pod given as `namespace/name` or `name`. */
function podName(pod: string): string {
  const slash = pod.indexOf('/');
  return slash < 0 ? pod : pod.slice(slash + 1);
}

/** The namespace of a pod given as `namespace/name`; empty for one given as `name`. */
function podNamespace(pod: string): string {
  const slash = pod.indexOf('/');
  return slash < 0 ? '' : pod.slice(0, slash);
}

function splitPod(pod: string): { namespace: string; name: string } {
  return { namespace: podNamespace(pod), name: podName(pod) };
}

/** The same pod, when the names agree and the namespaces do where both are known. */
function samePod(pod: string, namespace: string, name: string): boolean {
  const other = splitPod(pod);
  return other.name === name && (!other.namespace || !namespace || other.namespace === namespace);
}
