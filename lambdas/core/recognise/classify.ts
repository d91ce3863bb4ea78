import {
  conditionStatements,
  isFailing,
  isRecoveryEvent,
  NODE_CONDITION_PHRASES,
  TRANSITION_GATES,
  TRUE_IS_FAILING,
} from './conditions';
import { ENTITY_GATES, extractEntities, isKarpenterPod } from './entities';
import type { Entities, LogRecord, Signal } from '../model';
import { logRules, type LogRule, type RuleId } from './rules';
import { GENERIC_CAPACITY_FRAGMENTS, WRAPPED_CAPACITY_CAUSES } from './rules/insufficient-instance-capacity';
import { SCHEDULING_FAILURE_FRAGMENTS } from './rules/karpenter-controller-unschedulable';
import { SubstringMatcher, type Found } from './substring-matcher';
import { PLACEMENT_MARKERS } from '../incidents/resolution';
import { FAILURE_MARKERS, isKlogError } from './unrecognised';

/**
 * What the classifier derives from the rules and the vocabularies, built on first use rather than at
 * import, so a cold start that sees no record worth parsing never pays for it.
 */
interface Tables {
  matchers: Array<LogRule['recognition'] & { rule: RuleId }>;
  schedulingRules: ReadonlySet<RuleId>;
  conditions: Map<
    string,
    Array<{ rule: RuleId; type: string; kinds?: readonly string[]; reasons?: readonly string[] }>
  >;
  /** The fragments and entity gates, the fragments first: a pattern index below `fragmentCount` is a fragment's. */
  fragmentMatcher: SubstringMatcher;
  fragmentCount: number;
  /** By pattern index: 1 for an entity gate, the patterns entity extraction looks for. */
  entityGates: Uint8Array;
  // By pattern index of the matcher: what a found pattern opens.
  clausesByFirstFragment: Array<Array<{ rule: RuleId; clause: readonly number[] }> | undefined>;
  patternsByGate: Array<Array<{ rule: RuleId; gate: string; pattern: RegExp }> | undefined>;
  phrases: Array<(typeof NODE_CONDITION_PHRASES)[string] | undefined>;
  transitionGates: readonly number[];
  schedulingFailureFragments: readonly number[];
  /** The fragments that tell a record may classify: what the prefilters look for. */
  telling: readonly string[];
  specificCapacityCauses: readonly RuleId[];
  /** By pattern index: 1 for a capacity fragment that is more than Karpenter's generic wrapper. */
  specificCapacityText: Uint8Array;
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
  const fragmentMatcher = new SubstringMatcher([...new Set([...fragments, ...ENTITY_GATES])]);
  const indexOf = (fragment: string) => fragmentMatcher.indexOf(fragment);
  const byIndex = <T>(groups: Map<string, T>): Array<T | undefined> =>
    fragmentMatcher.patterns.map((pattern) => groups.get(pattern));
  const entityGates = new Set(ENTITY_GATES);
  return {
    matchers,
    schedulingRules: new Set(matchers.filter((matcher) => matcher.schedulingReason).map((matcher) => matcher.rule)),
    conditions,
    fragmentMatcher,
    fragmentCount: fragments.length,
    entityGates: Uint8Array.from(fragmentMatcher.patterns, (pattern) => (entityGates.has(pattern) ? 1 : 0)),
    clausesByFirstFragment: byIndex(
      groupBy(
        matchers.flatMap((matcher) => matcher.clauses.map((clause) => ({ rule: matcher.rule, clause }))),
        ({ clause }) => clause[0]!,
      ),
    ).map((group) => group?.map(({ rule, clause }) => ({ rule, clause: clause.map(indexOf) }))),
    patternsByGate: byIndex(
      groupBy(
        matchers.flatMap((matcher) =>
          (matcher.patterns ?? []).map(({ gate, pattern }) => ({ rule: matcher.rule, gate, pattern })),
        ),
        ({ gate }) => gate,
      ),
    ),
    phrases: byIndex(new Map(Object.entries(NODE_CONDITION_PHRASES))),
    transitionGates: TRANSITION_GATES.map(indexOf),
    schedulingFailureFragments: SCHEDULING_FAILURE_FRAGMENTS.map(indexOf),
    telling: tellingFragments(matchers, conditions),
    specificCapacityCauses: [
      ...new Set([...matchers.filter((m) => m.refinesCapacityWrapper).map((m) => m.rule), ...WRAPPED_CAPACITY_CAUSES]),
    ],
    specificCapacityText: specificCapacityText(fragmentMatcher, matchers),
    supersedes: new Map(matchers.filter((m) => m.supersedes).map((m) => [m.rule, m.supersedes!])),
  };
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

/** Whether a rule's fragment was found, not only entity gates (which the matcher holds after the fragments). */
function holdsFragment(hits: Found, fragmentCount: number): boolean {
  for (const index of hits.indexes) if (index < fragmentCount) return true;
  return false;
}

/** Classifies one record into zero or more signals: one per distinct rule it shows. */
export function classify(record: LogRecord): Signal[] {
  const { fragmentMatcher, fragmentCount, entityGates, clausesByFirstFragment, patternsByGate } = tables();
  const { supersedes, schedulingRules } = tables();
  // Fragments and entity gates in one pass; the case of the text does not matter to the automaton.
  const hits = fragmentMatcher.findAll(record.text);
  if (!holdsFragment(hits, fragmentCount)) return [];
  // Lower-cased only for the few records a pattern or a transition is looked for in.
  let lower: string | undefined;
  const rules = new Set<RuleId>();
  // Only the clauses and patterns a found fragment opens are checked, not every rule's.
  for (const index of hits.indexes) {
    const clauses = clausesByFirstFragment[index];
    if (clauses !== undefined) {
      for (const { rule, clause } of clauses) {
        if (!rules.has(rule) && hits.hasEvery(clause)) rules.add(rule);
      }
    }
    const patterns = patternsByGate[index];
    if (patterns !== undefined) {
      for (const { rule, pattern } of patterns) {
        if (!rules.has(rule) && pattern.test((lower ??= record.text.toLowerCase()))) rules.add(rule);
      }
    }
  }
  applyPolarity(rules, record, lower, hits);
  dropGenericCapacityWrapper(rules, hits);
  if (rules.size > 0) {
    for (const rule of rules) for (const general of supersedes.get(rule) ?? []) rules.delete(general);
  }
  const schedulingFailure = isSchedulingFailure(hits);
  if (rules.size === 0 && !schedulingFailure) return [];

  const entities = extractEntities(record, hits.patterns(entityGates));
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
function dropGenericCapacityWrapper(rules: Set<RuleId>, hits: Found): void {
  if (!rules.has('insufficient-instance-capacity')) return;
  const { specificCapacityCauses, specificCapacityText } = tables();
  const specificCause = specificCapacityCauses.some((rule) => rules.has(rule));
  let onlyWrapper = true;
  for (const index of hits.indexes) if (specificCapacityText[index] === 1) onlyWrapper = false;
  if (specificCause && onlyWrapper) rules.delete('insufficient-instance-capacity');
}

function specificCapacityText(matcher: SubstringMatcher, matchers: readonly Matcher[]): Uint8Array {
  const generic = new Set(GENERIC_CAPACITY_FRAGMENTS);
  const capacity = new Set(
    matchers.filter((m) => m.rule === 'insufficient-instance-capacity').flatMap((m) => m.clauses.flat()),
  );
  return Uint8Array.from(matcher.patterns, (pattern) => (capacity.has(pattern) && !generic.has(pattern) ? 1 : 0));
}

/**
 * A condition stated failing adds its rule (`Type: SubnetsReady, Status: True -> False`,
 * `NodeHasDiskPressure`); a condition stated healthy, and not also failing, removes the rule of that
 * condition however the record named it (`NodeHasNoDiskPressure` names disk pressure). An event of
 * recovery yields nothing.
 */
function applyPolarity(rules: Set<RuleId>, record: LogRecord, lowerText: string | undefined, hits: Found): void {
  if (isRecoveryEvent(record)) {
    rules.clear();
    return;
  }
  const { transitionGates, phrases: phraseOf } = tables();
  const transition = hits.hasSome(transitionGates);
  const phrases: Array<(typeof NODE_CONDITION_PHRASES)[string]> = [];
  for (const index of hits.indexes) {
    const phrase = phraseOf[index];
    if (phrase) phrases.push(phrase);
  }
  const statements = conditionStatements(record, lowerText, transition, phrases);
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

const isSchedulingFailure = (hits: Found): boolean => hits.hasSome(tables().schedulingFailureFragments);

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

type Matcher = LogRule['recognition'] & { rule: RuleId };

/**
 * A record can only classify through a clause whose fragments are all present, a pattern's gate, a
 * scheduling failure or a condition turning False: one fragment stands for each clause (its longest,
 * the most telling), and the prefilters look for those.
 */
function tellingFragments(matchers: readonly Matcher[], conditions: Map<string, unknown>): string[] {
  return [
    ...new Set([
      ...matchers.flatMap((matcher) => [
        ...matcher.clauses.map((clause) => clause.reduce((a, b) => (b.length > a.length ? b : a))),
        ...(matcher.patterns ?? []).map((p) => p.gate),
      ]),
      ...SCHEDULING_FAILURE_FRAGMENTS,
      '-> false',
      // A condition that fails when True (DiskPressure) fires on `-> True`: its name is the telling part.
      ...matchers
        .flatMap((matcher) => matcher.conditions ?? [])
        .map(({ type }) => type)
        .filter((type) => TRUE_IS_FAILING.has(type)),
      // Phrases that state a node condition failing (`KubeletNotReady` in a describe row).
      ...Object.entries(NODE_CONDITION_PHRASES)
        .filter(([, [type, status]]) => isFailing(type, status) && conditions.has(type))
        .map(([phrase]) => phrase),
    ]),
  ];
}

/** All fragments of all rules and the entity gates: what the classifier's automaton looks for. */
export const fragments = (): readonly string[] => tables().fragmentMatcher.patterns;

/** Every raw form of the telling fragments: what `mayClassify` looks for (case-insensitively). */
export const prefilterFragments = (): readonly string[] => [...new Set(tables().telling.flatMap(rawForms))];

/** `fragments` and every raw form of the failure markers: what `worthParsing` looks for. */
const withFailureMarkers = (fragments: readonly string[]): string[] => [
  ...new Set([...fragments, ...FAILURE_MARKERS.flatMap(rawForms)]),
];

let prefilterMatcher: SubstringMatcher | undefined;
let worthParsingMatcher: SubstringMatcher | undefined;
let parseOrPlaceMatcher: SubstringMatcher | undefined;

/**
 * A cheap test on the raw message, before any parsing: false when no rule can possibly match it, so
 * the healthy bulk is never parsed. Fragments are matched on record text (JSON escapes undone), so
 * the raw message is searched for every form an encoder can write each fragment in (`rawForms`).
 */
export function mayClassify(raw: string): boolean {
  return (prefilterMatcher ??= new SubstringMatcher(prefilterFragments())).test(raw);
}

/**
 * A record is parsed when a rule may match it or when it is failure-shaped (error level, Warning
 * event, error field, AWS error), so that failures no rule knows are counted (unrecognised.ts).
 */
export function worthParsing(raw: string): boolean {
  return (
    (worthParsingMatcher ??= new SubstringMatcher(withFailureMarkers(prefilterFragments()))).test(raw) ||
    isKlogError(raw) ||
    raw.startsWith('Warning ')
  );
}

/** The pipeline's prefilter: `worthParsing`, or a line that may place a pod (its markers, case ignored). */
export function worthParsingOrPlacement(raw: string): boolean {
  return (
    isKlogError(raw) ||
    raw.startsWith('Warning ') ||
    (parseOrPlaceMatcher ??= new SubstringMatcher([
      ...new Set([...withFailureMarkers(prefilterFragments()), ...PLACEMENT_MARKERS]),
    ])).test(raw)
  );
}

const ESCAPABLE = new Set(['"', '\\', '<', '>', '&', "'", '\t']);

/**
 * The forms a fragment can take in a raw line: as it is, or with an escapable character written as an
 * escape — once escaped in a JSON line, twice in a Fluent Bit record around a JSON line. An encoder
 * writes every occurrence of a character in one string the same way, so the forms vary by character.
 */
export function rawForms(fragment: string): string[] {
  const chars = [...ESCAPABLE].filter((char) => fragment.includes(char));
  if (chars.length === 0) return [fragment];
  let choices: Array<Map<string, string>> = [new Map()];
  for (const char of chars) {
    const unicode = `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`;
    const once = jsonEscaped(char);
    const variants = [...new Set([char, unicode, jsonEscaped(unicode), once, jsonEscaped(once)])];
    choices = choices.flatMap((choice) => variants.map((variant) => new Map([...choice, [char, variant]])));
  }
  return choices.map((choice) => [...fragment].map((char) => choice.get(char) ?? char).join(''));
}

/** `text` as it reads inside a JSON string: `"` → `\"`, `\` → `\\`, a tab → `\t`. */
const jsonEscaped = (text: string): string => JSON.stringify(text).slice(1, -1);
