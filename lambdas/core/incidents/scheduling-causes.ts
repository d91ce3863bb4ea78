import { CATALOG, RULE_LIST, RULES, type RuleId } from '../recognise/rules';
import type { Entities, Signal } from '../model';

/**
 * The scheduling reasons in the order they lead one finding, least first (`scheduling.leadRank`): a
 * node counted under a later filter is one the pod could use
 * (docs/architecture.md, Scheduling failures with several reasons).
 */
export const SCHEDULING_LEAD_ORDER: readonly RuleId[] = RULE_LIST.filter((rule) => rule.scheduling)
  .sort((a, b) => a.scheduling!.leadRank - b.scheduling!.leadRank)
  .map((rule) => rule.info.id);

const RANK = new Map(SCHEDULING_LEAD_ORDER.map((rule, index) => [rule, index]));

/**
 * The signals of one record with its scheduling reasons merged: one signal, of the reason that
 * leads, carrying the others as `causes` (most telling first). Other signals are returned unchanged.
 */
export function mergeSchedulingCauses(signals: Signal[]): Signal[] {
  if (signals.length < 2) return signals;
  // Loops, not filter/reduce/flatMap: this runs on every record that classifies (npm run bench).
  let lead: Signal | undefined;
  let scheduling = 0;
  for (const signal of signals) {
    const rank = RANK.get(signal.rule);
    if (rank === undefined) continue;
    scheduling++;
    if (lead === undefined || rank > RANK.get(lead.rule)!) lead = signal;
  }
  if (scheduling < 2) return signals;
  // The causes most telling first: inserted in place by rank, in the order given among equal ranks
  // (what a stable sort gives), into an array of its final length. A record states a handful of
  // reasons: a sort's setup cost more than these comparisons.
  const causes: RuleId[] = new Array<RuleId>(scheduling - 1);
  let found = 0;
  for (const signal of signals) {
    if (signal === lead) continue;
    const rank = RANK.get(signal.rule);
    if (rank === undefined) continue;
    let at = found++;
    for (; at > 0 && RANK.get(causes[at - 1]!)! < rank; at--) causes[at] = causes[at - 1]!;
    causes[at] = signal.rule;
  }
  // Built member by member (a spread of the lead cost more than merging the rest).
  const leading: Signal = { rule: lead!.rule, entities: lead!.entities, record: lead!.record, causes };
  if (scheduling === signals.length) return [leading];
  const merged: Signal[] = [];
  for (const signal of signals) {
    if (signal === lead) merged.push(leading);
    else if (!RANK.has(signal.rule)) merged.push(signal);
  }
  return merged;
}

/**
 * One sentence naming the other reasons the same scheduling events gave (empty without causes), for
 * the diagnosis of the finding they are merged into.
 */
export function causesSentence(causes: readonly RuleId[] | undefined, entities: Entities): string {
  if (!causes?.length) return '';
  const phrases = causes.map(
    (cause) => RULES[cause].scheduling?.asCause(entities) ?? CATALOG[cause].title.toLowerCase(),
  );
  return `The same scheduling events also report that ${joinAnd(phrases)}.`;
}

function joinAnd(phrases: string[]): string {
  if (phrases.length < 2) return phrases.join('');
  return `${phrases.slice(0, -1).join('; ')}; and ${phrases[phrases.length - 1]}`;
}
