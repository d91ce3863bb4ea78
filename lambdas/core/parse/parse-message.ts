import { isObject, tryJson } from '../common/json';
import type { EventInfo, LogRecord, ObjectRef, RecordOrigin } from '../model';
import { epochMsOf, parseTimestamp } from '../common/timestamp';

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

const CRI_PREFIX = /^\d{4}-\d\d-\d\dT[0-9:.]+(?:Z|[+-]\d\d:?\d\d)? (?:stdout|stderr) [FP] /;
const KUBECTL_POD_PREFIX = /^\[pod\/([a-z0-9.-]+)\/([a-z0-9-]+)\] /;
const POD_CONTAINER_PREFIX = /^([a-z0-9][a-z0-9.-]*-[a-z0-9]{5}) ([a-z0-9-]+) (?=\d{4}-\d\d-\d\d|\{)/;
const TIMESTAMP_BEFORE_JSON = /^\d{4}-\d\d-\d\d[T ][0-9:.]+Z?\s+(?=\{)/;
/**
 * A syslog or journal prefix, as in /var/log/messages and `journalctl` (short and short-iso):
 * `Jan  2 15:04:05 ip-10-0-1-2 kubelet[1234]: ` or `2024-01-02T15:04:05+0000 ip-10-0-1-2 nodeadm[99]: `.
 */
const SYSLOG_PREFIX =
  /^(?:[A-Z][a-z]{2} [ 0-9]\d \d\d:\d\d:\d\d|\d{4}-\d\d-\d\dT[0-9:.]+(?:Z|[+-]\d\d:?\d\d)?) ([A-Za-z0-9.-]{1,253}) ([A-Za-z0-9_.@/-]{1,64})(?:\[\d{1,10}\])?: /;
const KLOG = /^([IWEF])\d{4} \d\d:\d\d:\d\d\.\d+ +\d+ ([^\]\s]+)\] (.*)$/s;
const ZAP_CONSOLE =
  /^(?:(\d{4}-\d\d-\d\dT[0-9:.]+(?:Z|[+-]\d\d:?\d\d)?)\s+)?(DEBUG|INFO|WARN|WARNING|ERROR|DPANIC|PANIC|FATAL)\s+(.*)$/s;
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
  CRI_PREFIX,
  KUBECTL_POD_PREFIX,
  POD_CONTAINER_PREFIX,
  TIMESTAMP_BEFORE_JSON,
  SYSLOG_PREFIX,
  KLOG,
  ZAP_CONSOLE,
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
  if (line.trim() === '') return undefined;
  if (describe) trackDescribeHeader(line, describe);
  return parseLine(line, origin, undefined, describe);
}

function parseLine(
  input: string,
  origin: RecordOrigin,
  source: ObjectRef | undefined,
  describe?: DescribeContext,
): LogRecord {
  let line = input;
  // A JSON line has no prefix: none of the prefixes below starts with `{`.
  if (line.charCodeAt(0) === 123) return fromLine(line, origin, source, describe);
  const cri = CRI_PREFIX.exec(line);
  if (cri) line = line.slice(cri[0].length);
  const kubectlPrefix = KUBECTL_POD_PREFIX.exec(line);
  if (kubectlPrefix) {
    source = { kind: 'Pod', name: kubectlPrefix[1]! };
    line = line.slice(kubectlPrefix[0].length);
  }
  const podPrefix = POD_CONTAINER_PREFIX.exec(line);
  if (podPrefix) {
    source = { kind: 'Pod', name: podPrefix[1]! };
    line = line.slice(podPrefix[0].length);
  }
  const stamp = TIMESTAMP_BEFORE_JSON.exec(line);
  if (stamp) line = line.slice(stamp[0].length);
  const syslog = stamp ? null : SYSLOG_PREFIX.exec(line);
  if (syslog) {
    const record = parseLine(line.slice(syslog[0].length), origin, source, describe);
    return withHost(record, syslog[1]!, syslog[2]!);
  }

  return fromLine(line, origin, source, describe);
}

