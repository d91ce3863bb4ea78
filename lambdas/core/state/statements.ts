import type { RawMessage } from '../parse/assemble';
import { launchErrorOf, WAITING_REASONS } from './launch-reasons';
import { type ClusterSnapshot, type Condition, isObject, type ObjectView, stringOf, viewOf } from './snapshot';

/**
 * The snapshot as the log path would have received it: each failing condition, each pending pod's
 * scheduling failure, and the cluster's own events, as Kubernetes Event objects (the shape the
 * log path parses from Fluent Bit or an events exporter). One parser, one classifier and one
 * aggregator then give both paths the same rules, entities and incident keys.
 */

/** The conditions read on each kind, and which of them state a failure when False. */
export const CONDITIONS_OF: Readonly<Record<string, readonly string[]>> = {
  NodeClaim: ['Launched', 'Registered', 'Initialized', 'Ready'],
  NodePool: ['Ready', 'NodeRegistrationHealthy', 'ValidationSucceeded', 'NodeClassReady'],
  EC2NodeClass: [
    'Ready',
    'AMIsReady',
    'SubnetsReady',
    'SecurityGroupsReady',
    'InstanceProfileReady',
    'ValidationSucceeded',
  ],
  // EKS Auto Mode's NodeClass (eks.amazonaws.com/v1): the same conditions, but no AMI selection.
  NodeClass: ['Ready', 'SubnetsReady', 'SecurityGroupsReady', 'InstanceProfileReady', 'ValidationSucceeded'],
};

const LAUNCH_REASON_TYPES: ReadonlySet<string> = new Set(['Launched', 'NodeRegistrationHealthy']);

/** A root Ready that only repeats its dependents (`UnhealthyDependents`): the dependent says the cause. */
const SUMMARY_REASONS: ReadonlySet<string> = new Set(['UnhealthyDependents']);

/** A condition of one object that states a failure now. */
export interface FailingCondition {
  object: ObjectView;
  condition: Condition;
}

/**
 * Whether a condition states a failure: False (with a reason that is not a summary of others), or,
 * for `Launched`, Unknown with a reason — Karpenter keeps a failed launch Unknown with the error's
 * reason while it retries (nodeclaim/lifecycle/launch.go).
 */
export function isFailingCondition(condition: Condition): boolean {
  if (condition.reason && SUMMARY_REASONS.has(condition.reason)) return false;
  if (condition.status === 'False') return true;
  return (
    condition.type === 'Launched' && condition.status === 'Unknown' && !WAITING_REASONS.has(condition.reason ?? '')
  );
}

/** Every failing condition of the snapshot's Karpenter objects, in the order read. */
export function failingConditions(snapshot: ClusterSnapshot): FailingCondition[] {
  const failing: FailingCondition[] = [];
  for (const value of [...snapshot.nodeClasses, ...snapshot.nodePools, ...snapshot.nodeClaims]) {
    const object = viewOf(value);
    const watched = object && CONDITIONS_OF[object.kind];
    if (!watched) continue;
    for (const condition of object.conditions)
      if (watched.includes(condition.type) && isFailingCondition(condition)) failing.push({ object, condition });
  }
  return failing;
}

/** The snapshot as Kubernetes Event messages for the log path's parser, oldest first. */
export function snapshotMessages(snapshot: ClusterSnapshot, source = 'cluster-state'): RawMessage[] {
  const readAt = new Date(snapshot.readAtMs).toISOString();
  const pending = pendingPods(snapshot);
  const events = snapshot.events
    .filter((event) => keepEvent(event, pending))
    .sort((a, b) => eventTime(a).localeCompare(eventTime(b)));
  const statements = [
    ...failingConditions(snapshot).map((failing) => conditionEvent(failing, readAt)),
    ...[...pending.values()].flatMap((pod) => podEvents(pod, readAt)),
  ];
  return [...events, ...statements].map((event, index) => ({
    message: JSON.stringify(event),
    origin: { logGroup: source, line: index + 1, timestampMs: Date.parse(eventTime(event)) || snapshot.readAtMs },
  }));
}

