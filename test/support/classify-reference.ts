/**
 * The classifier as it was before its automaton gave its hits as indexes (issue 17), kept verbatim as
 * the reference test/core/classify-reference.test.ts holds the fast one to: its own work after the
 * scan (hits as a set of strings, clauses and polarity looked up by fragment) over
 * ReferenceSubstringMatcher. The vocabularies, rules and entity extractor are the analyzer's own.
 * Not used by the analyzer.
 */
import {
  CONDITION_TRANSITION,
  DESCRIBE_CONDITION_ROW,
  isFailing,
  isRecoveryEvent,
  NODE_CONDITION_PHRASES,
  TRANSITION_GATES,
  type ConditionStatement,
  type Status,
} from '../../lambdas/core/conditions';
import { ENTITY_GATES, extractEntities, isKarpenterPod } from '../../lambdas/core/entities';
import type { Entities, LogRecord, Signal } from '../../lambdas/core/model';
import { logRules, type LogRule, type RuleId } from '../../lambdas/core/rules';
import { GENERIC_CAPACITY_FRAGMENTS } from '../../lambdas/core/rules/insufficient-instance-capacity';
import { SCHEDULING_FAILURE_FRAGMENTS } from '../../lambdas/core/rules/karpenter-controller-unschedulable';
import { ReferenceSubstringMatcher } from './substring-matcher-reference';

interface Tables {
  matchers: Array<LogRule['recognition'] & { rule: RuleId }>;
  schedulingRules: ReadonlySet<RuleId>;
  conditions: Map<
    string,
    Array<{ rule: RuleId; type: string; kinds?: readonly string[]; reasons?: readonly string[] }>
  >;
  clausesByFirstFragment: Map<string, Array<{ rule: RuleId; clause: readonly string[] }>>;
  patternsByGate: Map<string, Array<{ rule: RuleId; gate: string; pattern: RegExp }>>;
  fragmentSet: ReadonlySet<string>;
  fragmentMatcher: ReferenceSubstringMatcher;
  specificCapacityCauses: readonly RuleId[];
  capacityFragments: ReadonlySet<string>;
  supersedes: Map<RuleId, readonly RuleId[]>;
}

let tablesMemo: Tables | undefined;
const tables = (): Tables => (tablesMemo ??= buildTables());

function buildTables(): Tables {
  const matchers = logRules().map(({ info, recognition }) => ({ rule: info.id, ...recognition }));
  const conditions = groupBy(
    matchers.flatMap((matcher) =>
      (matcher.conditions ?? []).map(({ type, kinds, reasons }) => ({ rule: matcher.rule, type, kinds, reasons })),
    ),
    ({ type }) => type,
  );
  const fragments = [
    ...new Set([
      ...matchers.flatMap((matcher) => [...matcher.clauses.flat(), ...(matcher.patterns ?? []).map((p) => p.gate)]),
      ...SCHEDULING_FAILURE_FRAGMENTS,
      ...TRANSITION_GATES,
      ...Object.keys(NODE_CONDITION_PHRASES),
    ]),
  ].sort((a, b) => b.length - a.length);
  return {
    matchers,
    schedulingRules: new Set(matchers.filter((matcher) => matcher.schedulingReason).map((matcher) => matcher.rule)),
    conditions,
    clausesByFirstFragment: groupBy(
      matchers.flatMap((matcher) => matcher.clauses.map((clause) => ({ rule: matcher.rule, clause }))),
      ({ clause }) => clause[0]!,
    ),
    patternsByGate: groupBy(
      matchers.flatMap((matcher) =>
        (matcher.patterns ?? []).map(({ gate, pattern }) => ({ rule: matcher.rule, gate, pattern })),
      ),
      ({ gate }) => gate,
    ),
    fragmentSet: new Set(fragments),
    fragmentMatcher: new ReferenceSubstringMatcher([...new Set([...fragments, ...ENTITY_GATES])], 3),
    specificCapacityCauses: matchers.filter((m) => m.refinesCapacityWrapper).map((m) => m.rule),
    capacityFragments: new Set(
      matchers.filter((m) => m.rule === 'insufficient-instance-capacity').flatMap((m) => m.clauses.flat()),
    ),
    supersedes: new Map(matchers.filter((m) => m.supersedes).map((m) => [m.rule, m.supersedes!])),
  };
}

