import { isObject, tryJson } from './json';
import type { EventInfo, LogRecord, ObjectRef, RecordOrigin } from './model';
import { epochMsOf, parseTimestamp } from './timestamp';

/**
 * Turns one log message — a CloudWatch event or a line of a local file — into a LogRecord, whatever envelopes
 * it sits in (docs/architecture.md, One delivery, step by step). Never throws; returns undefined for blank
 * input.
 *
 * Every pattern here is anchored and built from disjoint character classes, so matching is linear in
 * the length of the line (test/core/regex-safety.test.ts checks each one).
 */

/** What a `kubectl describe` section says about the object whose Events table follows. */
export interface DescribeContext {
  object?: ObjectRef;
}

const KUBECTL_POD_PREFIX = /^\[pod\/([a-z0-9.-]+)\/([a-z0-9-]+)\] /;
const POD_CONTAINER_PREFIX = /^([a-z0-9][a-z0-9.-]*-[a-z0-9]{5}) ([a-z0-9-]+) (?=\d{4}-\d\d-\d\d|\{)/;
/**
 * A syslog or journal prefix, as in /var/log/messages and `journalctl` (short and short-iso):
 * `Jan  2 15:04:05 ip-10-0-1-2 kubelet[1234]: ` or `2024-01-02T15:04:05+0000 ip-10-0-1-2 nodeadm[99]: `.
 */
const SYSLOG_PREFIX =
  /^(?:[A-Z][a-z]{2} [ 0-9]\d \d\d:\d\d:\d\d|\d{4}-\d\d-\d\dT[0-9:.]+(?:Z|[+-]\d\d:?\d\d)?) ([A-Za-z0-9.-]{1,253}) ([A-Za-z0-9_.@/-]{1,64})(?:\[\d{1,10}\])?: /;
const KLOG = /^([IWEF])\d{4} \d\d:\d\d:\d\d\.\d+ +\d+ ([^\]\s]+)\] (.*)$/s;
const LOGGER_NAME =
  /^(?:controller|webhook|karpenter|manager|provisioner)(?:\.[a-zA-Z0-9_-]+)*$|^[a-z][a-zA-Z0-9_-]*(?:\.[a-zA-Z0-9_-]+)+$/;
/**
 * A row of `kubectl get events` or `kubectl events` (optional namespace, last seen, type, reason,
 * object, message); `kubectl events` writes a repeated event's last seen as `4m (x31 over 50m)`.
 */
const GET_EVENTS_ROW =
  /^(?:(\S+)\s+)?(\S+)(?: \(x(\d+) over \S+\))?\s+(Normal|Warning)\s+([A-Za-z]\S*)\s+([a-zA-Z.]+\/\S+)\s+(.*)$/s;
const DESCRIBE_EVENT_ROW = /^\s*(Normal|Warning)\s+([A-Za-z]\S*)\s+(.*)$/s;
const DESCRIBE_AGE_FROM = /^(<unknown>|\d\S*(?: \(x\d+ over \S+\))?)\s+(\S+)\s+(.*)$/s;
const OBJECT_THEN_MESSAGE = /^([a-zA-Z.]+)\/"?([a-z0-9.:-]+)"?\s+(.*)$/s;
const DESCRIBE_HEADER = /^(Name|Namespace|Kind):\s+(\S+)\s*$/;
/**
 * Header fields only a storage object's `kubectl describe` prints (a pod's volumes are indented):
 * a StorageClass has `Provisioner`, a PersistentVolume `Claim`, both PV and PVC a `StorageClass`.
 */
const DESCRIBE_STORAGE_FIELD = /^(Provisioner|StorageClass|Claim):/;

/** Every pattern of the parser, for the linear-time check in the tests. */
export const PARSE_PATTERNS: readonly RegExp[] = [
  KUBECTL_POD_PREFIX,
  POD_CONTAINER_PREFIX,
  SYSLOG_PREFIX,
  KLOG,
  LOGGER_NAME,
  GET_EVENTS_ROW,
  DESCRIBE_EVENT_ROW,
  DESCRIBE_AGE_FROM,
  OBJECT_THEN_MESSAGE,
  DESCRIBE_HEADER,
  DESCRIBE_STORAGE_FIELD,
];

/** Parses one message. `describe` carries kubectl describe state across the lines of one stream. */
export function parseMessage(raw: string, origin: RecordOrigin, describe?: DescribeContext): LogRecord | undefined {
  const line = withoutTrailingNewlines(raw);
  if (isBlank(line)) return undefined;
  if (describe) trackDescribeHeader(line, describe);
  return parseLine(line, origin, undefined, describe);
}

/**
 * Strips the prefixes a line can carry (CRI, kubectl's `[pod/…]`, a pod and container name, a
 * timestamp before JSON, syslog), then reads what is left as JSON or text. Each prefix pattern is
 * tried only where the characters that must begin it are there (a digit, `[pod/`, a name followed by
 * a date or `{`): the common shapes, zap JSON and a Fluent Bit record's `log`, reach JSON.parse
 * without a pattern tried in vain. test/core/parse-fast-path.test.ts compares this with the plain
 * cascade of patterns on generated lines of every shape.
 */
function parseLine(
  input: string,
  origin: RecordOrigin,
  source: ObjectRef | undefined,
  describe?: DescribeContext,
): LogRecord {
  const stamp = leadingStamp(input);
  const cri = stamp > 0 ? criPrefixAfter(input, stamp) : -1;
  if (cri > 0) return parseAfterCri(input.slice(cri), UNREAD, origin, source, describe);
  return parseAfterCri(input, stamp, origin, source, describe);
}

/**
 * A line inside an envelope (a Fluent Bit record's `log`, a journal entry's message): what
 * `parseLine(withoutTrailingNewlines(text))` reads, with one slice for the newlines and the CRI
 * prefix together. The CRI prefix ends with a space and holds no line break, so it is found the same
 * on the text with or without its trailing line breaks.
 */
