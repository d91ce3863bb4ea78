import { Facts } from '../../advice/facts';
import { forKarpenterApi } from '../../advice/karpenter-api';
import { karpenterApiOf } from '../../common/karpenter-api';
import type { DiagnoseInput, Diagnosis } from '../../advice/types';
import { RULE_IDS, type RuleId } from './ids';
import { RULE_MODULES } from './registry.generated';
import type { LogRule, RuleInfo, RuleModule } from './types';
import { vocabularyFor } from '../vocabulary';
import type { Entities, Severity } from '../../model';

export { RULE_IDS, type RuleId } from './ids';
export type { LiveFact, LogRule, RuleFamily, RuleInfo, RuleModule } from './types';

/**
 * The registry: every rule module under its id (registry.generated.ts, from the files of this folder
 * by `npm run generate`); test/core/recognise/rules.test.ts walks every module.
 */
export const RULES: Readonly<Record<RuleId, RuleModule>> = RULE_MODULES;

/** Every rule in catalog order. */
export const RULE_LIST: readonly RuleModule[] = RULE_IDS.map((id) => RULES[id]);

/**
 * The rules the log classifier emits, in catalog order, each recognising its module's own terms and
 * the closed vocabularies mapped to it (EC2 error codes, event reasons, CNI and kubelet messages,
 * Karpenter's message templates: lambdas/core/vocabulary).
 */
export const logRules = (): readonly LogRule[] =>
  (logRulesMemo ??= RULE_LIST.filter((rule): rule is LogRule => rule.info.emittedBy === 'logs').map(withVocabulary));

/** Built on first use: the vocabularies' patterns are compiled when a record is first classified, not at import. */
let logRulesMemo: readonly LogRule[] | undefined;

function withVocabulary(rule: LogRule): LogRule {
  const vocabulary = vocabularyFor(rule.info.id);
  const own = new Set(rule.recognition.clauses.map((clause) => clause.join('\u0000')));
  const patterns = [...(rule.recognition.patterns ?? []), ...vocabulary.patterns];
  return {
    ...rule,
    recognition: {
      ...rule.recognition,
      clauses: [...rule.recognition.clauses, ...vocabulary.clauses.filter((clause) => !own.has(clause.join('\u0000')))],
      ...(patterns.length > 0 ? { patterns } : {}),
    },
  };
}

/** The catalog view: id → entry (README, "Rule catalog"). */
export const CATALOG: Readonly<Record<RuleId, RuleInfo>> = Object.fromEntries(
  RULE_LIST.map((rule) => [rule.info.id, rule.info]),
) as Record<RuleId, RuleInfo>;

/**
 * The severity of one incident: the rule's, unless the rule reads a different one in the incident's
 * entities (RuleCommon.severity). Findings, the incident store and every ordering use this one.
 */
export function severityOf(incident: { rule: RuleId; entities: Entities }): Severity {
  return RULES[incident.rule].severity?.(incident.entities) ?? CATALOG[incident.rule].severity;
}

/**
 * Rule + entities + live context → what happened, why, and the commands that fix it, filled in
 * with the real names. Remedies follow the seed article for its scenarios and AWS / Karpenter /
 * Kubernetes documentation beyond it. Names that come from logs are quoted for the shell. Commands
 * name the kinds and chart values of the Karpenter API generation the records show.
 */
export function diagnose(input: DiagnoseInput): Diagnosis {
  return forKarpenterApi(RULES[input.rule].diagnose(new Facts(input)), karpenterApiOf(input.entities));
}
