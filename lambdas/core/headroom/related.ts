import { clusterScopeOf } from '../decode/account';
import { findingIdOf } from '../incidents/aggregate';
import { isLive, resolveIncident, type IncidentState } from '../incidents/lifecycle';
import type { RuleId } from '../recognise/rules/ids';

/**
 * A subnet running low (`subnet-ip-headroom-low`, from the headroom check) and a subnet out of IPs
 * (`subnet-ip-exhaustion`, from the logs) are one problem at two stages. While the exhaustion
 * incident of a cluster is open, it is the one thread for the subnets it names: the headroom check
 * pages only for the others, the exhaustion incident resolves once the check sees its subnets
 * recovered, and its resolution closes the headroom incident of the same subnets.
 */

/** The rule of the log path whose subnets the headroom check folds into. */
export const EXHAUSTION_RULE: RuleId = 'subnet-ip-exhaustion';

/** The rule the headroom check raises. */
export const HEADROOM_RULE: RuleId = 'subnet-ip-headroom-low';

/** The id of a cluster's exhaustion incident (keyed per cluster, as the analyzer records it). */
export const exhaustionIdOf = (cluster: string, account?: string): string =>
  findingIdOf(cluster, EXHAUSTION_RULE, undefined, account);

/** The id of a cluster's headroom incident (keyed per cluster, as the headroom check records it). */
export const headroomIdOf = (cluster: string, account?: string): string =>
  findingIdOf(cluster, HEADROOM_RULE, undefined, account);

/** True when the incident is open and kept. */
export const isOpen = (state: IncidentState | undefined, now: number): state is IncidentState =>
  state !== undefined && state.status === 'open' && isLive(state, now);

/**
 * True when an exhaustion incident speaks for `subnet`: it names it, or names no subnet at all (a CNI
 * line without a subnet id is about every subnet of the cluster).
 */
export function speaksFor(exhaustion: Pick<IncidentState, 'entities'>, subnet: string): boolean {
  const named = exhaustion.entities.subnets ?? [];
  return named.length === 0 || named.includes(subnet);
}

/**
 * The assessments the headroom incident pages for: an open exhaustion incident of the cluster
 * already pages for the subnets it speaks for, so those are not low for the headroom incident.
 */
export function unfoldedAssessments<A extends { facts: { subnetId: string }; verdict?: unknown }>(
  assessed: readonly A[],
  exhaustion: IncidentState | undefined,
  now: number,
): A[] {
  if (!isOpen(exhaustion, now)) return [...assessed];
  return assessed.map((a) => (a.verdict && speaksFor(exhaustion, a.facts.subnetId) ? { ...a, verdict: undefined } : a));
}

/** True when two incidents of one cluster name a subnet in common (an exhaustion naming none names all). */
export function sameSubnets(
  exhaustion: Pick<IncidentState, 'entities'>,
  headroom: Pick<IncidentState, 'entities'>,
): boolean {
  const subnets = headroom.entities.subnets ?? [];
  return subnets.length === 0 || subnets.some((s) => speaksFor(exhaustion, s));
}

/** What the sweep knows of the other incidents when it decides one: the pairs of the same subnets. */
export interface SweepRelations {
  /** The open exhaustion incident of each cluster scope. */
  exhaustion: ReadonlyMap<string, IncidentState>;
  /** The open headroom incident of each cluster scope. */
  headroom: ReadonlyMap<string, IncidentState>;
  /** Open headroom incidents that a resolved exhaustion incident says it closed, by finding id. */
  closedBy: ReadonlyMap<string, IncidentState>;
}

export const NO_RELATIONS: SweepRelations = { exhaustion: new Map(), headroom: new Map(), closedBy: new Map() };

/** The relations among every stored incident, read once per sweep. */
export function relationsOf(states: readonly IncidentState[], headroomRule: RuleId, now: number): SweepRelations {
  const exhaustion = new Map<string, IncidentState>();
  const headroom = new Map<string, IncidentState>();
  for (const state of states) {
    if (!isOpen(state, now)) continue;
    if (state.rule === EXHAUSTION_RULE) exhaustion.set(clusterScopeOf(state), state);
    if (state.rule === headroomRule) headroom.set(clusterScopeOf(state), state);
  }
  const closedBy = new Map<string, IncidentState>();
  for (const state of states) {
    if (state.rule !== EXHAUSTION_RULE || state.status !== 'resolved' || !isLive(state, now)) continue;
    for (const closed of state.pending?.closes ?? []) {
      const open = headroom.get(clusterScopeOf(state));
      // A headroom incident opened again after this resolution is a new one, not the one it closed.
      if (open?.findingId === closed.findingId && open.openedAt <= (state.resolvedAt ?? 0))
        closedBy.set(open.findingId, state);
    }
  }
  return { exhaustion, headroom, closedBy };
}

/**
 * A headroom incident closed by the resolution of the exhaustion incident of the same subnets: resolved,
 * with its EventBridge event still to put and no notice of its own (the exhaustion notice says it).
 */
export function closedWith(headroom: IncidentState, now: number): IncidentState {
  const state = resolveIncident(headroom, now).state;
  return { ...state, pending: { ...state.pending!, snsDone: true } };
}

/**
 * The open headroom warning that a first notice of an exhaustion incident follows: the same cluster and
 * a subnet in common. The notice links it instead of paging as if unrelated.
 */
export function followedWarning(
  exhaustion: Pick<IncidentState, 'rule' | 'entities'>,
  headroom: IncidentState | undefined,
  now: number,
): IncidentState | undefined {
  if (exhaustion.rule !== EXHAUSTION_RULE || !isOpen(headroom, now)) return undefined;
  return sameSubnets(exhaustion, headroom) ? headroom : undefined;
}
