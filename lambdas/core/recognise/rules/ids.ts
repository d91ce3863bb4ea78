// The rule ids are generated from the rule files (`npm run generate`): adding a rule is adding its file.
export { RULE_IDS, type RuleId } from './ids.generated';