function parseInnerLine(text: string, origin: RecordOrigin, source: ObjectRef | undefined): LogRecord {
  const end = endWithoutNewlines(text);
  const stamp = leadingStamp(text);
  const cri = stamp > 0 ? criPrefixAfter(text, stamp) : -1;
  if (cri > 0) return parseAfterCri(text.slice(cri, end), UNREAD, origin, source, undefined);
  return parseAfterCri(end === text.length ? text : text.slice(0, end), UNREAD, origin, source, undefined);
}

/**
 * `parseLine` after its CRI prefix. `known` is `leadingStamp(line)` when the caller has it, or
 * UNREAD: the timestamp that begins a line is read once for the prefixes and the zap console line that all
 * begin with one.
 */
function parseAfterCri(
  input: string,
  known: number,
  origin: RecordOrigin,
  source: ObjectRef | undefined,
  describe: DescribeContext | undefined,
): LogRecord {
  let line = input;
  let stamp = known;
  if (line.startsWith('[pod/')) {
    const kubectlPrefix = KUBECTL_POD_PREFIX.exec(line);
    if (kubectlPrefix) {
      source = { kind: 'Pod', name: kubectlPrefix[1]! };
      line = line.slice(kubectlPrefix[0].length);
      stamp = UNREAD;
    }
  }
  if (mayBePodContainerPrefix(line)) {
    const podPrefix = POD_CONTAINER_PREFIX.exec(line);
    if (podPrefix) {
      source = { kind: 'Pod', name: podPrefix[1]! };
      line = line.slice(podPrefix[0].length);
      stamp = UNREAD;
    }
  }
  if (stamp === UNREAD) stamp = leadingStamp(line);
  if (stamp > 0) {
    const json = jsonAfterStamp(line, stamp);
    if (json > 0) return fromTrimmed(line.slice(json), -1, origin, source, describe);
    const syslog = line.charCodeAt(10) === 84 && mayBeSyslogAfter(line, stamp) ? SYSLOG_PREFIX.exec(line) : null;
    if (syslog) {
      const record = parseLine(line.slice(syslog[0].length), origin, source, describe);
      return withHost(record, syslog[1]!, syslog[2]!);
    }
  } else if (isUpper(line.charCodeAt(0)) && line.charCodeAt(3) === 32) {
    const syslog = SYSLOG_PREFIX.exec(line);
    if (syslog) {
      const record = parseLine(line.slice(syslog[0].length), origin, source, describe);
      return withHost(record, syslog[1]!, syslog[2]!);
    }
  }
  return fromTrimmed(line, stamp, origin, source, describe);
}

/** The rest of a line, its prefixes gone: JSON when it is an object, else text. */
function fromTrimmed(
  line: string,
  stamp: number,
  origin: RecordOrigin,
  source: ObjectRef | undefined,
  describe: DescribeContext | undefined,
): LogRecord {
  let start = 0;
  let end = line.length;
  while (start < end && isSpace(line.charCodeAt(start))) start++;
  while (end > start && isSpace(line.charCodeAt(end - 1))) end--;
  if (line.charCodeAt(start) === OPEN_BRACE && line.charCodeAt(end - 1) === CLOSE_BRACE) {
    const trimmed = start === 0 && end === line.length ? line : line.slice(start, end);
    // A Fluent Bit record whose members after `log` are the last one's (`withKnownTail`).
    let learn = false;
    if (trimmed.charCodeAt(1) === QUOTE) {
      const known = withKnownTail(trimmed, origin, source);
      if (known !== MISS) {
        if (known !== REFUSED) return known;
      } else {
        const tail = fluentBitTail;
        learn = tail === undefined || tail.hits > 0 || ++tail.misses >= RELEARN_AFTER_MISSES;
      }
    }
    const value = tryJson(trimmed);
    if (isObject(value)) {
      if (learn && typeof value.log === 'string') learnTail(trimmed);
      return fromJsonObject(value, trimmed, origin, source);
    }
  }
  return fromText(line, start, start === 0 ? stamp : UNREAD, origin, source, describe);
}

/**
 * The members after `log` in the last Fluent Bit record learned (`learnTail`): the Kubernetes
 * metadata Fluent Bit adds, the same text on every record of a container, so on every record of
 * a CloudWatch stream. `pod` is what `fluentBitSource` reads from them; `usable` is false for a
 * tail after which the record is not read from `log` alone (no `kubernetes` of its own, merged
 * JSON, another `log`) or that its records refused more often than not (`refused`): records with
 * it are parsed whole.
 */
interface FluentBitTail {
  readonly text: string;
  usable: boolean;
  readonly pod: ObjectRef | undefined;
  hits: number;
  misses: number;
  refusals: number;
}

let fluentBitTail: FluentBitTail | undefined;
/** Records read with a known tail so far (`withKnownTail`), for the tests that hold that path to the reference. */
export const knownTailReads = (): number => knownTailCount;
let knownTailCount = 0;
/** A tail that no record matched since it was learned is replaced after this many misses, not on each. */
const RELEARN_AFTER_MISSES = 4;
const MISS = 0;
const REFUSED = 1;

/**
 * The record of a Fluent Bit record `line` (trimmed, `{` to `}`) that ends with the known tail's
 * text: its `log` string literal, the text between `"log":` and that tail, parsed alone, and the
 * source the tail gives, without parsing the tail's objects again (about half of the cost of a
 * record's outer `JSON.parse`, and more with labels and annotations). MISS when the line does not
 * end with the tail, REFUSED when it does but is to be parsed whole.
 *
 * Exactly what `JSON.parse` of the whole line and `fromJsonObject` give: the text before the
 * literal, with `0}` after it, is a JSON object whose last member is this `log` (checked by parsing
 * it, unless it is just `{"log":`); the literal alone is one JSON string (a quote inside it that
 * ended it early would make it two values, which JSON.parse refuses); and the tail, after any
 * value, closes an object (`learnTail` parsed it so). JSON's grammar has no context, so the whole
 * line is that object: the head's members, `log`, and the tail's, of which a later one wins. The
 * tail sets `kubernetes` and no `log`, neither it nor the head sets merged JSON (`log_processed`,
 * `data`) as an object: the record is `parseInnerLine` of `log` with the tail's pod.
 * test/core/parse-fast-path.test.ts compares records read so with the reference on generated
 * sequences of records.
 */
