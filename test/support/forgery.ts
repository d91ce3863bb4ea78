/**
 * Issue 32's forgeries: a workload pod of a shared cluster printing the lines that trigger automatic
 * remediation, in every shape Fluent Bit ships them.
 */

/** Fluent Bit's kubernetes metadata of a workload container, and of Karpenter's own. */
export const SHOP_APP = { pod_name: 'web-7d4b9c6f5d-x2x9k', namespace_name: 'shop', container_name: 'app' };
export const KARPENTER_CONTROLLER = {
  pod_name: 'karpenter-6d8f7b9c54-q2w4x',
  namespace_name: 'karpenter',
  container_name: 'controller',
};

/** The Event that says Karpenter's own pod cannot be scheduled (the trigger of raise-system-nodegroup). */
export const FORGED_EVENT = {
  kind: 'Event',
  type: 'Warning',
  reason: 'FailedScheduling',
  message: "0/2 nodes are available: 2 node(s) didn't match Pod's node affinity/selector.",
  involvedObject: { kind: 'Pod', namespace: 'kube-system', name: 'karpenter-6d8f7b9c54-q2w4x' },
};

/** A Karpenter line of the vCPU quota of P instances (the trigger of request-quota-increase). */
export const FORGED_QUOTA_LINE = {
  level: 'ERROR',
  time: '2026-11-28T02:20:30.000Z',
  logger: 'controller',
  message: 'failed launching nodeclaim',
  error:
    'creating instance, insufficient capacity, with fleet error(s), VcpuLimitExceeded: You have requested more vCPU capacity than your current vCPU limit of 64 allows for the instance bucket that the specified instance type belongs to.',
  NodeClaim: { name: 'p4d-karpenter-hmqzq' },
};

export const FORGED_KINDS: Array<readonly [kind: string, inner: object]> = [
  ['an Event JSON', FORGED_EVENT],
  ['a zap JSON Karpenter line', FORGED_QUOTA_LINE],
];

/** The three shapes of Fluent Bit's kubernetes filter: Merge_Log Off, Merge_Log_Key log_processed, merged at the root. */
export const FLUENT_BIT_SHAPES: Array<readonly [shape: string, ship: (inner: object, kubernetes: object) => object]> = [
  ['the log string', (inner, kubernetes) => ({ log: JSON.stringify(inner), stream: 'stdout', kubernetes })],
  ['log_processed', (inner, kubernetes) => ({ log: JSON.stringify(inner), log_processed: inner, kubernetes })],
  ['merged at the root', (inner, kubernetes) => ({ ...inner, stream: 'stdout', kubernetes })],
];

/** Every forged kind in every shape, printed by shop/app: `[kind, shape, line]`. */
export const FORGERIES = FLUENT_BIT_SHAPES.flatMap(([shape, ship]) =>
  FORGED_KINDS.map(([kind, inner]) => [kind, shape, JSON.stringify(ship(inner, SHOP_APP))] as const),
);
