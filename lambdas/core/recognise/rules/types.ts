import type { Facts } from '../../advice/facts';
import type { Diagnosis } from '../../advice/types';
import type { ActionId } from '../../../../contracts/remediation';
import type { Entities, EntityKind, Severity } from '../../model';
import type { RuleId } from './ids';

/** The kind of problem a rule is about: how `karpenter-doctor rules` and the README group the catalog. */
export const RULE_FAMILIES = [
  'scheduling',
  'capacity',
  'network',
  'storage',
  'node',
  'workload',
  'aws-access',
  'configuration',
  'disruption',
  'control-plane',
] as const;
export type RuleFamily = (typeof RULE_FAMILIES)[number];

/** A rule's catalog entry: what `karpenter-doctor rules` and the README table show. */
export interface RuleInfo<E extends 'logs' | 'headroom' = 'logs' | 'headroom'> {
  id: RuleId;
  title: string;
  /** What broke in the few words a phone shows of a subject line. */
  shortTitle: string;
  severity: Severity;
  /** Section of the seed article (1-13), or where the rule comes from when the seed does not cover it. */
  source: number | 'beyond' | 'proactive';
  family: RuleFamily;
  /** What emits the rule: the log classifier, or the scheduled headroom check. */
  emittedBy: E;
  /** One line: what the rule recognises. */
  recognises: string;
  /**
   * The entity that separates one incident from another inside a cluster. Signals without it share
   * the cluster-wide incident of their rule.
   */
  keyEntity?: EntityKind;
}

/**
 * How a log rule is recognised, on the lower-cased record text (message, error, causes, event reason), never on
 * the level: real failures are logged at INFO, healthy lines at ERROR. It matches when all fragments of one clause
 * occur; fragments are stable pieces of the emitters' error text (codes, Go error wrapping), so they generalise
 * across versions. A pattern is for a shape that needs a number or a bracket: gated by a fragment, linear-time
 * (test/core/regex-safety.test.ts).
 */
export interface Recognition {
  clauses: ReadonlyArray<readonly string[]>;
  patterns?: ReadonlyArray<{ gate: string; pattern: RegExp }>;
  /**
   * Status condition types (lower case) whose transition to False means this rule; `reasons` narrows
   * one to the transitions with those reasons and `kinds` to the involved objects of those kinds (all
   * lower case). An entry with matching reasons wins, then one with a matching kind, then a plain one.
   */
  conditions?: ReadonlyArray<{ type: string; kinds?: readonly string[]; reasons?: readonly string[] }>;
  /**
   * Rules this one is the more specific cause of: when both fire on one record, only this one is kept
   * (refused node credentials are the bootstrap failure's cause; refused AWS credentials, not a policy).
   */
  supersedes?: readonly RuleId[];
  /**
   * Fragments that say the record is the context this rule is decided in by classify.ts (a scheduling
   * failure, for the Karpenter-controller rule), rather than the rule itself.
   */
  context?: readonly string[];
  /** A reason why a pod could not be scheduled: for a Karpenter pod it is the controller rule instead. */
  schedulingReason?: true;
  /** A specific cause that Karpenter wraps as "insufficient capacity": it stands for the generic wrapper. */
  refinesCapacityWrapper?: true;
}

/**
 * The article the catalog started from, by its published title: the AWS Knowledge Center article on
 * troubleshooting Karpenter scaling in Amazon EKS, in its Spanish edition.
 */
export const SEED_ARTICLE =
  'AWS Knowledge Center, "¿Cómo soluciono los problemas de escalamiento de clústeres con el escalamiento automático de Karpenter en Amazon EKS?"';

/** The source of an example quoted from section n of the seed article, with what differs from the quote. */
export const seedSection = (section: number, note?: string): string =>
  `seed §${section} (${SEED_ARTICLE})${note ? `: ${note}` : ''}`;

/** A line the rule must fire on, or stay silent on, and where it comes from. */
export interface Example {
  line: string;
  /**
   * A URL, `repo@tag:path`, `seed §n` (section n of the AWS Knowledge Center article on troubleshooting
   * Karpenter scaling, in Spanish, that the catalog started from), or
   * `constructed from <the emitter's message template>`.
   */
  source: string;
}

interface RuleCommon {
  /** Rule + entities + live context → what happened, why, and the commands that fix it. */
  diagnose(facts: Facts): Diagnosis;
  /**
   * The severity of one incident when its evidence shows it is less serious than the catalog's
   * (a Pricing API that cannot be reached while EC2 can): the id stays, the page does not.
   */
  severity?(entities: Entities): Severity;
  /** The live AWS state its finding reads: the enrichment describes only these. @default none */
  enrichment?: readonly LiveFact[];
  /** Automatic actions its finding may trigger: the remediator acts on these, never on an event's word. @default none */
  actions?: readonly ActionId[];
  /** The entity whose growth is an escalation (a second subnet running dry). @default severity alone escalates */
  escalatesOn?: EntityKind;
  /**
   * Failures reported per workload: incidents are keyed on the entity kind naming their cause (the
   * taint, the resource), or on nothing when the cluster has one such cause (null). @default keyed on `keyEntity`
   */
  perWorkloadCause?: EntityKind | null;
  /** Its signals are about pods that cannot be placed: a later placement of the pod resolves them. */
  resolvedByPlacement?: true;
  /** A reason a pod cannot be scheduled, ranked against the others of one record. */
  scheduling?: SchedulingReason;
  /**
   * Words (letters and digits, case-sensitive) of the default subscription filter that let its lines
   * through where no level word does: its EC2 codes, event reasons (contracts/filter-terms.generated.ts).
   */
  filterTerms?: readonly string[];
}

/** Live AWS facts the enrichment can add to a finding. */
export type LiveFact = 'subnets' | 'nodegroups' | 'quota';

/** A reason kube-scheduler or Karpenter gives for a pod it cannot place, merged with the others of its record. */
export interface SchedulingReason {
  /** Which reason leads a merged finding: the higher (scheduling-causes.ts says why the order is this). */
  leadRank: number;
  /** What it says as one of the causes of a finding another reason leads. */
  asCause(entities: Entities): string;
}

/** A rule the log classifier emits: it cannot exist without recognition and examples. */
export interface LogRule extends RuleCommon {
  info: RuleInfo<'logs'>;
  recognition: Recognition;
  examples: {
    fires: readonly [Example, ...Example[]];
    /** Healthy lines of the same emitters that must not yield this rule. */
    silent: readonly Example[];
  };
}

/** The proactive rule of the headroom check: no log line yields it. */
export interface HeadroomRule extends RuleCommon {
  info: RuleInfo<'headroom'>;
  recognition?: never;
  examples?: never;
}

export type RuleModule = LogRule | HeadroomRule;

/** Each fragment its own clause: any one of them is enough. */
export const anyOf = (...fragments: string[]): string[][] => fragments.map((fragment) => [fragment]);

/** Types a rule module: a log rule without recognition or a firing example does not compile. */
export function defineRule(module: LogRule): LogRule;
export function defineRule(module: HeadroomRule): HeadroomRule;
export function defineRule(module: RuleModule): RuleModule {
  return module;
}
