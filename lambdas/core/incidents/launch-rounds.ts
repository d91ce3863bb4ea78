import { isObject } from '../common/json';
import type { LogRecord } from '../model';

/**
 * Karpenter's provisioning rounds: a round whose every NodeClaim launched places the pods it named that
 * nothing says it could not schedule (docs/architecture.md, Karpenter's provisioning rounds).
 */

/** Rounds waiting for their launches, beyond which the oldest is forgotten (placing nothing). */
const MAX_WAITING_ROUNDS = 64;
/** Unschedulable pods remembered between two rounds, beyond which the oldest are forgotten. */
const MAX_UNSCHEDULABLE = 10_000;
/**
 * NodeClaims one round waits for, so that a log missing its round lines cannot grow one round
 * without end; a round that creates more places nothing, as one with a failed launch.
 */
export const MAX_ROUND_CLAIMS = 2_000;

interface Round {
  pods: Set<string>;
  claims: Set<string>;
  launched: Set<string>;
  /** A NodeClaim of the round was created without a name, or one of its launches failed. */
  spoiled: boolean;
}

/** What a Karpenter provisioning record says, from its message. */
type Step = 'round' | 'unschedulable' | 'created' | 'launched';

const STEPS: ReadonlyArray<[RegExp, Step]> = [
  [/^found provisionable pod\(s\)/, 'round'],
  [/^could not schedule pod\b/i, 'unschedulable'],
  [/^created (?:nodeclaim|machine)\b/, 'created'],
  [/^launched (?:nodeclaim|machine)\b/, 'launched'],
];

/** True when a raw line may be a step of a provisioning round: the prefilter lets it through. */
export const mayBeLaunchStep = (raw: string): boolean =>
  raw.includes('provisionable pod') ||
  raw.includes('created nodeclaim') ||
  raw.includes('launched nodeclaim') ||
  raw.includes('created machine') ||
  raw.includes('launched machine');

/** Follows Karpenter's provisioning rounds in one delivery and says which pods a completed launch placed. */
export class LaunchRounds {
  private current: Round | undefined;
  /** Pods named by `could not schedule pod` since the last round began (v0.3x logs them before it). */
  private unschedulable = new Set<string>();
  /** Rounds that created NodeClaims not all launched yet, oldest first. */
  private waiting: Round[] = [];

  /** Takes one record; returns the pods (`namespace/name`) that a launch it completes has placed. */
  accept(record: LogRecord): string[] {
    if (record.format !== 'zap-json' && record.format !== 'zap-console') return [];
    const step = stepOf(record);
    if (step === 'round') {
      const pods = podsOf(record.fields.Pods ?? record.fields.pods).filter((pod) => !this.unschedulable.has(pod));
      this.current = { pods: new Set(pods), claims: new Set(), launched: new Set(), spoiled: false };
      this.unschedulable.clear();
      return [];
    }
    if (step === 'unschedulable') {
      const pod = podOf(record.fields.Pod ?? record.fields.pod);
      if (pod) {
        this.unschedulable.add(pod);
        if (this.unschedulable.size > MAX_UNSCHEDULABLE) {
          this.unschedulable.delete(this.unschedulable.values().next().value!);
        }
        this.current?.pods.delete(pod);
        for (const round of this.waiting) round.pods.delete(pod);
      }
      return [];
    }
    const claim = claimOf(record.fields);
    if (step === 'created') {
      const round = this.current;
      if (!round) return [];
      if (!claim || (round.claims.size >= MAX_ROUND_CLAIMS && !round.claims.has(claim))) round.spoiled = true;
      else round.claims.add(claim);
      if (!this.waiting.includes(round)) {
        this.waiting.push(round);
        if (this.waiting.length > MAX_WAITING_ROUNDS) this.waiting.shift();
      }
      return [];
    }
    if (!claim) return [];
    const round = this.waiting.find((r) => r.claims.has(claim));
    if (!round) return [];
    if (step !== 'launched') {
      // Any other record about the NodeClaim that reads as a failure spoils its round.
      if (isFailure(record)) round.spoiled = true;
      return [];
    }
    round.launched.add(claim);
    if (round.spoiled || round.launched.size < round.claims.size) return [];
    this.waiting = this.waiting.filter((r) => r !== round);
    if (this.current === round) this.current = undefined;
    return [...round.pods];
  }
}

function stepOf(record: LogRecord): Step | 'other' {
  const message = typeof record.fields.message === 'string' ? record.fields.message : record.text;
  for (const [pattern, step] of STEPS) if (pattern.test(message)) return step;
  return 'other';
}

const isFailure = (record: LogRecord): boolean =>
  record.level === 'ERROR' ||
  record.level === 'WARN' ||
  typeof record.fields.error === 'string' ||
  /^failed launching/i.test(record.text);

/** `a/b, c/d and 3 other(s)` (Karpenter's pretty.Slice): the pods it names; a count names none. */
function podsOf(value: unknown): string[] {
  if (typeof value !== 'string') return [];
  return value
    .replace(/ and \d+ other\(s\)$/, '')
    .split(', ')
    .map((pod) => pod.trim())
    .filter((pod) => POD.test(pod));
}

/** A pod as `namespace/name`: klog's `{name, namespace}` object (v1) or a `namespace/name` string. */
function podOf(value: unknown): string | undefined {
  if (isObject(value) && typeof value.name === 'string') {
    const pod = typeof value.namespace === 'string' && value.namespace ? `${value.namespace}/${value.name}` : '';
    return POD.test(pod) ? pod : undefined;
  }
  return typeof value === 'string' && POD.test(value) ? value : undefined;
}

/** The NodeClaim a record names: `NodeClaim` (`{name}`, v0.37+), `nodeclaim`, `Machine`, `machine`. */
function claimOf(fields: Readonly<Record<string, unknown>>): string | undefined {
  for (const value of [fields.NodeClaim, fields.nodeclaim, fields.Machine, fields.machine]) {
    const name = isObject(value) ? value.name : value;
    if (typeof name === 'string' && CLAIM.test(name)) return name;
  }
  return undefined;
}

const POD = /^[a-z0-9][a-z0-9-]{0,62}\/[a-z0-9][a-z0-9.-]{0,252}$/;
const CLAIM = /^[a-z0-9][a-z0-9.-]{0,252}$/;
