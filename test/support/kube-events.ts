/** One FailedScheduling Event of pod shop/web-7d4b9c6f5d-x2x9k, as an event exporter ships it (JSON). */
export function failedSchedulingEvent(
  count: number,
  fields: { message?: string; lastTimestamp?: string } = {},
): string {
  return JSON.stringify({
    metadata: { name: 'web-7d4b9c6f5d-x2x9k.17a1b2c3d4e5f6a7', namespace: 'shop', uid: 'b1946ac9-2b4f-4c2e' },
    involvedObject: { kind: 'Pod', namespace: 'shop', name: 'web-7d4b9c6f5d-x2x9k' },
    reason: 'FailedScheduling',
    type: 'Warning',
    message:
      fields.message ??
      '0/3 nodes are available: 3 Insufficient cpu. preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod.',
    count,
    ...(fields.lastTimestamp === undefined ? {} : { lastTimestamp: fields.lastTimestamp }),
  });
}

/** Kubernetes' safe-encoding alphabet, as in ReplicaSet and pod name suffixes. */
const SAFE = 'bcdfghjklmnpqrstvwxz2456789';
/** A pod-name suffix of `length` safe characters, distinct for each `n`. */
export const safeSuffix = (n: number, length: number): string =>
  Array.from({ length }, (_, i) => SAFE[Math.floor(n / SAFE.length ** i) % SAFE.length]).join('');

/** A FailedScheduling Event of one pod of workload `app-<n>`, whose nodes carry a taint it does not tolerate. */
export const untoleratedTaintEvent = (workload: number, taint: string): string =>
  JSON.stringify({
    kind: 'Event',
    apiVersion: 'v1',
    type: 'Warning',
    reason: 'FailedScheduling',
    message: `0/3 nodes are available: 3 node(s) had untolerated taint {${taint}: true}. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.`,
    involvedObject: {
      kind: 'Pod',
      namespace: 'shop',
      name: `app-${workload}-${safeSuffix(workload, 10)}-${safeSuffix(workload, 5)}`,
    },
  });