/** A line without its prefixes: a JSON object, or text. */
function fromLine(
  line: string,
  origin: RecordOrigin,
  source: ObjectRef | undefined,
  describe: DescribeContext | undefined,
): LogRecord {
  const trimmed = line.trim();
  if (trimmed.startsWith('{') && trimmed.endsWith('}')) {
    const value = tryJson(trimmed);
    if (isObject(value)) return fromJsonObject(value, trimmed, origin, source);
  }
  return fromText(line, origin, source, describe);
}

function fromText(
  line: string,
  origin: RecordOrigin,
  source: ObjectRef | undefined,
  describe?: DescribeContext,
): LogRecord {
  const start = line.trimStart();
  const klog = KLOG.exec(start);
  if (klog) {
    const level = ({ I: 'INFO', W: 'WARN', E: 'ERROR', F: 'FATAL' } as const)[klog[1] as 'I' | 'W' | 'E' | 'F'];
    return base('klog', klog[3]!, klog[3]!, origin, { level, logger: klog[2]!, source });
  }
  const zap = ZAP_CONSOLE.exec(start);
  if (zap) return fromZapConsole(zap[1], zap[2]!, zap[3]!, origin, source);

  const row = GET_EVENTS_ROW.exec(start);
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
      const count = /\(x(\d+) over/.exec(withAge[1]!);
      if (count) event.count = Number(count[1]);
    }
    if (!event.object && describe?.object) event.object = { ...describe.object };
    return eventRecord(event, message.trim(), origin, undefined, source, 'kubectl-event-row');
  }
  return base('plain', line.trim(), line.trim(), origin, { source });
}

function fromZapConsole(
  time: string | undefined,
  level: string,
  rest: string,
  origin: RecordOrigin,
  source: ObjectRef | undefined,
): LogRecord {
  let body = rest;
  let fields: Record<string, unknown> = {};
  const trailing = trailingJsonObject(rest);
  if (trailing) {
    fields = trailing.value;
    body = rest.slice(0, trailing.index);
  }
  let logger: string | undefined;
  let message = body.trim();
  const tab = body.indexOf('\t');
  const firstToken = tab > 0 && !/\s/.test(body.slice(0, tab)) ? body.slice(0, tab) : /^\S+/.exec(body)?.[0];
  if (firstToken && firstToken.length < body.trim().length && LOGGER_NAME.test(firstToken)) {
    logger = firstToken;
    message = body.slice(firstToken.length).trim();
  }
  const error = typeof fields.error === 'string' ? fields.error : undefined;
  return {
    format: 'zap-console',
    text: joinText([message, error]),
    summary: error ? `${message}: ${error}` : message,
    timeMs: time === undefined ? undefined : parseTimestamp(time),
    level,
    logger,
    fields,
    source,
    origin,
  };
}

/** Finds a JSON object that ends the line (zap console fields), trying the last few candidates. */
function trailingJsonObject(text: string): { index: number; value: Record<string, unknown> } | undefined {
  const end = text.trimEnd();
  if (!end.endsWith('}')) return undefined;
  // zap's console encoder writes the fields after the last tab: tried first, as a failed parse (of a
  // nested object's brace, below) throws, and a throw costs more than the parse.
  const tab = end.lastIndexOf('\t');
  if (tab >= 0 && end.charCodeAt(tab + 1) === 123 /* { */) {
    const value = tryJson(end.slice(tab + 1));
    if (isObject(value)) return { index: tab + 1, value };
  }
  let from = end.length;
  for (let attempt = 0; attempt < 6; attempt++) {
    const index = end.lastIndexOf('{', from - 1);
    if (index < 0) return undefined;
    if (index === 0 || /\s/.test(end[index - 1]!)) {
      const value = tryJson(end.slice(index));
      if (isObject(value)) return { index, value };
    }
    from = index;
  }
  return undefined;
}

