/**
 * What karpenter-doctor puts on EventBridge: the `source` of every event and the `detail-type`s, the
 * stable names that remediation rules and consumers match on.
 */

/** The `source` of every event karpenter-doctor puts: reverse-DNS, never `aws.` (AWS reserves it). */
export const EVENT_SOURCE = 'io.karpenter-doctor';

export const DETAIL_TYPES = {
  finding: 'Karpenter Finding',
  resolved: 'Karpenter Finding Resolved',
  remediation: 'Karpenter Remediation',
} as const;

/**
 * Why a `Karpenter Finding` event goes out (`detail.reason`): a finding first seen, an escalation
 * (with `detail.changed`), a reminder after the re-notify interval, or its resolution.
 */
export const FINDING_EVENT_REASONS = ['open', 'escalation', 'reminder', 'resolved'] as const;
export type FindingEventReason = (typeof FINDING_EVENT_REASONS)[number];
