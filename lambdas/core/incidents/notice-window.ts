import type { DigestMember } from './digest';

/**
 * Notices per cluster per hour (issue 32): a storm that delivers every few seconds for an hour
 * costs a bounded number of notices, digests included. One summary item per cluster and window
 * remembers what was sent and which over-the-limit (untracked) incidents were announced, so their
 * later occurrences are counted, not announced again. The decisions here are pure; the store keeps
 * the item (IncidentStore.noticeWindow / addToNoticeWindow).
 */

/** The length of a window. */
export const NOTICE_WINDOW_MS = 60 * 60_000;

/** What one cluster's window holds so far. */
export interface NoticeWindow {
  /** Notices (findings and digests) published in the window. */
  notices: number;
  /** Untracked incidents already announced in a digest of the window. */
  announced: ReadonlySet<string>;
}

export const EMPTY_WINDOW: NoticeWindow = { notices: 0, announced: new Set() };

/** The start of the window `now` falls in (epoch milliseconds, on the hour). */
export const windowStartOf = (now: number): number => now - (now % NOTICE_WINDOW_MS);

/** The untracked members not yet announced in the window, and those that were (only counted). */
export function splitAnnounced(
  members: readonly DigestMember[],
  window: NoticeWindow,
): { fresh: DigestMember[]; repeat: DigestMember[] } {
  const fresh: DigestMember[] = [];
  const repeat: DigestMember[] = [];
  for (const member of members) (window.announced.has(member.findingId) ? repeat : fresh).push(member);
  return { fresh, repeat };
}

/** How one cluster's due notifications of a delivery may be sent. */
export interface WindowPlan {
  /** Notices of their own, at most. */
  individual: number;
  /** Whether a digest may go out for the rest. */
  digest: boolean;
}

/**
 * The share of a cluster's window one delivery may use: `candidates` due notifications and `fresh`
 * untracked incidents, `maxPerDelivery` notices of their own at most, `maxPerHour` in the window.
 * A digest is planned only when something is left for it, and counts against the window like a notice;
 * what neither takes waits for the next window (the incidents stay due in the store).
 */
export function planWindow(
  candidates: number,
  fresh: number,
  window: NoticeWindow,
  limits: { maxPerDelivery: number; maxPerHour: number },
): WindowPlan {
  const budget = Math.max(0, limits.maxPerHour - window.notices);
  const alone = Math.min(limits.maxPerDelivery, budget);
  if (candidates <= alone && fresh === 0) return { individual: candidates, digest: false };
  if (budget === 0) return { individual: 0, digest: false };
  // Keep one of the budget for the digest of the rest.
  return { individual: Math.min(limits.maxPerDelivery, budget - 1, candidates), digest: true };
}
