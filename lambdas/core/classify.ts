import {
  conditionStatements,
  isFailing,
  isRecoveryEvent,
  NODE_CONDITION_PHRASES,
  type Status,
  TRANSITION_GATES,
  TRUE_IS_FAILING,
} from './conditions';
import { ENTITY_GATES, extractEntities, isKarpenterPod } from './entities';
import { PREFILTER_FRAGMENTS } from './prefilter.generated';
import type { Entities, LogRecord, Signal } from './model';
import { logRules, type LogRule, type RuleId } from './rules';
import { GENERIC_CAPACITY_FRAGMENTS, WRAPPED_CAPACITY_CAUSES } from './rules/insufficient-instance-capacity';
import { SCHEDULING_FAILURE_FRAGMENTS } from './rules/karpenter-controller-unschedulable';
import { type Found, SubstringMatcher } from './substring-matcher';
import { PLACEMENT_MARKERS } from './resolution';
import { FAILURE_MARKERS, isKlogError } from './unrecognised';

/**
 * Everything the classifier derives from the rules and the vocabularies (fragment lists, indexes,
 * automata), built on first use rather than at import: a Lambda cold start that sees no record worth
 * parsing never pays for it, and one that does pays once, on its first such record (npm run bench,
 * cold start).
 */
interface Tables {
  /** Each log rule's recognition under its id: the data every index below is built from (lambdas/core/rules). */
  matchers: Array<LogRule['recognition'] & { rule: RuleId }>;
  /**
   * The log rules' ids; the tables below name a rule by its index here (a number, kept in a list
   * reused from record to record instead of a set made for each).
   */
  ruleIds: readonly RuleId[];
  /** Rule id → its index in `ruleIds`. */
  ruleIndex: ReadonlyMap<RuleId, number>;
  /** Rules that describe why a pod could not be scheduled; for a Karpenter pod they are one cause. */
  schedulingRules: readonly number[];
  /** Condition type → the rules it means, each narrowed or not to involved-object kinds. */
  conditions: Map<
    string,
    Array<{ rule: RuleId; type: string; kinds?: readonly string[]; reasons?: readonly string[] }>
  >;
  fragments: readonly string[];
  /**
   * The fragments and the entity extractor's gates as one automaton: every fragment and gate present,
   * nested and overlapping ones too, in one pass over the record. The tables below are by the index of
   * a pattern in its list (what `scan` finds), so a record's hits are tested without hashing.
   */
  fragmentMatcher: SubstringMatcher;
  /**
   * Pattern → what it is to the classifier, as bits (`ROLE`): a rule's fragment (not only an entity
   * gate), a scheduling failure's, a transition's gate, a specific capacity fragment, a condition
   * phrase. One pass over a record's hits ORs them together.
   */
  roles: Uint8Array;
  /**
   * The clauses each pattern is the first fragment of (a clause can only hold when it was found), in
   * one array: pattern p's run from `clauseStart[p]` to `clauseStart[p + 1]`, each clause as its
   * rule, its number of fragments and its fragments' indexes.
   */
  clauseStart: Int32Array;
  clauseData: Int32Array;
  /**
   * Pattern → the rules' patterns it gates, each (a pattern for lower-cased text) with its twin for
   * an ASCII text as it is (`caselessTwin`), or the same pattern where it has none.
   */
  patternsByGate: Array<Array<{ rule: number; pattern: RegExp; ascii: RegExp | undefined }> | undefined>;
  /** Pattern → the condition it states when it is one of NODE_CONDITION_PHRASES. */
  conditionPhrases: Array<readonly [type: string, status: Status] | undefined>;
  /** The fragments that tell a record may classify: what the prefilters look for (`prefilterLists`). */
  telling: readonly string[];
  specificCapacityCauses: readonly number[];
  /** Rule → the more general rules it replaces on the same record (`recognition.supersedes`). */
  supersedes: Array<readonly number[] | undefined>;
  /** The indexes of karpenter-controller-unschedulable and insufficient-instance-capacity. */
  controllerUnschedulable: number;
  insufficientCapacity: number;
}

