import type { RuleId } from '../recognise/rules/ids';
import type { ActionId } from '../../../contracts/remediation';

/**
 * Which automatic action each rule may trigger (docs/architecture.md, One delivery, step by step). The
 * remediator acts on what this says, never on what an event claims. The quotas a request may name are in
 * `contracts/quota-codes.ts`, where the stack can read them too.
 */
export const ACTIONS_BY_RULE: Partial<Record<RuleId, readonly ActionId[]>> = {
  'karpenter-controller-unschedulable': ['raise-system-nodegroup'],
  'ec2-quota-exceeded': ['request-quota-increase'],
  'subnet-ip-exhaustion': ['plan-subnet-capacity'],
  'subnet-ip-headroom-low': ['plan-subnet-capacity'],
};

/** The actions a rule may trigger (none for most). */
export const actionsOf = (rule: RuleId): readonly ActionId[] => ACTIONS_BY_RULE[rule] ?? [];
