import type { RuleId } from './catalog';
import type { ActionId } from './diagnose';

/**
 * Which automatic action each rule may trigger, and the only EC2 quotas a quota request may name
 * (DESIGN §6). The remediator acts on what these say, never on what an event claims; the stack scopes
 * its IAM policy with the same lists. Constants only, so `lib/` may import them.
 */
export const ACTIONS_BY_RULE: Partial<Record<RuleId, readonly ActionId[]>> = {
  'karpenter-controller-unschedulable': ['raise-system-nodegroup'],
  'ec2-quota-exceeded': ['request-quota-increase'],
  'subnet-ip-exhaustion': ['plan-subnet-capacity'],
  'subnet-ip-headroom-low': ['plan-subnet-capacity'],
};

/**
 * The EC2 quotas `ec2-quota-exceeded` may raise: running On-Demand instances and all Spot requests,
 * for the Standard, G and VT, and P families (Service Quotas, quota codes of service `ec2`).
 */
export const RAISABLE_QUOTA_CODES: readonly string[] = [
  'L-1216C47A',
  'L-34B43A08',
  'L-DB2E81BA',
  'L-3819A6DF',
  'L-417A185B',
  'L-7212CCBC',
];

/** The actions a rule may trigger (none for most). */
export const actionsOf = (rule: RuleId): readonly ActionId[] => ACTIONS_BY_RULE[rule] ?? [];