/** The bits of `Tables.roles`. */
const ROLE = {
  fragment: 1,
  /** One of SCHEDULING_FAILURE_FRAGMENTS. */
  schedulingFailure: 2,
  /** One of TRANSITION_GATES. */
  transition: 4,
  /** A fragment of insufficient-instance-capacity other than its generic wrapper. */
  specificCapacity: 8,
  /** One of NODE_CONDITION_PHRASES. */
  conditionPhrase: 16,
} as const;

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
  // All fragments of all rules, found in one pass over a record by one automaton.
  const fragments = [
    ...new Set([
      ...matchers.flatMap((matcher) => [...matcher.clauses.flat(), ...(matcher.patterns ?? []).map((p) => p.gate)]),
      ...SCHEDULING_FAILURE_FRAGMENTS,
      ...TRANSITION_GATES,
      ...Object.keys(NODE_CONDITION_PHRASES),
    ]),
  ].sort((a, b) => b.length - a.length);
  // A record can only classify through a clause whose fragments are all present, a pattern's gate, a
  // scheduling-failure fragment or a condition turning False. So one fragment stands for each clause
  // (its longest, the most telling), and the prefilter looks for those.
  const telling = [
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
  const patterns = [...new Set([...fragments, ...ENTITY_GATES])];
  const indexOf = new Map(patterns.map((pattern, index) => [pattern, index]));
  const index = (pattern: string): number => indexOf.get(pattern)!;
  /** Pattern index → what `entries` put under it. */
  const byPattern = <T>(entries: Array<readonly [string, T]>): T[] => {
    const table: T[] = new Array<T>(patterns.length);
    for (const [pattern, value] of entries) table[index(pattern)] = value;
    return table;
  };
  const roles = new Uint8Array(patterns.length);
  const role = (wanted: Iterable<string>, bit: number): void => {
    for (const pattern of wanted) roles[index(pattern)]! |= bit;
  };
  // Every rule the classifier can name: the log rules, and those it adds or removes by name.
  const ruleIds = [
    ...new Set<RuleId>([
      ...matchers.map((m) => m.rule),
      ...matchers.flatMap((m) => m.supersedes ?? []),
      'karpenter-controller-unschedulable',
      'insufficient-instance-capacity',
    ]),
  ];
  const ruleIndex = new Map(ruleIds.map((rule, index) => [rule, index]));
  const ruleOf = (rule: RuleId): number => ruleIndex.get(rule)!;
  /** Rule index → what `entries` put under its id (the last entry for it). */
  const byRule = <T>(entries: Array<readonly [RuleId, T]>): Array<T | undefined> => {
    const table = new Array<T | undefined>(ruleIds.length).fill(undefined);
    for (const [rule, value] of entries) table[ruleOf(rule)] = value;
    return table;
  };
  const capacityFragments = matchers
    .filter((m) => m.rule === 'insufficient-instance-capacity')
    .flatMap((m) => m.clauses.flat());
  role(fragments, ROLE.fragment);
  role(SCHEDULING_FAILURE_FRAGMENTS, ROLE.schedulingFailure);
  role(TRANSITION_GATES, ROLE.transition);
  role(
    capacityFragments.filter((fragment) => !GENERIC_CAPACITY.has(fragment)),
    ROLE.specificCapacity,
  );
  role(Object.keys(NODE_CONDITION_PHRASES), ROLE.conditionPhrase);
  return {
    matchers,
    ruleIds,
    ruleIndex,
    schedulingRules: [...new Set(matchers.filter((matcher) => matcher.schedulingReason).map((m) => ruleOf(m.rule)))],
    conditions,
    fragments,
    // Complete rows only near the root (45 KB, not 1.5 MB): between one record's scan and the next the
    // pipeline evicts a large table from cache (filtered stream 6.5–10.9× the floor with it, 11.3–12.0×
    // with every row; the prefilter, which scans line after line, keeps every row).
    fragmentMatcher: new SubstringMatcher(patterns, 3),
    roles,
    ...clauseTables(
      byPattern([
        ...groupBy(
          matchers.flatMap((matcher) =>
            matcher.clauses.map((clause) => ({ rule: ruleOf(matcher.rule), clause: clause.map(index) })),
          ),
          ({ clause }) => patterns[clause[0]!]!,
        ),
      ]),
    ),
    patternsByGate: byPattern(
      [
        ...groupBy(
          matchers.flatMap((matcher) =>
            (matcher.patterns ?? []).map(({ gate, pattern }) => ({ rule: ruleOf(matcher.rule), gate, pattern })),
          ),
          ({ gate }) => gate,
        ),
      ].map(
        ([gate, entries]) =>
          [gate, entries.map(({ rule, pattern }) => ({ rule, pattern, ascii: caselessTwin(pattern) }))] as const,
      ),
    ),
    conditionPhrases: byPattern(Object.entries(NODE_CONDITION_PHRASES)),
    telling,
    specificCapacityCauses: [
      ...new Set([...matchers.filter((m) => m.refinesCapacityWrapper).map((m) => m.rule), ...WRAPPED_CAPACITY_CAUSES]),
    ].map(ruleOf),
    supersedes: byRule(matchers.filter((m) => m.supersedes).map((m) => [m.rule, m.supersedes!.map(ruleOf)] as const)),
    controllerUnschedulable: ruleOf('karpenter-controller-unschedulable'),
    insufficientCapacity: ruleOf('insufficient-instance-capacity'),
  };
}

