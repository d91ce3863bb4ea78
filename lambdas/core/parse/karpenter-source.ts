import { DEFAULT_KARPENTER_SOURCES } from '../../../contracts/defaults';
import type { LogRecord } from '../model';

/**
 * Only Karpenter's lines count (issue 12). A shared application log group (Container Insights'
 * `/aws/containerinsights/<cluster>/application`) holds every container's lines, and any pod can print
 * "InsufficientFreeAddressesInSubnet". Records that carry Fluent Bit `kubernetes.*` metadata are
 * analysed only when they come from a configured Karpenter namespace and container — not from a pod
 * label, which anyone who may create a pod can set; Kubernetes Event records always are, since the API server, not a
 * pod, writes them. Records without metadata (a log group of Karpenter's alone, kubectl output) are
 * analysed as before.
 */
export interface KarpenterSources {
  /** Namespaces Karpenter runs in. */
  namespaces: string[];
  /** Container names of the Karpenter controller. */
  containers: string[];
}

/** The configuration's default sources. */
export const DEFAULT_SOURCES: KarpenterSources = {
  namespaces: [...DEFAULT_KARPENTER_SOURCES.namespaces],
  containers: [...DEFAULT_KARPENTER_SOURCES.containers],
};

/** True when the record is Karpenter's (or a Kubernetes Event, or carries no pod metadata). */
export function isKarpenterRecord(record: LogRecord, sources: KarpenterSources): boolean {
  if (record.format === 'k8s-event') return true;
  const source = record.source;
  if (source?.container === undefined) return true;
  if (source.namespace === undefined || !sources.namespaces.includes(source.namespace)) return false;
  // Metadata without a container name (some Fluent Bit setups) is judged by its namespace alone.
  return source.container === '' || sources.containers.includes(source.container);
}
