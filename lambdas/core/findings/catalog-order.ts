import { RULE_IDS, type RuleId } from '../recognise/rules';

const POSITION = new Map<RuleId, number>(RULE_IDS.map((id, index) => [id, index]));

/** Sorts rule ids in catalog order, so output is stable and reads in the catalog's sequence. */
export const CATALOG_ORDER = (a: RuleId, b: RuleId): number => POSITION.get(a)! - POSITION.get(b)!;