function withKnownTail(
  line: string,
  origin: RecordOrigin,
  source: ObjectRef | undefined,
): LogRecord | typeof MISS | typeof REFUSED {
  const tail = fluentBitTail;
  if (tail === undefined) return MISS;
  const close = line.length - tail.text.length - 1;
  // `slice` and `===`, not `endsWith`: a third of the time on these tails of about 200 characters.
  if (close < 8 || line.charCodeAt(close) !== QUOTE || line.slice(close + 1) !== tail.text) return MISS;
  if (!tail.usable) return REFUSED;
  const key = line.startsWith('{"log":"') ? 1 : topLevelLogKey(line, close);
  const open = key + 6;
  if (key < 0 || open >= close) return refused(tail);
  if (key > 1) {
    const head = tryJson(`${line.slice(0, open)}0}`);
    if (!isObject(head) || isObject(head.log_processed) || isObject(head.data)) return refused(tail);
  }
  const log = tryJson(line.slice(open, close + 1));
  if (typeof log !== 'string') return refused(tail);
  tail.hits++;
  knownTailCount++;
  const pod = tail.pod;
  return parseInnerLine(
    log,
    origin,
    pod ? { kind: 'Pod', name: pod.name, namespace: pod.namespace, container: pod.container } : source,
  );
}

/**
 * REFUSED, and a tail refused more often than read (after a few) is no longer tried: its records
 * are parsed whole at once, without the parses above, which may throw, paid first on each.
 */
function refused(tail: FluentBitTail): typeof REFUSED {
  if (++tail.refusals >= 8 && tail.refusals > tail.hits) tail.usable = false;
  return REFUSED;
}

/**
 * Where the key `"log"` of the object `line` begins, at its top level and before `limit`, with a
 * string value: -1 when there is none. Strings are skipped whole (a `"` in one is escaped).
 */
function topLevelLogKey(line: string, limit: number): number {
  let depth = 1;
  for (let at = 1; at < limit; at++) {
    const code = line.charCodeAt(at);
    if (code === QUOTE) {
      if (depth === 1 && line.startsWith('"log":"', at)) return at;
      at = closingQuote(line, at + 1, limit);
    } else if (code === OPEN_BRACE || code === OPEN_BRACKET) {
      depth++;
    } else if (code === CLOSE_BRACE || code === CLOSE_BRACKET) {
      depth--;
    }
  }
  return -1;
}

/**
 * The quote that ends the JSON string whose characters start at `from` in `line` (escaped quotes
 * skipped), or `limit` when none does before it.
 */
function closingQuote(line: string, from: number, limit: number): number {
  for (let at = from; at < limit; at++) {
    const code = line.charCodeAt(at);
    if (code === BACKSLASH) at++;
    else if (code === QUOTE) return at;
  }
  return limit;
}

/**
 * Learns the tail of a Fluent Bit record (`line`, which JSON.parse read as an object with a string
 * `log`): the text after its top-level `log` string literal, kept usable when that text, after any
 * value, closes an object that sets `kubernetes`, no `log` and no merged JSON object.
 */
function learnTail(line: string): void {
  const key = topLevelLogKey(line, line.length);
  if (key < 0) return;
  const close = closingQuote(line, key + 7, line.length);
  if (close >= line.length) return;
  // A flat string of its own: compared with the end of every record, and it keeps no record alive.
  const text = JSON.parse(JSON.stringify(line.slice(close + 1))) as string;
  const rest = text.includes('"log"') ? undefined : tryJson(`{"log":0${text}`);
  // `log` still 0: no member of the tail is `log`, not even one spelt with escapes (`"lo\u0067"`).
  const usable =
    isObject(rest) &&
    rest.log === 0 &&
    Object.hasOwn(rest, 'kubernetes') &&
    !isObject(rest.log_processed) &&
    !isObject(rest.data);
  fluentBitTail = {
    text,
    usable,
    pod: usable ? fluentBitSource(rest.kubernetes) : undefined,
    hits: 0,
    misses: 0,
    refusals: 0,
  };
}

const TAB = 9;
const OPEN_BRACE = 123;
const CLOSE_BRACE = 125;
const OPEN_BRACKET = 91;
const CLOSE_BRACKET = 93;
const QUOTE = 34;
const BACKSLASH = 92;
/** `leadingStamp` not read yet for the line at hand. */
const UNREAD = -2;
const isDigit = (code: number): boolean => code >= 48 && code <= 57;
const isUpper = (code: number): boolean => code >= 65 && code <= 90;
const isLowerOrDigit = (code: number): boolean => (code >= 97 && code <= 122) || isDigit(code);

/**
 * The timestamps that begin CRI, zap console, timestamp-before-JSON and ISO syslog lines, read by
 * hand, once per line: these run on most lines, where the patterns they replace cost a match array
 * each and were tried in turn on lines none of them fitted. Each function here matches exactly what
 * its pattern (kept in the comment) matches; test/core/parse-fast-path.test.ts holds them to the
 * patterns.
 */

/**
 * Where `\d{4}-\d\d-\d\d[T ][0-9:.]+` ends at the start of `line`, or -1. `[0-9:.]+` is greedy and
 * nothing after it in any pattern here can begin with one of its characters, so its longest run is
 * the only one that can match. The patterns that want `T` (CRI, syslog, zap console) check
 * `line.charCodeAt(10)` themselves.
 */
