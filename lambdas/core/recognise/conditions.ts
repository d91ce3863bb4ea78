import type { LogRecord } from '../model';

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
 * Every condition a record states. `lowerText` is the lower-cased record text when the caller made it
 * already (else it is made here, only when a transition is looked for); `transition` says whether a transition's gate (TRANSITION_GATES) is in
 * it, and `phrases` are the NODE_CONDITION_PHRASES found in it, in the order found: the kubelet's, so
 * they are about a node.
 */
export function conditionStatements(
  record: LogRecord,
  lowerText: string | undefined,
  transition: boolean,
  phrases: ReadonlyArray<readonly [type: string, status: Status]>,
): readonly ConditionStatement[] {
  const describeRow = mayBeDescribeRow(record.text);
  // Most records state no condition: no array for them.
  if (!transition && phrases.length === 0 && !describeRow) return NO_STATEMENTS;
  const statements: ConditionStatement[] = [];
  if (transition) {
    const found = CONDITION_TRANSITION.exec(lowerText ?? record.text.toLowerCase());
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
  if (describeRow) {
    const row = DESCRIBE_CONDITION_ROW.exec(record.text);
    const rowType = row?.[1]!.toLowerCase();
    const rowStatus = row?.[2]!.toLowerCase() as Status | undefined;
    if (rowType && rowStatus && !isFailing(rowType, rowStatus))
      statements.push({ type: rowType, status: rowStatus, kind: objectKindOf(record) });
  }
  return statements;
}

const NO_STATEMENTS: readonly ConditionStatement[] = [];

const objectKindOf = (record: LogRecord): string | undefined => record.event?.object?.kind?.toLowerCase();

/**
 * Whether DESCRIBE_CONDITION_ROW can match: after at most eight blanks, a capital letter and at least
 * two more letters (the type: the whole run of letters, as a blank must follow it), a blank, more
 * blanks, and the first letter of a status. Most records fail this within their first word
 * (`FailedScheduling | 0/7 nodes …`), and are not handed to the expression.
 */
export function mayBeDescribeRow(text: string): boolean {
  let i = 0;
  while (i < text.length && i <= 8 && isBlank(text, i)) i++;
  if (i > 8 || i >= text.length) return false;
  const start = text.charCodeAt(i);
  if (start < 65 || start > 90) return false;
  let end = i + 1;
  while (end < text.length && isLetter(text.charCodeAt(end))) end++;
  if (end - i < 3 || end >= text.length || !isBlank(text, end)) return false;
  let status = end + 1;
  while (status < text.length && isBlank(text, status)) status++;
  const first = text.charCodeAt(status);
  return first === 84 || first === 70 || first === 85; // T, F, U
}

const isLetter = (code: number): boolean => (code >= 65 && code <= 90) || (code >= 97 && code <= 122);

/** Whether the character at `i` is what `\s` matches: ASCII blanks without a regular expression. */
function isBlank(text: string, i: number): boolean {
  const code = text.charCodeAt(i);
  if (code < 128) return code === 32 || (code >= 9 && code <= 13);
  return WHITE_SPACE.test(text[i]!);
}

const WHITE_SPACE = /\s/;

/** An event whose reason says the object recovered (`RecoveredFrom…`): a report of health. */
export const isRecoveryEvent = (record: LogRecord): boolean => {
  const reason = record.event?.reason;
  // The first letter before the expression: most reasons are not of recovery.
  return (
    reason !== undefined &&
    reason.length >= 9 &&
    (reason.charCodeAt(0) | 32) === 114 && // r or R
    /^recovered/i.test(reason)
  );
};
