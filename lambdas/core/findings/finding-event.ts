import { DETAIL_TYPES } from '../../../contracts/events';
import { isObject } from '../common/json';

/** Finding ids are 24 hex characters (`findingIdOf`); anything else is not looked up. */
const FINDING_ID = /^[0-9a-f]{24}$/;

/**
 * What the remediator takes from an incoming event: only the finding id it names, and the account,
 * region and cluster it claims (checked against the stack's own state, never trusted); or why the
 * event is not one to act on.
 */
export type FindingEventRead =
  | { ok: true; findingId: string; claimed: { account: unknown; region: unknown; cluster: unknown } }
  | { ok: false; reason: string };

/**
 * Reads an EventBridge event as a `Karpenter Finding` of this stack's source. Its own remediation
 * events, other sources, resolved findings and details without a well-formed finding id are ignored,
 * with the reason.
 */
export function readFindingEvent(event: unknown, eventSource: string): FindingEventRead {
  if (!isObject(event)) return { ok: false, reason: 'not an EventBridge event' };
  if (event.source !== eventSource) {
    return { ok: false, reason: `source ${JSON.stringify(event.source)} is not ${eventSource}` };
  }
  if (event['detail-type'] !== DETAIL_TYPES.finding) {
    return {
      ok: false,
      reason: `detail-type ${JSON.stringify(event['detail-type'])} is not ${DETAIL_TYPES.finding}`,
    };
  }
  const detail = isObject(event.detail) ? event.detail : {};
  const findingId = detail.findingId;
  if (typeof findingId !== 'string' || !FINDING_ID.test(findingId)) {
    return { ok: false, reason: 'the detail names no finding id' };
  }
  if (detail.status === 'resolved') return { ok: false, reason: 'the finding is resolved' };
  return { ok: true, findingId, claimed: { account: event.account, region: event.region, cluster: detail.cluster } };
}
