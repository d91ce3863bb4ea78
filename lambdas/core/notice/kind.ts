import { CATALOG, type RuleId } from '../recognise/rules';
import type { IncidentState, PendingNotification } from '../incidents/lifecycle';
import type { NoticeOf } from './chat';

/**
 * Which notice of an incident a publish is: a severity rise or newly affected resources escalate it
 * (and say what changed); the re-notify interval is a reminder; the sweep's notice resolves it.
 */
export function noticeOfDue(
  state: Pick<IncidentState, 'severity' | 'affected'>,
  notify: PendingNotification,
): NoticeOf {
  const generation = notify.generation;
  if (notify.status === 'resolved') {
    const closes = (notify.closes ?? []).map((c) => `the ${relatedWarningText(c)}`);
    return {
      kind: 'resolved',
      generation,
      ...(notify.said === undefined ? {} : { changed: notify.said }),
      ...(closes.length ? { closes } : {}),
    };
  }
  if (notify.reason === 'severity') return { kind: 'escalated', generation, changed: `severity now ${state.severity}` };
  if (notify.reason === 'affected') {
    const shown = state.affected.slice(-3).join(', ');
    return { kind: 'escalated', generation, changed: `now ${state.affected.length} affected (latest: ${shown})` };
  }
  return { kind: notify.reason === 'interval' ? 'reminder' : 'new', generation };
}

/** `warning "subnets low on IPs" on the same subnets, open since …, (finding …)`: a related incident in words. */
export function relatedWarningText(related: { rule: RuleId; openedAt: number; findingId: string }): string {
  return `warning "${CATALOG[related.rule].shortTitle}" on the same subnets, open since ${new Date(related.openedAt).toISOString()} (finding ${related.findingId})`;
}