function fromJsonObject(
  value: Record<string, unknown>,
  raw: string,
  origin: RecordOrigin,
  source: ObjectRef | undefined,
): LogRecord {
  // Fluent Bit record: the container line is in `log`, merged JSON in `log_processed` or `data`.
  if (
    typeof value.log === 'string' ||
    (isObject(value.kubernetes) && (isObject(value.log_processed) || isObject(value.data)))
  ) {
    const pod = fluentBitSource(value.kubernetes) ?? source;
    const merged = [value.log_processed, value.data].find(isObject);
    if (merged && !isEvent(merged)) return fromJsonObject(merged, raw, origin, pod);
    if (typeof value.log === 'string') return parseLine(withoutTrailingNewlines(value.log), origin, pod);
  }
  if (isEvent(value)) return fromEventObject(value, origin, source);
  const journal = journalLine(value);
  if (journal) return withHost(parseLine(journal.message, origin, source), journal.host, journal.unit);
  const wrapped = wrappedRecord(value);
  if (wrapped) return fromJsonObject(wrapped, raw, origin, source);
  const message = firstString(value.message, value.msg);
  const error = firstString(value.error, value.err);
  if (message !== undefined || error !== undefined || typeof value.level === 'string') {
    const causes = Array.isArray(value.errorCauses)
      ? value.errorCauses
          .map((cause) => (isObject(cause) ? firstString(cause.error) : undefined))
          .filter((cause): cause is string => cause !== undefined && !(error ?? '').includes(cause))
      : [];
    const text = joinText([message, error, ...causes]);
    return {
      format: 'zap-json',
      text,
      summary: error ? `${message ?? ''}: ${error}` : (message ?? text),
      timeMs: epochMsOf(value.time ?? value.ts),
      level: typeof value.level === 'string' ? value.level.toUpperCase() : undefined,
      logger: typeof value.logger === 'string' ? value.logger : undefined,
      fields: value,
      source,
      origin,
    };
  }
  return base('plain', raw, raw, origin, { source });
}

/**
 * A host log record as Container Insights ships it: the journal of kubelet.service and friends to
 * `/aws/containerinsights/<cluster>/dataplane` (`hostname`, `systemd_unit`, `message`, renamed from
 * `_HOSTNAME`, `_SYSTEMD_UNIT`, `MESSAGE`), /var/log/messages to `.../host` (`host`, `ident`,
 * `message`). Its message is a line in its own right (klog, zap console, plain text).
 */
function journalLine(value: Record<string, unknown>): { message: string; host?: string; unit?: string } | undefined {
  if ('level' in value || 'logger' in value) return undefined;
  const message = firstString(value.message, value.MESSAGE);
  const unit = firstString(value.systemd_unit, value._SYSTEMD_UNIT, value.SYSLOG_IDENTIFIER, value.ident);
  if (message === undefined || unit === undefined) return undefined;
  return {
    message: withoutTrailingNewlines(message),
    host: firstString(value.hostname, value._HOSTNAME, value.host),
    unit,
  };
}

/**
 * A zap line (or an Event) inside a generic envelope, as a JSON log delivery may wrap it (EKS Auto
 * Mode's vended logs have no public sample): the `message`, a JSON string or an object. Only one
 * level: what it returns has a level, a logger or is an Event, which no envelope test matches again.
 */
function wrappedRecord(value: Record<string, unknown>): Record<string, unknown> | undefined {
  if ('level' in value || 'logger' in value) return undefined;
  let inner = value.message;
  if (typeof inner === 'string') {
    const trimmed = inner.trim();
    inner = trimmed.startsWith('{') && trimmed.endsWith('}') ? tryJson(trimmed) : undefined;
  }
  if (!isObject(inner)) return undefined;
  return typeof inner.level === 'string' || typeof inner.logger === 'string' || isEvent(inner) ? inner : undefined;
}