/** The event a condition's controller would have emitted on turning to its current status. */
function conditionEvent({ object, condition }: FailingCondition, readAt: string): Record<string, unknown> {
  // A NodePool's NodeRegistrationHealthy repeats the launch reason of the NodeClaims that failed (liveness.go).
  const error = LAUNCH_REASON_TYPES.has(condition.type) ? launchErrorOf(condition.reason ?? '') : undefined;
  const names = objectNames(object);
  const message =
    `Status condition transitioned, Type: ${condition.type}, Status: observed -> ${condition.status}` +
    `${condition.reason ? `, Reason: ${condition.reason}` : ''}` +
    `, Message: ${condition.message ?? ''}${error ? `; ${error}` : ''}${names ? ` (${names})` : ''}`;
  const at = condition.lastTransitionTime ?? readAt;
  return {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: {
      name: `${object.name}.${condition.type.toLowerCase()}`,
      namespace: object.namespace ?? 'default',
      // One statement per object, condition, reason and transition: a later poll of the same state counts nothing new.
      uid: `state/${object.uid ?? `${object.kind}/${object.name}`}/${condition.type}/${condition.reason ?? ''}/${at}`,
    },
    involvedObject: { apiVersion: object.apiVersion, kind: object.kind, name: object.name },
    reason: condition.type,
    message,
    type: 'Warning',
    count: 1,
    lastTimestamp: at,
    source: { component: 'karpenter' },
  };
}

/** The names a condition's message does not state but the advice needs: the NodePool, the node class. */
function objectNames(object: ObjectView): string {
  // A NodeClaim's NodePool comes from its generated name, as on the log path.
  if (object.kind === 'EC2NodeClass' || object.kind === 'NodeClass') return `NodeClass=${object.name}`;
  if (object.kind !== 'NodePool') return '';
  const ref = nodeClassRefOf(object.raw);
  return `NodePool=${object.name}${ref ? `, NodeClass=${ref}` : ''}`;
}

const nodeClassRefOf = (raw: Readonly<Record<string, unknown>>): string | undefined => {
  const spec = isObject(raw.spec) ? raw.spec : {};
  const template = isObject(spec.template) && isObject(spec.template.spec) ? spec.template.spec : spec;
  return isObject(template.nodeClassRef) ? stringOf(template.nodeClassRef.name) : undefined;
};

/** Pending pods by `namespace/name`. */
function pendingPods(snapshot: ClusterSnapshot): Map<string, ObjectView> {
  const pods = new Map<string, ObjectView>();
  for (const value of snapshot.pods) {
    const pod = viewOf(value);
    if (!pod || pod.kind !== 'Pod') continue;
    const status = isObject(pod.raw.status) ? pod.raw.status : {};
    if (status.phase !== undefined && status.phase !== 'Pending') continue;
    pods.set(`${pod.namespace ?? 'default'}/${pod.name}`, pod);
  }
  return pods;
}

/** A pending pod's scheduling failure, as the scheduler's FailedScheduling event states it. */
function podEvents(pod: ObjectView, readAt: string): Record<string, unknown>[] {
  const scheduled = pod.conditions.find((condition) => condition.type === 'PodScheduled');
  if (!scheduled || scheduled.status !== 'False' || !scheduled.message) return [];
  const at = scheduled.lastTransitionTime ?? readAt;
  return [
    {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: {
        name: `${pod.name}.podscheduled`,
        namespace: pod.namespace ?? 'default',
        uid: `state/${pod.uid ?? pod.name}/PodScheduled/${scheduled.reason ?? ''}/${at}`,
      },
      involvedObject: { apiVersion: 'v1', kind: 'Pod', namespace: pod.namespace ?? 'default', name: pod.name },
      reason: 'FailedScheduling',
      message: scheduled.message,
      type: 'Warning',
      count: 1,
      lastTimestamp: at,
      source: { component: 'default-scheduler' },
    },
  ];
}

/**
 * The cluster's events the snapshot keeps: not the status-condition transitions (the objects state
 * their conditions now; an old transition may since have reverted), and not scheduling failures of
 * pods that are no longer pending.
 */
function keepEvent(event: unknown, pending: ReadonlyMap<string, ObjectView>): event is Record<string, unknown> {
  if (!isObject(event)) return false;
  const message = stringOf(event.message) ?? stringOf(event.note) ?? '';
  if (message.startsWith('Status condition transitioned')) return false;
  if (stringOf(event.reason) !== 'FailedScheduling') return true;
  const object = isObject(event.involvedObject)
    ? event.involvedObject
    : isObject(event.regarding)
      ? event.regarding
      : {};
  return pending.has(`${stringOf(object.namespace) ?? 'default'}/${stringOf(object.name) ?? ''}`);
}

function eventTime(event: Record<string, unknown>): string {
  const metadata = isObject(event.metadata) ? event.metadata : {};
  const series = isObject(event.series) ? event.series : {};
  return (
    stringOf(event.lastTimestamp) ??
    stringOf(series.lastObservedTime) ??
    stringOf(event.eventTime) ??
    stringOf(event.firstTimestamp) ??
    stringOf(metadata.creationTimestamp) ??
    ''
  );
}
