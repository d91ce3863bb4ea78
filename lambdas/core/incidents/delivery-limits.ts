import { DEFAULT_NOTIFICATIONS } from '../../../contracts/defaults';

/**
 * How much of one delivery is notified and recorded (digest.ts decides with these). A module of its
 * own, so that reading the settings does not load the rule catalog that digest.ts needs.
 */
export interface DeliveryLimits {
  /** Notices of their own per cluster per delivery; the rest go into the cluster's digest. */
  maxNoticesPerCluster: number;
  /** Notices per cluster per hour, digests included; the rest waits for the next hour. */
  maxNoticesPerHour: number;
  /** Incidents recorded one by one per delivery; the rest are only counted in the digest. */
  maxIncidentsPerDelivery: number;
  /** Calls to one AWS service in flight at the same time. */
  concurrency: number;
}

/** The configuration's default notifications, and eight calls in flight. */
export const DEFAULT_LIMITS: DeliveryLimits = {
  maxNoticesPerCluster: DEFAULT_NOTIFICATIONS.maxNoticesPerDelivery,
  maxNoticesPerHour: DEFAULT_NOTIFICATIONS.maxNoticesPerHour,
  maxIncidentsPerDelivery: DEFAULT_NOTIFICATIONS.maxIncidentsPerDelivery,
  concurrency: 8,
};

/** Time kept back from the function timeout for publishing after the enrichment. */
export const PUBLISH_RESERVE_MS = 10_000;
/** The least time the enrichment gets, however little is left: a finding with no live state helps less. */
export const MIN_ENRICH_BUDGET_MS = 1_000;

/**
 * How long the enrichment of one delivery may take: the configured budget, cut so that publishing
 * still has PUBLISH_RESERVE_MS of the invocation's remaining time, never under MIN_ENRICH_BUDGET_MS.
 */
export function enrichBudgetMs(configuredMs: number, remainingMs: number): number {
  return Math.max(MIN_ENRICH_BUDGET_MS, Math.min(configuredMs, remainingMs - PUBLISH_RESERVE_MS));
}