/** The record of a host's line, with the host and the writing unit kept as fields (a host is a node's name). */
function withHost(record: LogRecord, host: string | undefined, unit: string | undefined): LogRecord {
  return { ...record, fields: { ...record.fields, ...(host ? { hostname: host } : {}), ...(unit ? { unit } : {}) } };
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
  const name = firstString(involved.name);
  const namespace = firstString(involved.namespace, value.eventNamespace, metadata.namespace) || undefined;
  const event: EventInfo = {
    reason: firstString(value.reason),
    type: firstString(value.type),
    object: name ? { kind: firstString(involved.kind), namespace, name } : undefined,
    component: firstString(sourceInfo.component, value.reportingComponent, value.reportingController),
    count: eventCount(value),
  };
  const uid = firstString(metadata.uid);
  if (uid) event.uid = uid;
  const eventName = firstString(metadata.name);
  if (eventName) event.name = `${firstString(metadata.namespace) ?? ''}/${eventName}`;
  const message = firstString(value.message, value.eventMessage, value.note) ?? '';
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
  let count: number | undefined;
  for (const candidate of [value.count, series, value.deprecatedCount]) {
    if (typeof candidate === 'number' && Number.isFinite(candidate) && candidate > 0) {
      count = Math.max(count ?? 0, Math.floor(candidate));
    }
  }
  return count;
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
  return {
    format,
    text: joinText([reason, message]),
    summary: reason ? `${event.type ? `${event.type} ` : ''}${reason}: ${message}` : message,
    timeMs,
    level: event.type === 'Warning' ? 'WARN' : 'INFO',
    fields: {},
    event,
    source,
    origin,
  };
}

function base(
  format: LogRecord['format'],
  text: string,
  summary: string,
  origin: RecordOrigin,
  extra: Pick<LogRecord, 'level' | 'logger' | 'source'>,
): LogRecord {
  return { format, text, summary, fields: {}, origin, ...extra };
}

/** Notes the object a `kubectl describe` block is about, from its Name/Namespace/Kind header lines. */
export function trackDescribeHeader(line: string, describe: DescribeContext): void {
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
  const name = firstString(kubernetes.pod_name);
  if (!name) return undefined;
  return {
    kind: 'Pod',
    name,
    namespace: firstString(kubernetes.namespace_name),
    container: firstString(kubernetes.container_name) ?? '',
  };
}

function objectFromSlashRef(ref: string): ObjectRef | undefined {
  const slash = ref.indexOf('/');
  if (slash <= 0) return undefined;
  return { kind: kindFromResource(ref.slice(0, slash)), name: ref.slice(slash + 1).replace(/^"|"$/g, '') };
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

function kindFromResource(resource: string): string {
  const name = resource.toLowerCase().split('.')[0]!;
  // Own members only: `constructor/web-1` is a row's text, and Object's constructor no kind.
  return Object.hasOwn(RESOURCE_KINDS, name) ? RESOURCE_KINDS[name]! : resource;
}

function firstString(...values: unknown[]): string | undefined {
  for (const value of values) if (typeof value === 'string') return value;
  return undefined;
}

/** The non-empty parts joined by ` | `; a record's only part (most have one) is its text as it is. */
function joinText(parts: Array<string | undefined>): string {
  let only: string | undefined;
  for (const part of parts) {
    if (!part) continue;
    if (only !== undefined) return parts.filter((each) => each).join(' | ');
    only = part;
  }
  return only ?? '';
}

/** The text without the line breaks that end it (no regex: this runs on every line). */
export function withoutTrailingNewlines(text: string): string {
  let end = text.length;
  while (end > 0) {
    const code = text.charCodeAt(end - 1);
    if (code !== 10 && code !== 13) break;
    end--;
  }
  return end === text.length ? text : text.slice(0, end);
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
