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
