import type { LogRecord } from './model';

/**
 * Condition polarity (issue 11 item 4). A record that states a condition is healthy never fires the
 * rule of that condition, however it names it (`NodeHasNoDiskPressure`, `DiskPressure False`,
 * `Type: MemoryPressure, Status: True -> False`); the transition to the failing state does.
 *
 * Most conditions are healthy when True (Ready, Initialized, SubnetsReady, …). The kubelet's pressure
 * and network conditions are the other way round: True is the failure.
 */
export const TRUE_IS_FAILING: ReadonlySet<string> = new Set([
  'diskpressure',
  'memorypressure',
  'pidpressure',
  'networkunavailable',
]);

export type Status = 'true' | 'false' | 'unknown';

/** Whether `status` is the failing one for a condition of `type`; Unknown is never a failure. */
export const isFailing = (type: string, status: Status): boolean =>
  status === (TRUE_IS_FAILING.has(type) ? 'true' : 'false');

/** What a record says about one condition: its type (lower case), the status, and the kind of object. */
export interface ConditionStatement {
  type: string;
  status: Status;
  kind?: string;
  /** The transition's reason (lower case), when it gives one: `…, Reason: RegistrationFailed`. */
  reason?: string;
}

/**
 * Phrases that state a node condition, lower case: the kubelet's node status event reasons
 * (`Node %s status is now: %s`), its condition reasons, and its condition messages
 * (kubernetes pkg/kubelet/nodestatus/setters.go).
 */
export const NODE_CONDITION_PHRASES: Readonly<Record<string, readonly [type: string, status: Status]>> = {
  nodehassufficientmemory: ['memorypressure', 'false'],
  nodehasinsufficientmemory: ['memorypressure', 'true'],
  kubelethassufficientmemory: ['memorypressure', 'false'],
  kubelethasinsufficientmemory: ['memorypressure', 'true'],
  'kubelet has sufficient memory available': ['memorypressure', 'false'],
  'kubelet has insufficient memory available': ['memorypressure', 'true'],
  nodehasnodiskpressure: ['diskpressure', 'false'],
  nodehasdiskpressure: ['diskpressure', 'true'],
  kubelethasnodiskpressure: ['diskpressure', 'false'],
  kubelethasdiskpressure: ['diskpressure', 'true'],
  'kubelet has no disk pressure': ['diskpressure', 'false'],
  'kubelet has disk pressure': ['diskpressure', 'true'],
  nodehassufficientpid: ['pidpressure', 'false'],
  nodehasinsufficientpid: ['pidpressure', 'true'],
  kubelethassufficientpid: ['pidpressure', 'false'],
  kubelethasinsufficientpid: ['pidpressure', 'true'],
  'kubelet has sufficient pid available': ['pidpressure', 'false'],
  'kubelet has insufficient pid available': ['pidpressure', 'true'],
  nodeready: ['ready', 'true'],
  nodenotready: ['ready', 'false'],
  kubeletready: ['ready', 'true'],
  kubeletnotready: ['ready', 'false'],
  'kubelet is posting ready status': ['ready', 'true'],
};

/** The fragments that open a transition statement (`Status: A -> B`). */
export const TRANSITION_GATES = ['-> false', '-> true'] as const;

/** A status condition transition: `Type: SubnetsReady, Status: True -> False` (Karpenter v1 Events). */
export const CONDITION_TRANSITION =
  /type: ([a-z]{1,40}), status: [a-z]{1,10} -> (true|false|unknown)\b(?:, reason: ([a-z0-9]{1,80}))?/;

/** A condition row of `kubectl describe`: `  DiskPressure   False   <times>   <reason>   <message>`. */
export const DESCRIBE_CONDITION_ROW = /^\s{0,8}([A-Z][A-Za-z]{2,40})\s{1,40}(True|False|Unknown)\s/;

/**
 * Every condition a record states. `lowerText` gives the lower-cased record text (made only when a
 * transition is looked for); `transition` says whether a transition's gate (TRANSITION_GATES) is in
 * it, and `phrases` are the NODE_CONDITION_PHRASES found in it, in the order found: the kubelet's, so
 * they are about a node.
 */
export function conditionStatements(
  record: LogRecord,
  lowerText: () => string,
  transition: boolean,
  phrases: ReadonlyArray<readonly [type: string, status: Status]>,
): ConditionStatement[] {
  const statements: ConditionStatement[] = [];
  if (transition) {
    const found = CONDITION_TRANSITION.exec(lowerText());
    if (found)
      statements.push({
        type: found[1]!,
        status: found[2] as Status,
        kind: objectKindOf(record),
        reason: found[3],
      });
  }
  for (const [type, status] of phrases) statements.push({ type, status, kind: 'node' });
  // A describe row does not say whose condition it is (a Node's Ready or a NodePool's), so it only
  // ever counts as health; its reason column (`KubeletNotReady`) says the failure.
  if (mayBeDescribeRow(record.text)) {
    const row = DESCRIBE_CONDITION_ROW.exec(record.text);
    const rowType = row?.[1]!.toLowerCase();
    const rowStatus = row?.[2]!.toLowerCase() as Status | undefined;
    if (rowType && rowStatus && !isFailing(rowType, rowStatus))
      statements.push({ type: rowType, status: rowStatus, kind: objectKindOf(record) });
  }
  return statements;
}

const objectKindOf = (record: LogRecord): string | undefined => record.event?.object?.kind?.toLowerCase();

/**
 * Whether DESCRIBE_CONDITION_ROW can match: its type starts, after at most eight blanks, with a capital
 * letter. Most records start otherwise, and are not handed to the expression.
 */
function mayBeDescribeRow(text: string): boolean {
  for (let i = 0; i < text.length && i <= 8; i++) {
    const code = text.charCodeAt(i);
    if (code >= 65 && code <= 90) return true;
    if (!WHITE_SPACE.test(text[i]!)) return false;
  }
  return false;
}

const WHITE_SPACE = /\s/;

/** An event whose reason says the object recovered (`RecoveredFrom…`): a report of health. */
export const isRecoveryEvent = (record: LogRecord): boolean => {
  const reason = record.event?.reason;
  return reason !== undefined && reason.length >= 9 && /^recovered/i.test(reason);
};
