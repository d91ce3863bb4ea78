import { CATALOG, type RuleId } from '../recognise/rules';

/** What broke, in the few words a phone shows of a subject line (each rule's `info.shortTitle`). */
export const shortTitleOf = (rule: RuleId): string => CATALOG[rule].shortTitle;
