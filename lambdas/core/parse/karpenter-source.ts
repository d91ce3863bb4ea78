import { DEFAULT_KARPENTER_SOURCES } from '../../../contracts/defaults';
import type { LogRecord, ObjectRef } from '../model';

/**
 * Only Karpenter's voice counts (issues 12 and 32). A record is analysed when its source is proven:
 * Fluent Bit `kubernetes.*` metadata naming a configured namespace and container (never a pod label,
 * which anyone who may create a pod can set), or a log group whose every writer the configuration
 * vouches for. Kubernetes Events count only from the events log group or a configured event exporter:
 * any pod can print Event JSON. In a shared group a record whose metadata cannot be read is foreign.
 * docs/fluent-bit-metadata.md says which Fluent Bit settings keep the metadata.
 */
export interface KarpenterSources {
  /** Namespaces Karpenter runs in. */
  namespaces: string[];
  /** Container names of the Karpenter controller. */
  containers: string[];
  /** Log groups every pod writes to (`*`: any characters). @default Container Insights' application groups */
  sharedLogGroups?: string[];
  /** Log groups only a Kubernetes Events collector writes to. @default ['*\/kubernetes-events'] */
  eventLogGroups?: string[];
  /** The pod that prints Kubernetes Events into a shared group (an event exporter). @default none */
  eventExporters?: { namespaces: string[]; containers: string[] };
  /**
   * Who may write to the log group of the records judged, from `logGroupKind`. Unset: the records are
   * input a user chose (the CLI), judged by their metadata alone, Events always kept.
   */
  group?: LogGroupKind;
}

/**
 * `events`: only an Events collector writes there; `shared`: every pod; `dedicated`: the writers the
 * configuration lists the group for (Karpenter, an Events collector, a node agent), so a record without
 * metadata is theirs.
 */
export type LogGroupKind = 'events' | 'shared' | 'dedicated';

/** The configuration's default sources. */
export const DEFAULT_SOURCES: KarpenterSources = {
  namespaces: [...DEFAULT_KARPENTER_SOURCES.namespaces],
  containers: [...DEFAULT_KARPENTER_SOURCES.containers],
};

/** Who may write to `logGroup`, by the configured names (events first, then shared, else dedicated). */
export function logGroupKind(logGroup: string, sources: KarpenterSources): LogGroupKind {
  const events = sources.eventLogGroups ?? DEFAULT_KARPENTER_SOURCES.eventLogGroups;
  if (events.some((pattern) => globMatches(pattern, logGroup))) return 'events';
  const shared = sources.sharedLogGroups ?? DEFAULT_KARPENTER_SOURCES.sharedLogGroups;
  if (shared.some((pattern) => globMatches(pattern, logGroup))) return 'shared';
  return 'dedicated';
}

/** The sources to judge the records of one delivery from `logGroup` by. */
export function sourcesOfGroup(sources: KarpenterSources, logGroup: string): KarpenterSources {
  return { ...sources, group: logGroupKind(logGroup, sources) };
}

/** True when the record's source is proven to be Karpenter (or, for an Event, the events collector). */
export function isKarpenterRecord(record: LogRecord, sources: KarpenterSources): boolean {
  const pod = podOf(record.source);
  const group = sources.group;
  if (record.format === 'k8s-event') {
    if (pod !== undefined) return writtenBy(pod, sources.eventExporters ?? NOBODY);
    // Without metadata only the group vouches for a record: any pod may write to a shared one.
    return group !== 'shared';
  }
  if (pod !== undefined) return writtenBy(pod, sources);
  return group === undefined || group === 'dedicated';
}

const NOBODY = { namespaces: [], containers: [] };

/** The pod of Fluent Bit metadata; a kubectl prefix (no `container`) proves nothing and is not one. */
function podOf(source: ObjectRef | undefined): ObjectRef | undefined {
  return source?.container === undefined ? undefined : source;
}

function writtenBy(pod: ObjectRef, allowed: { namespaces: readonly string[]; containers: readonly string[] }): boolean {
  if (pod.namespace === undefined || !allowed.namespaces.includes(pod.namespace)) return false;
  // Metadata without a container name (some Fluent Bit setups) is judged by its namespace alone.
  return pod.container === '' || allowed.containers.includes(pod.container!);
}

/** `*` matches any run of characters, everything else itself. */
function globMatches(pattern: string, name: string): boolean {
  const parts = pattern.split('*');
  if (parts.length === 1) return pattern === name;
  const first = parts[0]!;
  const last = parts[parts.length - 1]!;
  if (!name.startsWith(first) || name.length < first.length + last.length || !name.endsWith(last)) return false;
  let at = first.length;
  const end = name.length - last.length;
  for (let i = 1; i < parts.length - 1; i++) {
    const found = name.indexOf(parts[i]!, at);
    if (found < 0 || found + parts[i]!.length > end) return false;
    at = found + parts[i]!.length;
  }
  return true;
}
