import type { Incident } from '../incidents/aggregate';

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