function someIn(found: ReadonlySet<string>, wanted: ReadonlySet<string>): boolean {
  for (const item of found) if (wanted.has(item)) return true;
  return false;
}

function groupBy<T>(items: T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const group = groups.get(key(item));
    if (group) group.push(item);
    else groups.set(key(item), [item]);
  }
  return groups;
}

/** Classifies one record into zero or more signals: one per distinct rule it shows. */
export function referenceClassify(record: LogRecord): Signal[] {
  const { fragmentMatcher, fragmentSet, clausesByFirstFragment, patternsByGate, supersedes, schedulingRules } =
    tables();
  // Fragments and entity gates in one pass; the case of the text does not matter to the automaton.
  const hits = fragmentMatcher.findAll(record.text);
  if (!someIn(hits, fragmentSet)) return [];
  // Lower-cased only for the few records a pattern or a transition is looked for in.
  let lower: string | undefined;
  const rules = new Set<RuleId>();
  // Only the clauses and patterns a found fragment opens are checked, not every rule's.
  for (const fragment of hits) {
    const clauses = clausesByFirstFragment.get(fragment);
    if (clauses !== undefined) {
      for (const { rule, clause } of clauses) {
        if (!rules.has(rule) && clause.every((other) => hits.has(other))) rules.add(rule);
      }
    }
    const patterns = patternsByGate.get(fragment);
    if (patterns !== undefined) {
      for (const { rule, pattern } of patterns) {
        if (!rules.has(rule) && pattern.test((lower ??= record.text.toLowerCase()))) rules.add(rule);
      }
    }
  }
  applyPolarity(rules, record, () => (lower ??= record.text.toLowerCase()), hits);
  dropGenericCapacityWrapper(rules, hits);
  if (rules.size > 0) {
    for (const rule of rules) for (const general of supersedes.get(rule) ?? []) rules.delete(general);
  }
  const schedulingFailure = isSchedulingFailure(hits);
  if (rules.size === 0 && !schedulingFailure) return [];

  const entities = extractEntities(record, hits);
  if (schedulingFailure && (entities.pods ?? []).some(isKarpenterPod)) {
    // Karpenter cannot place its own controller: whatever the scheduler's reasons, the fix is capacity
    // for the controller outside Karpenter (seed §1). The reasons stay in the entities.
    for (const rule of schedulingRules) rules.delete(rule);
    rules.add('karpenter-controller-unschedulable');
  }
  const signals: Signal[] = [];
  for (const rule of rules) signals.push({ rule, entities: entitiesFor(rule, entities), record });
  return signals;
}

/**
 * Karpenter wraps several fleet errors as "insufficient capacity" (VcpuLimitExceeded,
 * InsufficientFreeAddressesInSubnet, …). When the wrapper is the only capacity text and a more
 * specific cause is present, the specific cause is the diagnosis.
 */
function dropGenericCapacityWrapper(rules: Set<RuleId>, hits: ReadonlySet<string>): void {
  if (!rules.has('insufficient-instance-capacity')) return;
  const { specificCapacityCauses, capacityFragments } = tables();
  const specificCause = specificCapacityCauses.some((rule) => rules.has(rule));
  const onlyWrapper = [...hits].every((fragment) => !capacityFragments.has(fragment) || GENERIC_CAPACITY.has(fragment));
  if (specificCause && onlyWrapper) rules.delete('insufficient-instance-capacity');
}

const GENERIC_CAPACITY = new Set(GENERIC_CAPACITY_FRAGMENTS);

/**
 * A condition stated failing adds its rule (`Type: SubnetsReady, Status: True -> False`,
 * `NodeHasDiskPressure`); a condition stated healthy, and not also failing, removes the rule of that
 * condition however the record named it (`NodeHasNoDiskPressure` names disk pressure). An event of
 * recovery yields nothing.
 */