function leadingStamp(line: string): number {
  for (let i = 0; i < 10; i++) {
    const code = line.charCodeAt(i);
    if (i === 4 || i === 7 ? code !== 45 : !isDigit(code)) return -1;
  }
  const separator = line.charCodeAt(10);
  if (separator !== 84 && separator !== 32) return -1;
  let at = 11;
  for (let code = line.charCodeAt(at); isDigit(code) || code === 58 || code === 46; code = line.charCodeAt(++at));
  return at > 11 ? at : -1;
}

/**
 * Where an optional `(?:Z|[+-]\d\d:?\d\d)` starting at `at` ends (`at` itself when there is none).
 * Every pattern here wants a space after the zone; when the zone matches but no space follows, none
 * of the shorter readings (no zone: `Z`, `+` or `-` is no space; no colon: a colon is no digit) can
 * match either, so the longest reading is the only one.
 */
function zoneEnd(line: string, at: number): number {
  const code = line.charCodeAt(at);
  if (code === 90) return at + 1;
  if ((code !== 43 && code !== 45) || !isDigit(line.charCodeAt(at + 1)) || !isDigit(line.charCodeAt(at + 2))) return at;
  const minutes = line.charCodeAt(at + 3) === 58 ? at + 4 : at + 3;
  return isDigit(line.charCodeAt(minutes)) && isDigit(line.charCodeAt(minutes + 1)) ? minutes + 2 : at;
}

/** The length of `^\d{4}-\d\d-\d\dT[0-9:.]+(?:Z|[+-]\d\d:?\d\d)? (?:stdout|stderr) [FP] ` at the start of `line`, or -1. */
export function criPrefixEnd(line: string): number {
  const stamp = leadingStamp(line);
  return stamp > 0 ? criPrefixAfter(line, stamp) : -1;
}

/** `criPrefixEnd`, the line's `leadingStamp` (> 0) read already. */
function criPrefixAfter(line: string, stamp: number): number {
  if (line.charCodeAt(10) !== 84) return -1;
  const at = zoneEnd(line, stamp);
  if (line.charCodeAt(at) !== 32 || line.charCodeAt(at + 7) !== 32 || line.charCodeAt(at + 9) !== 32) return -1;
  if (!line.startsWith('stdout', at + 1) && !line.startsWith('stderr', at + 1)) return -1;
  const partial = line.charCodeAt(at + 8);
  return partial === 70 || partial === 80 ? at + 10 : -1;
}

/**
 * The length of `^\d{4}-\d\d-\d\d[T ][0-9:.]+Z?\s+(?=\{)` at the start of `line`, or -1 (greedy
 * `\s+` given back cannot help: a shorter run leaves a space where `{` must be).
 */
export function timestampBeforeJsonEnd(line: string): number {
  const stamp = leadingStamp(line);
  return stamp > 0 ? jsonAfterStamp(line, stamp) : -1;
}

/** `timestampBeforeJsonEnd`, the line's `leadingStamp` (> 0) read already. */
function jsonAfterStamp(line: string, stamp: number): number {
  const spaces = line.charCodeAt(stamp) === 90 ? stamp + 1 : stamp;
  let at = spaces;
  while (isSpace(line.charCodeAt(at))) at++;
  return at > spaces && line.charCodeAt(at) === OPEN_BRACE ? at : -1;
}

/**
 * JavaScript's `\s` (and what `trim` removes) for one UTF-16 code unit: tab to carriage return,
 * space, no-break space, ogham space mark, the spaces U+2000–U+200A, line and paragraph separators,
 * narrow no-break space, medium mathematical space, ideographic space and the byte order mark.
 */
export function isSpace(code: number): boolean {
  if (code <= 32) return code === 32 || (code >= 9 && code <= 13);
  if (code < 160) return false;
  return (
    code === 160 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000 ||
    code === 0xfeff
  );
}

/**
 * Whether POD_CONTAINER_PREFIX can match: a first word of lower-case letters, digits, dots and
 * dashes up to a space (the pod's name; a timestamp's `T` or `:` ends it), and after the second
 * space (the container's name holds none) a digit or `{`.
 */
function mayBePodContainerPrefix(line: string): boolean {
  let first = 0;
  for (
    let code = line.charCodeAt(0);
    isLowerOrDigit(code) || code === 45 || code === 46;
    code = line.charCodeAt(++first)
  );
  if (first === 0 || line.charCodeAt(first) !== 32) return false;
  const second = line.indexOf(' ', first + 1);
  if (second < 0) return false;
  const next = line.charCodeAt(second + 1);
  return isDigit(next) || next === OPEN_BRACE;
}

/** Whether SYSLOG_PREFIX's short-iso form can match a line whose `leadingStamp` is `stamp` (> 0, with `T`). */
function mayBeSyslogAfter(line: string, stamp: number): boolean {
  return line.charCodeAt(zoneEnd(line, stamp)) === 32;
}

/** `text.trim() === ''`, without the copy for the usual line that starts with a visible ASCII character. */
function isBlank(text: string): boolean {
  const first = text.charCodeAt(0);
  if (first > 32 && first < 127) return false;
  return text.trim() === '';
}

/**
 * A line that is not JSON: klog, zap console, a kubectl event row, or plain text. `from` is where
 * its first visible character is (the text `line.trimStart()`), `stamp` that text's `leadingStamp`
 * (or UNREAD).
 */
