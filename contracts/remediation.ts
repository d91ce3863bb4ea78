/**
 * Remediation modes and action ids: the configuration states them, the stack turns the rule and the
 * role on by them, and the remediator acts by them.
 */

/** What an action may do: nothing, tell what it would change, or change it. */
export const REMEDIATION_MODES = ['off', 'dry-run', 'apply'] as const;
export type RemediationMode = (typeof REMEDIATION_MODES)[number];

/** Subnet capacity is only ever planned: its action has no `apply`. */
export const PLAN_MODES = ['off', 'dry-run'] as const satisfies readonly RemediationMode[];
export type PlanMode = (typeof PLAN_MODES)[number];

/**
 * The automatic remediation actions, by the configuration key that turns each on; the value is the
 * id a finding's remediation step names (and the remediation rule matches on).
 */
export const ACTION_IDS = {
  raiseSystemNodegroup: 'raise-system-nodegroup',
  requestQuotaIncrease: 'request-quota-increase',
  planSubnetCapacity: 'plan-subnet-capacity',
} as const;

export type ActionKey = keyof typeof ACTION_IDS;
/** An automatic remediation action; off unless the operator turns it on. */
export type ActionId = (typeof ACTION_IDS)[ActionKey];