/**
 * A rule's pattern (written for lower-cased text) as a pattern that ignores case, which on an ASCII
 * text holds exactly where the pattern holds on the text lower-cased: for ASCII, lower-casing only
 * maps A-Z to a-z, and ignoring case only lets A-Z match where a-z is written. Undefined (the text is
 * then lower-cased) for a pattern that writes an ASCII capital (`[A-Z]` would differ) or an escape
 * other than a class, a boundary, a blank or a punctuation mark (`\x41` is a capital too), or already ignores
 * case or reads Unicode (its case folding is wider).
 */
export function caselessTwin(pattern: RegExp): RegExp | undefined {
  const { source, flags } = pattern;
  // (`g` and `y` would make `test` depend on the last one: neither pattern may have them.)
  if (/[iuvgy]/.test(flags)) return undefined;
  // Escapes other than classes, boundaries and blanks (`\x41`, `\u0041`, `\cA`, `\k<A>`) may write a capital.
  if (/\\[A-Za-z0-9]/.test(source.replace(/\\[bBdDsSwWnrtfv]|\\[^A-Za-z0-9]/g, ''))) return undefined;
  if (/[A-Z]/.test(source.replace(/\\./g, ''))) return undefined;
  return new RegExp(source, `${flags}i`);
}

/** `clauseStart` and `clauseData` (see `Tables`) from each pattern's clauses. */
function clauseTables(byFirst: Array<Array<{ rule: number; clause: readonly number[] }> | undefined>): {
  clauseStart: Int32Array;
  clauseData: Int32Array;
} {
  const clauseStart = new Int32Array(byFirst.length + 1);
  const data: number[] = [];
  for (let pattern = 0; pattern < byFirst.length; pattern++) {
    clauseStart[pattern] = data.length;
    for (const { rule, clause } of byFirst[pattern] ?? []) data.push(rule, clause.length, ...clause);
  }
  clauseStart[byFirst.length] = data.length;
  return { clauseStart, clauseData: Int32Array.from(data) };
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

/** All fragments of all rules, longest first (nested and overlapping fragments included). */
export const fragments = (): readonly string[] => tables().fragments;

/**
 * What the prefilters look for, derived from the rules and vocabularies: every raw form of the telling
 * fragments (`prefilter`, for `mayClassify`), and of those and the failure markers (`worthParsing`).
 * Deriving them (and the tables they come from) cost the first record of a cold start more than the
 * import of the whole analyzer, so the functions use the same lists generated at build time
 * (prefilter.generated.ts holds the telling fragments' forms, `npm run generate:prefilter`; a test fails
 * when they differ from these).
 */
export function prefilterLists(): { prefilter: string[]; worthParsing: string[] } {
  const prefilter = [...new Set(tables().telling.flatMap(rawForms))];
  return { prefilter, worthParsing: withFailureMarkers(prefilter) };
}

/**
 * `fragments` and every raw form of the failure markers: what `worthParsing` looks for. Only the
 * telling fragments' forms are generated; the markers are few and cheap to expand.
 */
function withFailureMarkers(fragments: readonly string[]): string[] {
  return [...new Set([...fragments, ...FAILURE_MARKERS.flatMap(rawForms)])];
}

/** Every raw form of the fragments the prefilter looks for (case-insensitively). */
export const prefilterFragments = (): readonly string[] => PREFILTER_FRAGMENTS;

let prefilterMatcher: SubstringMatcher | undefined;
let worthParsingMatcher: SubstringMatcher | undefined;
/** worthParsing's fragments and the placement markers, for the pipeline's prefilter (one pass). */
let parseOrPlaceMatcher: SubstringMatcher | undefined;

/**
 * A cheap test on the raw message, before any parsing: false when no rule can possibly match it, so
 * the healthy bulk is never parsed. Every fragment is matched on record text, which is the raw text
 * with JSON (or double JSON, in Fluent Bit records) escapes undone; so the test looks for each
 * fragment in every form an encoder can write it in (`rawForms`). A fragment found in the record
 * text is therefore always found here (a property test checks it).
 */
export function mayClassify(raw: string): boolean {
  return (prefilterMatcher ??= new SubstringMatcher(PREFILTER_FRAGMENTS)).test(raw);
}

const ESCAPABLE = new Set(['"', '\\', '<', '>', '&', "'"]);

/**
 * The prefilter of the pipeline: a record is parsed when a rule may match it or when it is
 * failure-shaped (error level, Warning event, error field, AWS error), so that failures no rule
 * knows are counted (lambdas/core/unrecognised.ts). One automaton pass, as for `mayClassify`.
 */
export function worthParsing(raw: string): boolean {
  return (
    (worthParsingMatcher ??= new SubstringMatcher(withFailureMarkers(PREFILTER_FRAGMENTS))).test(raw) ||
    isKlogError(raw) ||
    raw.startsWith('Warning ')
  );
}

/**
 * The pipeline's prefilter: `worthParsing`, or a line that may place a pod (`mayBePlacement`, whose
 * markers are found here with case ignored: a few more lines parsed, none missed), in one automaton
 * pass over the line instead of that pass and two more searches.
 */
export function worthParsingOrPlacement(raw: string): boolean {
  // The tests on the first characters first: a kept klog error or Warning row is not scanned.
  return (
    isKlogError(raw) ||
    raw.startsWith('Warning ') ||
    (parseOrPlaceMatcher ??= new SubstringMatcher(parseOrPlaceFragments())).test(raw)
  );
}

/**
 * What `worthParsingOrPlacement` looks for with its automaton (its other tests are on the line's first
 * characters); the delivery decoder looks for the same in the JSON of the envelope
 * (lambdas/core/envelope-fragments.generated.ts).
 */
export const parseOrPlaceFragments = (): string[] => [
  ...new Set([...withFailureMarkers(PREFILTER_FRAGMENTS), ...PLACEMENT_MARKERS]),
];

/**
 * The forms a fragment can take in a raw line: as it is, or with an escapable character (quote,
 * backslash, `<`, `>`, `&`, apostrophe) written as an escape — once escaped in a JSON line, twice in a
 * Fluent Bit record around a JSON line. An encoder writes every occurrence of a character in one
 * string the same way, so the forms vary by character, not by occurrence: `"level":"error"` has 5
 * forms, not 5⁴ (which made the prefilter's automaton ten times larger and its first build the
 * largest part of a cold start).
 */
export function rawForms(fragment: string): string[] {
  const chars = [...ESCAPABLE].filter((char) => fragment.includes(char));
  // Most fragments hold no escapable character: they are their only form.
  if (chars.length === 0) return [fragment];
  // One choice of escape per character, applied to every occurrence of it at once.
  let choices: Array<Map<string, string>> = [new Map()];
  for (const char of chars) {
    const code = char.charCodeAt(0).toString(16).padStart(4, '0');
    const variants = [char, `\\u${code}`, `\\\\u${code}`, `\\${char}`, `\\\\\\${char}`];
    choices = choices.flatMap((choice) => variants.map((variant) => new Map([...choice, [char, variant]])));
  }
  return choices.map((choice) => [...fragment].map((char) => choice.get(char) ?? char).join(''));
}

/** Classifies one record into zero or more signals: one per distinct rule it shows. */
export function classify(record: LogRecord): Signal[] {
  const t = tables();
  // Fragments and entity gates in one pass; the case of the text does not matter to the automaton.
  return classifyFound(record, t.fragmentMatcher.scan(record.text), t);
}

/**
 * `classify` of each record, in order (the same signals): the records' texts go to the automaton's
 * pass many at a time (`SubstringMatcher.scanEach`), each record then classified from what its text
 * holds.
 */
export function classifyAll(records: readonly LogRecord[]): Signal[][] {
  // A delivery of healthy lines keeps no record: its tables and automaton are not built for it.
  if (records.length === 0) return [];
  const t = tables();
  const signals = new Array<Signal[]>(records.length);
  const texts = new Array<string>(records.length);
  for (let i = 0; i < records.length; i++) texts[i] = records[i]!.text;
  t.fragmentMatcher.scanEach(texts, (index, hits) => {
    signals[index] = classifyFound(records[index]!, hits, t);
  });
  return signals;
}

/**
 * The signals of a record whose text holds `hits` (the matcher's own object, valid until its next
 * scan: nothing below keeps it).
 */
function classifyFound(record: LogRecord, hits: Found, t: Tables): Signal[] {
  const { roles, clauseStart, clauseData, patternsByGate, supersedes } = t;
  const { order, count } = hits;
  // What the patterns found are, together (`ROLE`).
  let found = 0;
  for (let i = 0; i < count; i++) found |= roles[order[i]! - 1]!;
  if ((found & ROLE.fragment) === 0) return [];
  // Lower-cased only for the few records a pattern or a transition is looked for in.
  let lower: string | undefined;
  // The rules found so far, in the order found: a list reused from record to record (what a set of
  // ids was, insertion order, deletions and all), emptied here; nothing below keeps it.
  const rules = ruleList;
  rules.count = 0;
  // Only the clauses and patterns a found fragment opens are checked, not every rule's; in the order
  // the fragments were found, which is the order of the rules and so of the signals.
  for (let i = 0; i < count; i++) {
    const fragment = order[i]! - 1;
    // Each clause: its rule, its length, its fragments, the first of them this one (found).
    for (let at = clauseStart[fragment]!, end = clauseStart[fragment + 1]!; at < end;) {
      const rule = clauseData[at]!;
      const next = at + 2 + clauseData[at + 1]!;
      if (!rules.has(rule)) {
        let holds = true;
        for (let f = at + 3; f < next && holds; f++) holds = hits.hasIndex(clauseData[f]!);
        if (holds) rules.add(rule);
      }
      at = next;
    }
    const patterns = patternsByGate[fragment];
    if (patterns !== undefined) {
      for (let p = 0; p < patterns.length; p++) {
        const { rule, pattern, ascii } = patterns[p]!;
        if (rules.has(rule)) continue;
        // An ASCII text is not lower-cased for it: its caseless twin reads the text as it is.
        const holds =
          hits.ascii && ascii !== undefined
            ? ascii.test(record.text)
            : pattern.test((lower ??= record.text.toLowerCase()));
        if (holds) rules.add(rule);
      }
    }
  }
  applyPolarity(rules, record, lower, hits, found, t);
  dropGenericCapacityWrapper(rules, found, t);
  // As over a set: a rule removed before its turn has none.
  for (let i = 0; i < rules.count; i++) {
    const general = supersedes[rules.ids[i]!];
    if (general === undefined) continue;
    for (let g = 0; g < general.length; g++) {
      const at = rules.indexOf(general[g]!);
      if (at < 0) continue;
      rules.removeAt(at);
      if (at <= i) i--;
    }
  }
  const schedulingFailure = (found & ROLE.schedulingFailure) !== 0;
  if (rules.count === 0 && !schedulingFailure) return [];

  const entities = extractEntities(record, hits);
  if (schedulingFailure && (entities.pods ?? []).some(isKarpenterPod)) {
    // Karpenter cannot place its own controller: whatever the scheduler's reasons, the fix is capacity
    // for the controller outside Karpenter (seed §1). The reasons stay in the entities.
    for (const rule of t.schedulingRules) rules.remove(rule);
    rules.add(t.controllerUnschedulable);
  }
  const signals: Signal[] = [];
  const { ruleIds } = t;
  for (let i = 0; i < rules.count; i++) {
    const rule = ruleIds[rules.ids[i]!]!;
    signals.push({ rule, entities: entitiesFor(rule, entities), record });
  }
  return signals;
}

/**
 * Rules by index, in the order added: the few a record shows, as a set of them would hold them (an
 * index added once, at the end; removed wherever it is). One list, reused by every classification.
 */
class RuleList {
  readonly ids = new Int32Array(256);
  count = 0;

  indexOf(rule: number): number {
    for (let i = 0; i < this.count; i++) if (this.ids[i] === rule) return i;
    return -1;
  }

  has(rule: number): boolean {
    return this.indexOf(rule) >= 0;
  }

  add(rule: number): void {
    if (this.indexOf(rule) < 0) this.ids[this.count++] = rule;
  }

  remove(rule: number): void {
    const at = this.indexOf(rule);
    if (at >= 0) this.removeAt(at);
  }

  removeAt(at: number): void {
    this.ids.copyWithin(at, at + 1, this.count);
    this.count--;
  }
}

const ruleList = new RuleList();

/**
 * Karpenter wraps several fleet errors as "insufficient capacity" (VcpuLimitExceeded,
 * InsufficientFreeAddressesInSubnet, …). When the wrapper is the only capacity text and a more
 * specific cause is present, the specific cause is the diagnosis.
 */
function dropGenericCapacityWrapper(rules: RuleList, found: number, t: Tables): void {
  // Only the wrapper: no specific capacity fragment found.
  if ((found & ROLE.specificCapacity) !== 0 || !rules.has(t.insufficientCapacity)) return;
  const { specificCapacityCauses } = t;
  let specificCause = false;
  for (let i = 0; i < specificCapacityCauses.length && !specificCause; i++)
    specificCause = rules.has(specificCapacityCauses[i]!);
  if (specificCause) rules.remove(t.insufficientCapacity);
}

const GENERIC_CAPACITY = new Set(GENERIC_CAPACITY_FRAGMENTS);

/**
 * A condition stated failing adds its rule (`Type: SubnetsReady, Status: True -> False`,
 * `NodeHasDiskPressure`); a condition stated healthy, and not also failing, removes the rule of that
 * condition however the record named it (`NodeHasNoDiskPressure` names disk pressure). An event of
 * recovery yields nothing.
 */
function applyPolarity(
  rules: RuleList,
  record: LogRecord,
  lowerText: string | undefined,
  hits: Found,
  found: number,
  t: Tables,
): void {
  if (isRecoveryEvent(record)) {
    rules.count = 0;
    return;
  }
  let phrases: Array<readonly [string, Status]> | undefined;
  if ((found & ROLE.conditionPhrase) !== 0) {
    const { conditionPhrases } = t;
    for (let i = 0; i < hits.count; i++) {
      const phrase = conditionPhrases[hits.order[i]! - 1];
      if (phrase !== undefined) (phrases ??= []).push(phrase);
    }
  }
  const transition = (found & ROLE.transition) !== 0;
  const statements = conditionStatements(record, lowerText, transition, phrases ?? NO_PHRASES);
  if (statements.length === 0) return;
  const failing = new Set<number>();
  const healthy = new Set<number>();
  for (const { type, status, kind, reason } of statements) {
    const rule = conditionRule(type, reason, kind);
    if (!rule) continue;
    const index = t.ruleIndex.get(rule)!;
    if (isFailing(type, status)) failing.add(index);
    else if (status !== 'unknown') healthy.add(index);
  }
  for (const rule of healthy) if (!failing.has(rule)) rules.remove(rule);
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

const NO_PHRASES: ReadonlyArray<readonly [string, Status]> = [];

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