function fromText(
  line: string,
  from: number,
  stamp: number,
  origin: RecordOrigin,
  source: ObjectRef | undefined,
  describe?: DescribeContext,
): LogRecord {
  const start = from === 0 ? line : line.slice(from);
  // Each pattern only where its first characters can be: klog's severity letter and a digit, a zap
  // console line's date or level, and the `Normal` or `Warning` every event row holds.
  const first = start.charCodeAt(0);
  if (isDigit(first)) {
    if (stamp === UNREAD) stamp = leadingStamp(start);
    if (stamp > 0 && start.charCodeAt(10) === 84) {
      const zap = zapConsoleRecord(start, zoneEnd(start, stamp), origin, source);
      if (zap) return zap;
    }
  } else if (isZapLevelInitial(first)) {
    const klog = isKlogSeverity(first) && isDigit(start.charCodeAt(1)) ? KLOG.exec(start) : null;
    if (klog) {
      const level = ({ I: 'INFO', W: 'WARN', E: 'ERROR', F: 'FATAL' } as const)[klog[1] as 'I' | 'W' | 'E' | 'F'];
      return record('klog', klog[3]!, klog[3]!, undefined, level, klog[2]!, undefined, undefined, source, origin);
    }
    const zap = zapConsoleRecord(start, 0, origin, source);
    if (zap) return zap;
  }

  if (!start.includes('Warning') && !start.includes('Normal')) return plain(line, origin, source);
  const row = mayBeGetEventsRow(start) ? GET_EVENTS_ROW.exec(start) : null;
  if (row) {
    const object = objectFromSlashRef(row[6]!);
    if (row[1] && object) object.namespace = row[1];
    const event: EventInfo = { type: row[4]!, reason: row[5]!, object };
    if (row[3]) event.count = Number(row[3]);
    return eventRecord(event, row[7]!.trim(), origin, undefined, source, 'kubectl-event-row');
  }
  const describeRow = DESCRIBE_EVENT_ROW.exec(line);
  if (describeRow) {
    const rest = describeRow[3]!;
    const event: EventInfo = { type: describeRow[1]!, reason: describeRow[2]! };
    let message = rest;
    const withObject = OBJECT_THEN_MESSAGE.exec(rest);
    const withAge = withObject ? undefined : DESCRIBE_AGE_FROM.exec(rest);
    if (withObject) {
      event.object = { kind: kindFromResource(withObject[1]!), name: withObject[2]! };
      message = withObject[3]!;
    } else if (withAge) {
      event.component = withAge[2]!;
      message = withAge[3]!;
      const count = REPEAT_COUNT.exec(withAge[1]!);
      if (count) event.count = Number(count[1]);
    }
    if (!event.object && describe?.object) event.object = { ...describe.object };
    return eventRecord(event, message.trim(), origin, undefined, source, 'kubectl-event-row');
  }
  return plain(line, origin, source);
}

