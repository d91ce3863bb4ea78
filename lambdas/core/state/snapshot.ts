/**
 * A snapshot of the cluster objects that state why Karpenter cannot scale, as `kubectl get … -o
 * json` or the Kubernetes API return them. Objects are read defensively: a field of the wrong type
 * is treated as absent, never thrown on.
 */

/** The objects of one read of the cluster, each list as the API returned it (items of a List). */
export interface ClusterSnapshot {
  nodeClaims: readonly unknown[];
  nodePools: readonly unknown[];
  /** EC2NodeClasses (karpenter.k8s.aws) and EKS Auto Mode NodeClasses (eks.amazonaws.com). */
  nodeClasses: readonly unknown[];
  /** Pending pods (`status.phase=Pending`); pods of other phases are ignored. */
  pods: readonly unknown[];
  events: readonly unknown[];
  /** StorageClasses, read for the Auto Mode migration traps; optional. */
  storageClasses?: readonly unknown[];
  /** When the snapshot was read, epoch milliseconds: the time of statements that carry none. */
  readAtMs: number;
}

/** One status condition of a Kubernetes object. */
export interface Condition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
}

/** What every object is read for: its identity, labels and conditions. */
export interface ObjectView {
  apiVersion: string;
  kind: string;
  name: string;
  namespace?: string;
  uid?: string;
  labels: Readonly<Record<string, string>>;
  conditions: Condition[];
  raw: Readonly<Record<string, unknown>>;
}

export const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

export const stringOf = (value: unknown): string | undefined =>
  typeof value === 'string' && value !== '' ? value : undefined;

/** The fields of an object that this module reads, or undefined when it is not an object with a name. */
export function viewOf(value: unknown): ObjectView | undefined {
  if (!isObject(value)) return undefined;
  const metadata = isObject(value.metadata) ? value.metadata : {};
  const name = stringOf(metadata.name);
  if (!name) return undefined;
  const labels: Record<string, string> = {};
  if (isObject(metadata.labels))
    for (const [key, label] of Object.entries(metadata.labels)) if (typeof label === 'string') labels[key] = label;
  const status = isObject(value.status) ? value.status : {};
  return {
    apiVersion: stringOf(value.apiVersion) ?? '',
    kind: stringOf(value.kind) ?? '',
    name,
    namespace: stringOf(metadata.namespace),
    uid: stringOf(metadata.uid),
    labels,
    conditions: conditionsOf(status.conditions),
    raw: value,
  };
}

function conditionsOf(value: unknown): Condition[] {
  if (!Array.isArray(value)) return [];
  const conditions: Condition[] = [];
  for (const entry of value) {
    if (!isObject(entry)) continue;
    const type = stringOf(entry.type);
    const status = entry.status;
    if (!type || (status !== 'True' && status !== 'False' && status !== 'Unknown')) continue;
    conditions.push({
      type,
      status,
      reason: stringOf(entry.reason),
      message: stringOf(entry.message),
      lastTransitionTime: stringOf(entry.lastTransitionTime),
    });
  }
  return conditions;
}

/** The items of a List document (`kubectl get -o json`), or the document itself when it is one object. */
export function itemsOf(document: unknown): unknown[] {
  if (!isObject(document)) return [];
  if (Array.isArray(document.items)) return document.items as unknown[];
  return stringOf(document.kind) ? [document] : [];
}

/**
 * Sorts the items of any number of List documents into a snapshot by their kind, as one
 * `kubectl get nodeclaims,nodepools,ec2nodeclasses -o json` returns them mixed.
 */
export function snapshotOf(documents: readonly unknown[], readAtMs: number): ClusterSnapshot {
  const snapshot = {
    nodeClaims: [] as unknown[],
    nodePools: [] as unknown[],
    nodeClasses: [] as unknown[],
    pods: [] as unknown[],
    events: [] as unknown[],
    storageClasses: [] as unknown[],
    readAtMs,
  };
  for (const document of documents) {
    for (const item of itemsOf(document)) {
      if (!isObject(item)) continue;
      const list = LIST_OF_KIND[stringOf(item.kind) ?? ''];
      if (list) snapshot[list].push(item);
    }
  }
  return snapshot;
}

const LIST_OF_KIND: Readonly<
  Record<string, 'nodeClaims' | 'nodePools' | 'nodeClasses' | 'pods' | 'events' | 'storageClasses'>
> = {
  NodeClaim: 'nodeClaims',
  NodePool: 'nodePools',
  EC2NodeClass: 'nodeClasses',
  NodeClass: 'nodeClasses',
  Pod: 'pods',
  Event: 'events',
  StorageClass: 'storageClasses',
};
