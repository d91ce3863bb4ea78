/**
 * The domain model shared by every stage of the pipeline: records parsed from logs, signals
 * produced by the classifier, and findings built from them.
 */

export const SEVERITIES = ['critical', 'high', 'medium', 'low'] as const;
export type Severity = (typeof SEVERITIES)[number];

/** Kinds of entity the classifier extracts from a record. Each holds a de-duplicated list of names. */
export const ENTITY_KINDS = [
  'subnets',
  'securityGroups',
  'zones',
  'instanceTypes',
  'capacityTypes',
  'nodepools',
  'nodeclasses',
  'nodeclaims',
  'nodes',
  'instances',
  'pods',
  'workloads',
  'taints',
  'labels',
  'resources',
  'volumes',
  /** StorageClasses a record names (Karpenter's `storage-class` field): never NodePools. */
  'storageClasses',
  'pdbs',
  'quotas',
  'errorCodes',
  'iamActions',
  'roles',
  'tags',
  'amis',
  'images',
  'endpoints',
  'queues',
  /** `namespace/name` of Kubernetes service accounts a record names (an API server `forbidden` names its user). */
  'serviceAccounts',
  /** Namespaces the Karpenter controller runs in, from the writing pod, its log stream or its service account. */
  'karpenterNamespaces',
  /**
   * The Karpenter API generations a record's own vocabulary shows (`karpenter.sh/v1alpha5` for
   * Provisioner/Machine, v0.31 and before; `karpenter.sh/v1beta1` for v0.32-v0.37; `karpenter.sh/v1`).
   */
  'karpenterApis',
] as const;
export type EntityKind = (typeof ENTITY_KINDS)[number];
export type Entities = Partial<Record<EntityKind, string[]>>;

/** The shapes a record can arrive in (docs/architecture.md, One delivery, step by step). */
export type RecordFormat = 'zap-json' | 'zap-console' | 'klog' | 'k8s-event' | 'kubectl-event-row' | 'plain';

/** Where a record came from, carried into evidence so a reader can find the original line. */
export interface RecordOrigin {
  logGroup?: string;
  logStream?: string;
  eventId?: string;
  /** Epoch milliseconds of the CloudWatch event, when known. */
  timestampMs?: number;
  /** 1-based line number in a local file, when known. */
  line?: number;
  file?: string;
}

export interface ObjectRef {
  kind?: string;
  namespace?: string;
  name: string;
  /**
   * Set only from Fluent Bit `kubernetes.*` metadata: the container that wrote the line ('' when the
   * metadata has none).
   */
  container?: string;
}

/** A Kubernetes Event, however it was shipped (Event JSON, kubectl table row, describe section). */
export interface EventInfo {
  reason?: string;
  type?: string;
  object?: ObjectRef;
  component?: string;
  /**
   * How many times the event happened, as its latest copy says (`count`, `series.count`,
   * `deprecatedCount`, kubectl's `(x31 over 50m)`): a re-emitted event carries a rising count.
   */
  count?: number;
  /** The Event object's own `metadata.uid`, when shipped: what tells two copies of one event apart. */
  uid?: string;
  /** The Event object's own `namespace/name` (`metadata`), when shipped. */
  name?: string;
}

/** One log record after unwrapping every envelope. */
export interface LogRecord {
  format: RecordFormat;
  /** What the classifier reads: message, error, error causes and event reason, in one string. */
  text: string;
  /** A one-line human summary used as evidence (not yet sanitised). */
  summary: string;
  /**
   * When the record says it was written, in epoch milliseconds (lambdas/core/timestamp.ts): read once
   * by the parser, rendered as ISO-8601 only in findings.
   */
  timeMs?: number;
  level?: string;
  logger?: string;
  /** Structured fields of a zap record (JSON or console), untouched. */
  fields: Readonly<Record<string, unknown>>;
  event?: EventInfo;
  /** The pod that wrote the line, from Fluent Bit `kubernetes` metadata or a kubectl prefix. */
  source?: ObjectRef;
  origin: RecordOrigin;
}

/** One cause recognised in one record. */
export interface Signal {
  rule: RuleId;
  entities: Entities;
  record: LogRecord;
  /**
   * Other rules the same record shows for the same pods, kept as causes of this one (a scheduler
   * message listing an untolerated taint and insufficient cpu is one finding, lead by the cpu).
   */
  causes?: RuleId[];
}

export type { RuleId } from './recognise/rules/ids';
import type { RuleId } from './recognise/rules/ids';