/** The repeat count in a describe row's age, `4m (x31 over 50m)`. */
const REPEAT_COUNT = /\(x(\d+) over/;

/**
 * Whether GET_EVENTS_ROW can match: its object column, `[a-zA-Z.]+\/\S+` after a space, needs a `/`
 * with a run of letters and dots before it that a space (`\s`) begins. A `kubectl describe` row
 * (`Warning  FailedScheduling  2m  default-scheduler  0/3 nodes …`) usually has none and is decided
 * without the pattern, which fails slowly on it.
 */
function mayBeGetEventsRow(line: string): boolean {
  for (let slash = line.indexOf('/'); slash >= 0; slash = line.indexOf('/', slash + 1)) {
    let at = slash;
    for (let code = line.charCodeAt(at - 1); isLetterOrDot(code); code = line.charCodeAt(--at - 1));
    if (at < slash && at > 0 && isSpace(line.charCodeAt(at - 1))) return true;
  }
  return false;
}

const isLetterOrDot = (code: number): boolean =>
  (code >= 97 && code <= 122) || (code >= 65 && code <= 90) || code === 46;

/** klog's severities: I, W, E, F. */
const isKlogSeverity = (code: number): boolean => code === 73 || code === 87 || code === 69 || code === 70;
/** First letters of zap's levels (DEBUG … FATAL): D, I, W, E, P, F. */
const isZapLevelInitial = (code: number): boolean => isKlogSeverity(code) || code === 68 || code === 80;

/** zap's levels, in the order of the alternation in zapConsoleLine's pattern (WARN before WARNING). */
const ZAP_LEVELS = ['DEBUG', 'INFO', 'WARN', 'WARNING', 'ERROR', 'DPANIC', 'PANIC', 'FATAL'] as const;

/**
 * A zap console line, read as
 * `^(?:(\d{4}-\d\d-\d\dT[0-9:.]+(?:Z|[+-]\d\d:?\d\d)?)\s+)?(DEBUG|INFO|WARN|WARNING|ERROR|DPANIC|PANIC|FATAL)\s+(.*)$`
 * (dotAll) reads it: the time, the level, and the rest after the spaces that follow the level.
 */
export function zapConsoleLine(line: string): { time: string | undefined; level: string; rest: string } | undefined {
  const stamp = leadingStamp(line);
  const time = stamp > 0 && line.charCodeAt(10) === 84 ? zoneEnd(line, stamp) : 0;
  const level = zapLevelAfter(line, time);
  if (level === undefined) return undefined;
  return { time: time > 0 ? line.slice(0, time) : undefined, level, rest: line.slice(restOf(line, time, level)) };
}

/**
 * The level of a zap console line whose time ends at `time` (0: no time), or undefined when the
 * line is none. With a time, the level comes after its spaces; a line that begins with a digit has
 * no other reading.
 */
function zapLevelAfter(line: string, time: number): string | undefined {
  let at = time;
  if (time > 0) {
    while (isSpace(line.charCodeAt(at))) at++;
    if (at === time) return undefined;
  }
  const initial = line.charCodeAt(at);
  for (const level of ZAP_LEVELS) {
    const end = at + level.length;
    if (level.charCodeAt(0) === initial && isSpace(line.charCodeAt(end)) && line.startsWith(level, at)) return level;
  }
  return undefined;
}

/** Where the message of a zap console line begins: after the spaces that follow its level. */
function restOf(line: string, time: number, level: string): number {
  let at = time;
  if (time > 0) while (isSpace(line.charCodeAt(at))) at++;
  at += level.length + 1;
  while (isSpace(line.charCodeAt(at))) at++;
  return at;
}

function plain(line: string, origin: RecordOrigin, source: ObjectRef | undefined): LogRecord {
  const text = line.trim();
  return record('plain', text, text, undefined, undefined, undefined, undefined, undefined, source, origin);
}

/**
 * The record of a zap console line whose time ends at `time` (0: no time), or undefined when the
 * line is none. Read by positions: the only strings made are the time, the fields' JSON, the
 * logger and the message.
 */
function zapConsoleRecord(
  line: string,
  time: number,
  origin: RecordOrigin,
  source: ObjectRef | undefined,
): LogRecord | undefined {
  const level = zapLevelAfter(line, time);
  if (level === undefined) return undefined;
  const rest = restOf(line, time, level);
  const trailing = trailingJsonObject(line, rest);
  const fields = trailing ? trailing.value : {};
  const bodyEnd = trailing ? trailing.index : line.length;
  // The body without the spaces that end it; it begins with a visible character (or is empty).
  let end = bodyEnd;
  while (end > rest && isSpace(line.charCodeAt(end - 1))) end--;
  let logger: string | undefined;
  let from = rest;
  // The first word (up to a tab or any space) is the logger when it reads as a logger's name, which
  // begins with a lower-case letter.
  let word = rest;
  while (word < bodyEnd && !isSpace(line.charCodeAt(word))) word++;
  const initial = line.charCodeAt(rest);
  if (word > rest && word < end && initial >= 97 && initial <= 122) {
    const firstToken = line.slice(rest, word);
    if (LOGGER_NAME.test(firstToken)) {
      logger = firstToken;
      from = word;
      while (from < end && isSpace(line.charCodeAt(from))) from++;
    }
  }
  const message = from === 0 && end === line.length ? line : line.slice(from, end);
  const error = typeof fields.error === 'string' ? fields.error : undefined;
  return record(
    'zap-console',
    joinText(message, error),
    error ? `${message}: ${error}` : message,
    time > 0 ? parseTimestamp(line.slice(0, time)) : undefined,
    level,
    logger,
    fields,
    undefined,
    source,
    origin,
  );
}

/**
 * A JSON object that ends the line (zap console fields), at `from` or after it, and where it begins;
 * the last few candidates are tried.
 */
function trailingJsonObject(text: string, from: number): { index: number; value: Record<string, unknown> } | undefined {
  let end = text.length;
  while (end > from && isSpace(text.charCodeAt(end - 1))) end--;
  if (end <= from || text.charCodeAt(end - 1) !== CLOSE_BRACE) return undefined;
  let index = end;
  for (let attempt = 0; attempt < 6 && index > from; attempt++) {
    index = text.lastIndexOf('{', index - 1);
    if (index < from) return undefined;
    const before = index === from ? TAB : text.charCodeAt(index - 1);
    // zap writes its fields after a tab; a `{` after another space is more often an inner object.
    if (isSpace(before) && (before === TAB || !closesEarly(text, index, end))) {
      const value = tryJson(text.slice(index, end));
      if (isObject(value)) return { index, value };
    }
  }
  return undefined;
}

/**
 * Whether the braces and brackets opened at `from` (a `{`) all close before `end - 1`, looking at
 * no more than the first 48 characters: then `text.slice(from, end)` is no JSON, and JSON.parse,
 * which throws (an error and its stack trace, several microseconds), is not asked. In JSON the
 * brackets outside strings nest and the value's last character closes the first, so for JSON this
 * is always false; the usual true is a small object inside a zap console line's fields, such as
 * `{"name":"default"}, "namespace": ""…`. False when it cannot tell within the limit.
 */
function closesEarly(text: string, from: number, end: number): boolean {
  const limit = Math.min(end - 1, from + 48);
  let depth = 0;
  for (let at = from; at < limit; at++) {
    const code = text.charCodeAt(at);
    if (code === QUOTE) {
      // A string: skip to its closing quote, past escaped characters.
      at = closingQuote(text, at + 1, limit);
    } else if (code === OPEN_BRACE || code === OPEN_BRACKET) {
      depth++;
    } else if ((code === CLOSE_BRACE || code === CLOSE_BRACKET) && --depth === 0) {
      return true;
    }
  }
  return false;
}

function fromJsonObject(
  value: Record<string, unknown>,
  raw: string,
  origin: RecordOrigin,
  source: ObjectRef | undefined,
): LogRecord {
  // Fluent Bit record: the container line is in `log`, merged JSON in `log_processed` or `data`.
  const log = value.log;
  const kubernetes = value.kubernetes;
  if (typeof log === 'string' || (isObject(kubernetes) && (isObject(value.log_processed) || isObject(value.data)))) {
    const pod = fluentBitSource(kubernetes) ?? source;
    const merged = isObject(value.log_processed) ? value.log_processed : isObject(value.data) ? value.data : undefined;
    if (merged && !isEvent(merged)) return fromJsonObject(merged, raw, origin, pod);
    if (typeof log === 'string') return parseInnerLine(log, origin, pod);
  }
  if (isEvent(value)) return fromEventObject(value, origin, source);
  const journal = journalLine(value);
  if (journal) return withHost(parseInnerLine(journal.message, origin, source), journal.host, journal.unit);
  const message = stringOf(value.message) ?? stringOf(value.msg);
  const error = stringOf(value.error) ?? stringOf(value.err);
  const level = value.level;
  if (message !== undefined || error !== undefined || typeof level === 'string') {
    let text = joinText(message, error);
    // errorCauses the error does not already contain.
    const causes = value.errorCauses;
    if (Array.isArray(causes)) {
      for (const cause of causes as unknown[]) {
        const caused = isObject(cause) ? stringOf(cause.error) : undefined;
        if (caused !== undefined && !(error ?? '').includes(caused)) text = joinText(text, caused);
      }
    }
    const logger = value.logger;
    return record(
      'zap-json',
      text,
      error ? `${message ?? ''}: ${error}` : (message ?? text),
      epochMsOf(value.time ?? value.ts),
      typeof level === 'string' ? upperCaseLevel(level) : undefined,
      typeof logger === 'string' ? logger : undefined,
      value,
      undefined,
      source,
      origin,
    );
  }
  return record('plain', raw, raw, undefined, undefined, undefined, undefined, undefined, source, origin);
}

/** `level.toUpperCase()`, without a new string for the levels zap writes (`error`, `info`, …). */
function upperCaseLevel(level: string): string {
  switch (level) {
    case 'error':
      return 'ERROR';
    case 'info':
      return 'INFO';
    case 'warn':
      return 'WARN';
    case 'debug':
      return 'DEBUG';
    default:
      return level.toUpperCase();
  }
}

/**
 * A host log record as Container Insights ships it: the journal of kubelet.service and friends to
 * `/aws/containerinsights/<cluster>/dataplane` (`hostname`, `systemd_unit`, `message`, renamed from
 * `_HOSTNAME`, `_SYSTEMD_UNIT`, `MESSAGE`), /var/log/messages to `.../host` (`host`, `ident`,
 * `message`). Its message is a line in its own right (klog, zap console, plain text), line breaks
 * that end it included.
 */
function journalLine(value: Record<string, unknown>): { message: string; host?: string; unit?: string } | undefined {
  if ('level' in value || 'logger' in value) return undefined;
  const message = stringOf(value.message) ?? stringOf(value.MESSAGE);
  const unit =
    stringOf(value.systemd_unit) ??
    stringOf(value._SYSTEMD_UNIT) ??
    stringOf(value.SYSLOG_IDENTIFIER) ??
    stringOf(value.ident);
  if (message === undefined || unit === undefined) return undefined;
  return {
    message,
    host: stringOf(value.hostname) ?? stringOf(value._HOSTNAME) ?? stringOf(value.host),
    unit,
  };
}

/** The record of a host's line, with the host and the writing unit kept as fields (a host is a node's name). */
function withHost(parsed: LogRecord, host: string | undefined, unit: string | undefined): LogRecord {
  const fields = { ...parsed.fields, ...(host ? { hostname: host } : {}), ...(unit ? { unit } : {}) };
  return record(
    parsed.format,
    parsed.text,
    parsed.summary,
    parsed.timeMs,
    parsed.level,
    parsed.logger,
    fields,
    parsed.event,
    parsed.source,
    parsed.origin,
  );
}

function isEvent(value: Record<string, unknown>): boolean {
  if (isObject(value.involvedObject) || isObject(value.regarding)) return true;
  // Karpenter's own JSON lines can carry `reason` and `message` too; they also carry a level.
  if ('level' in value || 'logger' in value || 'caller' in value) return false;
  return typeof value.reason === 'string' && typeof (value.message ?? value.eventMessage ?? value.note) === 'string';
}

function fromEventObject(
  value: Record<string, unknown>,
  origin: RecordOrigin,
  source: ObjectRef | undefined,
): LogRecord {
  const involved = isObject(value.involvedObject)
    ? value.involvedObject
    : isObject(value.regarding)
      ? value.regarding
      : {};
  const metadata = isObject(value.metadata) ? value.metadata : {};
  const sourceInfo = isObject(value.source) ? value.source : {};
  const name = stringOf(involved.name);
  const namespace =
    (stringOf(involved.namespace) ?? stringOf(value.eventNamespace) ?? stringOf(metadata.namespace)) || undefined;
  const event: EventInfo = {
    reason: stringOf(value.reason),
    type: stringOf(value.type),
    object: name ? { kind: stringOf(involved.kind), namespace, name } : undefined,
    component:
      stringOf(sourceInfo.component) ?? stringOf(value.reportingComponent) ?? stringOf(value.reportingController),
    count: eventCount(value),
  };
  const uid = stringOf(metadata.uid);
  if (uid) event.uid = uid;
  const eventName = stringOf(metadata.name);
  if (eventName) event.name = `${stringOf(metadata.namespace) ?? ''}/${eventName}`;
  const message = stringOf(value.message) ?? stringOf(value.eventMessage) ?? stringOf(value.note) ?? '';
  const timeMs = epochMsOf(
    value.lastTimestamp ?? value.eventTime ?? value.firstTimestamp ?? metadata.creationTimestamp,
  );
  return eventRecord(event, message, origin, timeMs, source, 'k8s-event');
}

/**
 * How many times an Event object says it happened: core/v1 `count`, or the `series.count` of an
 * events.k8s.io/v1 series (and core/v1 `series`), or `deprecatedCount`; the largest one stated.
 */
function eventCount(value: Record<string, unknown>): number | undefined {
  const series = isObject(value.series) ? value.series.count : undefined;
  return largerCount(largerCount(largerCount(undefined, value.count), series), value.deprecatedCount);
}

/** The larger of `count` and `candidate` (rounded down) when `candidate` is a positive number. */
function largerCount(count: number | undefined, candidate: unknown): number | undefined {
  if (typeof candidate !== 'number' || !Number.isFinite(candidate) || candidate <= 0) return count;
  return Math.max(count ?? 0, Math.floor(candidate));
}

function eventRecord(
  event: EventInfo,
  message: string,
  origin: RecordOrigin,
  timeMs: number | undefined,
  source: ObjectRef | undefined,
  format: 'k8s-event' | 'kubectl-event-row',
): LogRecord {
  const reason = event.reason ?? '';
  const summary = reason ? `${event.type ? `${event.type} ` : ''}${reason}: ${message}` : message;
  const level = event.type === 'Warning' ? 'WARN' : 'INFO';
  return record(format, joinText(reason, message), summary, timeMs, level, undefined, undefined, event, source, origin);
}

/**
 * Every record in one shape: the same members in the same order, absent ones undefined (`fields`
 * empty), so the stages after parsing see one hidden class whatever the input's format. Arguments
 * in that order rather than an object of parts: no object built per record only to be read here.
 */
function record(
  format: LogRecord['format'],
  text: string,
  summary: string,
  timeMs: number | undefined,
  level: string | undefined,
  logger: string | undefined,
  fields: LogRecord['fields'] | undefined,
  event: EventInfo | undefined,
  source: ObjectRef | undefined,
  origin: RecordOrigin,
): LogRecord {
  return { format, text, summary, timeMs, level, logger, fields: fields ?? {}, event, source, origin };
}

/** Notes the object a `kubectl describe` block is about, from its Name/Namespace/Kind header lines. */
export function trackDescribeHeader(line: string, describe: DescribeContext): void {
  // Every line the prefilter skips comes here: one that starts with none of N(ame, amespace), K(ind),
  // P(rovisioner), S(torageClass), C(laim) is decided without running the two patterns below.
  const first = line.charCodeAt(0);
  if (first !== 78 && first !== 75 && first !== 80 && first !== 83 && first !== 67) return;
  const header = DESCRIBE_HEADER.exec(line);
  if (!header) {
    // `Name:` alone reads as a pod; a storage object's own fields say what it is, so its events
    // (ProvisioningFailed on a claim) never name a pod or a workload that does not exist.
    const storage = describe.object ? DESCRIBE_STORAGE_FIELD.exec(line) : null;
    if (storage && describe.object && (describe.object.kind === 'Pod' || storage[1] === 'Provisioner')) {
      describe.object.kind =
        storage[1] === 'Provisioner'
          ? 'StorageClass'
          : storage[1] === 'Claim' || !describe.object.namespace
            ? 'PersistentVolume'
            : 'PersistentVolumeClaim';
    }
    return;
  }
  const value = header[2]!;
  if (header[1] === 'Name') describe.object = { kind: /^ip-\d/.test(value) ? 'Node' : 'Pod', name: value };
  else if (describe.object && header[1] === 'Namespace') describe.object.namespace = value;
  else if (describe.object && header[1] === 'Kind') describe.object.kind = value;
}

function fluentBitSource(kubernetes: unknown): ObjectRef | undefined {
  if (!isObject(kubernetes)) return undefined;
  const name = stringOf(kubernetes.pod_name);
  if (!name) return undefined;
  return {
    kind: 'Pod',
    name,
    namespace: stringOf(kubernetes.namespace_name),
    container: stringOf(kubernetes.container_name) ?? '',
  };
}

function objectFromSlashRef(ref: string): ObjectRef | undefined {
  const slash = ref.indexOf('/');
  if (slash <= 0) return undefined;
  return { kind: kindFromResource(ref.slice(0, slash)), name: unquoted(ref, slash + 1) };
}

/** `text.slice(from)` without one `"` at its start and one at its end (what `.replace(/^"|"$/g, '')` takes away). */
function unquoted(text: string, from: number): string {
  let start = from;
  let end = text.length;
  if (text.charCodeAt(start) === 34) start++;
  if (end > start && text.charCodeAt(end - 1) === 34) end--;
  return text.slice(start, end);
}

const RESOURCE_KINDS: Readonly<Record<string, string>> = {
  pod: 'Pod',
  node: 'Node',
  nodeclaim: 'NodeClaim',
  nodepool: 'NodePool',
  machine: 'Machine',
  provisioner: 'Provisioner',
  ec2nodeclass: 'EC2NodeClass',
  persistentvolumeclaim: 'PersistentVolumeClaim',
  deployment: 'Deployment',
  replicaset: 'ReplicaSet',
  statefulset: 'StatefulSet',
  daemonset: 'DaemonSet',
};

/**
 * The kind a resource name stands for: its part before the first dot, case ignored. Resource names reach here as `[a-zA-Z.]+` (the row patterns),
 * whose lower case is one character for one.
 */
function kindFromResource(resource: string): string {
  const dot = resource.indexOf('.');
  const name = (dot < 0 ? resource : resource.slice(0, dot)).toLowerCase();
  // Own members only: `constructor/web-1` is a row's text, and Object's constructor no kind.
  return Object.hasOwn(RESOURCE_KINDS, name) ? RESOURCE_KINDS[name]! : resource;
}

/** The parts that are not empty, joined by ` | ` (what the classifier reads of a record). */
function joinText(first: string | undefined, second: string | undefined): string {
  if (!first) return second || '';
  return second ? `${first} | ${second}` : first;
}

const stringOf = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/** The text without the line breaks that end it (no regex: this runs on every line). */
export function withoutTrailingNewlines(text: string): string {
  const end = endWithoutNewlines(text);
  return end === text.length ? text : text.slice(0, end);
}

/** Where the line breaks that end the text begin (its length when there are none). */
function endWithoutNewlines(text: string): number {
  let end = text.length;
  while (end > 0) {
    const code = text.charCodeAt(end - 1);
    if (code !== 10 && code !== 13) break;
    end--;
  }
  return end;
}

/**
 * A physical line that continues the previous record: AWS SDK v1 errors embed `\ncaused by:` and
 * `\n\tstatus code:`, and stack traces follow panics. Such lines carry no timestamp, level or JSON.
 */
export function isContinuationLine(line: string): boolean {
  // Only a tab, a space, 'c', 'g' or 's' can start one: most lines are decided by their first character.
  const first = line.charCodeAt(0);
  if (first !== 9 && first !== 32 && first !== 99 && first !== 103 && first !== 115) return false;
  if (/^\t(?:status code|caused by|goroutine|\S+\.go:\d)/.test(line)) return true;
  if (/^(?:caused by: |\s+at |goroutine \d+ |\s*status code: \d{3})/.test(line)) return true;
  return false;
}
