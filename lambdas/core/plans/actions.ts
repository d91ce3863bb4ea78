import { RULES, type RuleId } from '../recognise/rules';
import type { ActionId } from '../../../contracts/remediation';

/**
 * The automatic actions a rule may trigger (its module's `actions`; none for most). The remediator
 * acts on what this says, never on what an event claims. The quotas a request may name are in
 * `contracts/quota-codes.ts`, where the stack can read them too.
 */
export const actionsOf = (rule: RuleId): readonly ActionId[] => RULES[rule].actions ?? [];