function applyPolarity(
  rules: Set<RuleId>,
  record: LogRecord,
  lowerText: () => string,
  hits: ReadonlySet<string>,
): void {
  if (isRecoveryEvent(record)) {
    rules.clear();
    return;
  }
  const statements = conditionStatements(record, lowerText, hits);
  if (statements.length === 0) return;
  const failing = new Set<RuleId>();
  const healthy = new Set<RuleId>();
  for (const { type, status, kind, reason } of statements) {
    const rule = conditionRule(type, reason, kind);
    if (!rule) continue;
    if (isFailing(type, status)) failing.add(rule);
    else if (status !== 'unknown') healthy.add(rule);
  }
  for (const rule of healthy) if (!failing.has(rule)) rules.delete(rule);
  for (const rule of failing) rules.add(rule);
}

/**
 * The rule a condition type means: the entry for its reason, else the one for the object's kind,
 * else the plain one. An entry narrowed to other reasons never applies.
 */
function conditionRule(type: string, reason: string | undefined, kind: string | undefined): RuleId | undefined {
  const entries = (tables().conditions.get(type) ?? []).filter(
    (entry) => !entry.reasons || (reason !== undefined && entry.reasons.includes(reason)),
  );
  return (
    entries.find((entry) => entry.reasons) ??
    entries.find((entry) => kind !== undefined && entry.kinds?.includes(kind)) ??
    entries.find((entry) => !entry.kinds)
  )?.rule;
}

const isSchedulingFailure = (hits: ReadonlySet<string>): boolean =>
  SCHEDULING_FAILURE_FRAGMENTS.some((fragment) => hits.has(fragment));

/** Karpenter's own pods are the subject of the controller rule; other signals keep every entity. */
function entitiesFor(rule: RuleId, entities: Entities): Entities {
  if (rule !== 'karpenter-controller-unschedulable') return entities;
  const pods = (entities.pods ?? []).filter(isKarpenterPod);
  return {
    ...entities,
    pods,
    workloads: (entities.workloads ?? []).filter((w) => /\/karpenter(?:-controller)?$/.test(w)),
  };
}

/**
 * Every condition a record states. `lowerText` gives the lower-cased record text (made only when a
 * transition is looked for) and `hits` the fragments found in it; phrases are the kubelet's, so they
 * are about a node.
 */
export function conditionStatements(
  record: LogRecord,
  lowerText: () => string,
  hits: ReadonlySet<string>,
): ConditionStatement[] {
  const statements: ConditionStatement[] = [];
  if (hits.has(TRANSITION_GATES[0]) || hits.has(TRANSITION_GATES[1])) {
    const transition = CONDITION_TRANSITION.exec(lowerText());
    if (transition)
      statements.push({
        type: transition[1]!,
        status: transition[2] as Status,
        kind: objectKindOf(record),
        reason: transition[3],
      });
  }
  for (const fragment of hits) {
    const phrase = NODE_CONDITION_PHRASES[fragment];
    if (phrase) statements.push({ type: phrase[0], status: phrase[1], kind: 'node' });
  }
  // A describe row does not say whose condition it is (a Node's Ready or a NodePool's), so it only
  // ever counts as health; its reason column (`KubeletNotReady`) says the failure.
  if (mayBeDescribeRow(record.text)) {
    const row = DESCRIBE_CONDITION_ROW.exec(record.text);
    const rowType = row?.[1]!.toLowerCase();
    const rowStatus = row?.[2]!.toLowerCase() as Status | undefined;
    if (rowType && rowStatus && !isFailing(rowType, rowStatus))
      statements.push({ type: rowType, status: rowStatus, kind: objectKindOf(record) });
  }
  return statements;
}

const objectKindOf = (record: LogRecord): string | undefined => record.event?.object?.kind?.toLowerCase();

/**
 * Whether DESCRIBE_CONDITION_ROW can match: its type starts, after at most eight blanks, with a capital
 * letter. Most records start otherwise, and are not handed to the expression.
 */
function mayBeDescribeRow(text: string): boolean {
  for (let i = 0; i < text.length && i <= 8; i++) {
    const code = text.charCodeAt(i);
    if (code >= 65 && code <= 90) return true;
    if (!WHITE_SPACE.test(text[i]!)) return false;
  }
  return false;
}

const WHITE_SPACE = /\s/;
