import type { Incident } from '../incidents/aggregate';
import type { Entities } from '../model';
import { type ClusterSnapshot, type ObjectView, viewOf } from './snapshot';
import { CONDITIONS_OF } from './statements';

/**
 * What one poll changes, from the finding ids the previous poll saw failing and the incidents this
 * one found: the ids to remember for the next poll, and those whose failure the cluster no longer
 * states (a condition turned True, the pod was scheduled) — to resolve now rather than after the
 * quiet window. A poll that could not read the cluster is a gap, never a recovery: call this only
 * with a snapshot that was read.
 */
export function pollChanges(previous: readonly string[], incidents: readonly Incident[]): PollChanges {
  const seen = [...new Set(incidents.map((incident) => incident.findingId))].sort();
  const now = new Set(seen);
  return { seen, cleared: [...new Set(previous)].filter((id) => !now.has(id)).sort() };
}

export interface PollChanges {
  seen: string[];
  cleared: string[];
}

/** At most this many objects are named in what the cluster says now. */
const MAX_SAID = 3;

/**
 * What the cluster says now about the objects a cleared incident named, for its resolved notice:
 * each NodeClaim, NodePool and node class with the conditions it states (`Launched=True`) or gone,
 * each pod no longer pending. Read from the snapshot that no longer shows the failure.
 */
export function clusterSays(entities: Entities, snapshot: ClusterSnapshot): string {
  const said: string[] = [];
  const claims = byName(snapshot.nodeClaims);
  const pools = byName(snapshot.nodePools);
  const classes = byName(snapshot.nodeClasses);
  for (const name of entities.nodeclaims ?? []) said.push(objectSays('NodeClaim', name, claims.get(name)));
  for (const name of entities.nodepools ?? []) said.push(objectSays('NodePool', name, pools.get(name)));
  for (const name of entities.nodeclasses ?? []) said.push(objectSays('node class', name, classes.get(name)));
  const pending = new Set(
    snapshot.pods.map(viewOf).flatMap((pod) => (pod ? [`${pod.namespace ?? 'default'}/${pod.name}`] : [])),
  );
  for (const pod of entities.pods ?? [])
    said.push(pending.has(pod) ? `pod ${pod} is pending with no failure stated` : `pod ${pod} is no longer pending`);
  if (said.length === 0) return 'the cluster no longer states this failure';
  const more = said.length > MAX_SAID ? `; and ${said.length - MAX_SAID} more` : '';
  return said.slice(0, MAX_SAID).join('; ') + more;
}

function byName(items: readonly unknown[]): Map<string, ObjectView> {
  const views = new Map<string, ObjectView>();
  for (const item of items) {
    const view = viewOf(item);
    if (view) views.set(view.name, view);
  }
  return views;
}

function objectSays(kind: string, name: string, object: ObjectView | undefined): string {
  if (!object) return `${kind} ${name} is gone`;
  const watched = CONDITIONS_OF[object.kind] ?? [];
  const stated = object.conditions.filter((condition) => watched.includes(condition.type));
  const label = `${object.kind || kind} ${name}`;
  return stated.length
    ? `${label}: ${stated.map((condition) => `${condition.type}=${condition.status}`).join(', ')}`
    : `${label} states no condition`;
}
