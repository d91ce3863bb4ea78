import type { RawMessage } from '../parse/assemble';
import { isObject, tryJson } from '../common/json';
import { awsLogsOutputMessages } from './aws-logs-output';
import {
  decodeSubscriptionData,
  toSubscriptionDocument,
  type CloudWatchLogEvent,
  type SubscriptionDocument,
} from './subscription-payload';
import type { RecordOrigin } from '../model';

/** What reading one input found, beside the messages themselves. */
export interface InputStats {
  /** Payloads or events that could not be decoded; each is skipped and the rest is read. */
  malformed: number;
  /** CONTROL_MESSAGE deliveries, which carry no log data. */
  controlMessages: number;
  /** Why the first malformed payloads were refused. */
  problems: string[];
}

/**
 * Splits the content of a local input into messages, whatever it holds, mixed: plain log lines,
 * Fluent Bit or Event JSON lines, kubectl output, a Lambda `{"awslogs":{"data":…}}` event (or a list
 * of them), a decoded subscription document, or a Kubernetes EventList.
 */
export function readInput(content: string, file: string, stats: InputStats): RawMessage[] {
  const messages: RawMessage[] = [];
  const reader = new InputReader(file, stats, (message) => messages.push(message));
  let start = 0;
  while (start <= content.length) {
    const end = content.indexOf('\n', start);
    if (end === -1) {
      if (start < content.length) reader.line(content.slice(start));
      break;
    }
    reader.line(content.slice(start, end));
    start = end + 1;
  }
  reader.end();
  return messages;
}

/** A pretty-printed JSON document larger than this is read as lines instead. */
export const MAX_DOCUMENT_CHARS = 64 * 1024 * 1024;

/**
 * Reads one local input a line at a time, with constant memory, and hands on its messages as soon
 * as they are complete. Lines are messages, except JSON containers of log data: a compact one on
 * the first line or on an `awslogs`/`messageType` line, and a pretty-printed document (a `{` or `[`
 * line, indented lines, a closing `}` or `]` line, as jq, kubectl `-o json --watch` and
 * JSON.stringify write them), which is held until it closes, then read as one value.
 */
export class InputReader {
  private lineNumber = 0;
  private seenContent = false;
  private held: string[] = [];
  private heldChars = 0;
  private heldFrom = 0;

  constructor(
    private readonly file: string,
    private readonly stats: InputStats,
    private readonly emit: (message: RawMessage) => void,
  ) {}

  /** One line, without its line break (a trailing carriage return is dropped). */
  line(raw: string): void {
    this.lineNumber++;
    const text = raw.charCodeAt(raw.length - 1) === 13 ? raw.slice(0, -1) : raw;
    if (this.held.length > 0) {
      const first = text.charCodeAt(0);
      if (first === CLOSE_BRACE || first === CLOSE_BRACKET) {
        this.held.push(text);
        this.heldChars += text.length;
        if (this.tryHeldDocument()) return;
      } else if (text === '' || first === SPACE || first === TAB) {
        this.held.push(text);
        this.heldChars += text.length;
      } else {
        // Not the inside of a pretty-printed document after all: what was held is lines.
        this.releaseHeld();
        this.single(text, this.lineNumber);
        return;
      }
      if (this.heldChars > MAX_DOCUMENT_CHARS) this.releaseHeld();
      return;
    }
    if (isBlank(text)) return;
    const trimmed = text.trim();
    if (opensDocument(trimmed)) {
      this.held = [text];
      this.heldChars = text.length;
      this.heldFrom = this.lineNumber;
      return;
    }
    this.single(text, this.lineNumber);
  }

  /** The end of the input: a document still open is read as lines. */
  end(): void {
    if (this.held.length > 0) this.releaseHeld();
  }

  private single(text: string, line: number): void {
    const firstContent = !this.seenContent;
    this.seenContent = true;
    const origin = { file: this.file, line };
    const first = text.charCodeAt(0);
    if (
      (first === OPEN_BRACE || first === OPEN_BRACKET) &&
      (firstContent || text.startsWith('{"awslogs"') || text.startsWith('{"messageType"'))
    ) {
      const value = tryJson(text);
      const fromDocument = value === undefined ? undefined : fromJsonDocument(value, this.file, this.stats);
      if (fromDocument) {
        for (const message of fromDocument) this.emit(message);
        return;
      }
    }
    this.emit({ message: text, origin });
  }

  private tryHeldDocument(): boolean {
    const value = tryJson(this.held.join('\n'));
    if (value === undefined) return false;
    const line = this.heldFrom;
    this.held = [];
    this.heldChars = 0;
    this.seenContent = true;
    const messages = fromJsonDocument(value, this.file, this.stats);
    if (messages) for (const message of messages) this.emit(message);
    else this.emit({ message: JSON.stringify(value), origin: { file: this.file, line } });
    return true;
  }

  private releaseHeld(): void {
    const lines = this.held;
    const from = this.heldFrom;
    this.held = [];
    this.heldChars = 0;
    lines.forEach((text, index) => {
      if (!isBlank(text)) this.single(text, from + index);
    });
  }
}

const OPEN_BRACE = 123;
const CLOSE_BRACE = 125;
const OPEN_BRACKET = 91;
const CLOSE_BRACKET = 93;
const SPACE = 32;
const TAB = 9;

/** A line that starts a pretty-printed JSON value: `{` or `[` and not already closed on the line. */
function opensDocument(trimmed: string): boolean {
  const first = trimmed.charCodeAt(0);
  const last = trimmed.charCodeAt(trimmed.length - 1);
  if (first === OPEN_BRACE) return last !== CLOSE_BRACE;
  if (first === OPEN_BRACKET) return last !== CLOSE_BRACKET;
  return false;
}

function isBlank(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 32) return false;
  return true;
}

/** Messages of a JSON document that is a container of log data, or undefined when it is one record. */
function fromJsonDocument(value: unknown, file: string, stats: InputStats): Iterable<RawMessage> | undefined {
  if (Array.isArray(value)) {
    const messages: RawMessage[] = [];
    value.forEach((item, index) => {
      const inner = fromJsonDocument(item, file, stats);
      if (inner) for (const message of inner) messages.push(message);
      else messages.push({ message: JSON.stringify(item), origin: { file, line: index + 1 } });
    });
    return messages;
  }
  if (!isObject(value)) return undefined;
  if (isObject(value.awslogs)) {
    const decoded = decodeSubscriptionData(value.awslogs.data);
    return decoded.ok ? fromDocument(decoded.document, stats) : malformed(stats, decoded.reason);
  }
  if ('messageType' in value && 'logEvents' in value) {
    const decoded = toSubscriptionDocument(value);
    return decoded.ok ? fromDocument(decoded.document, stats) : malformed(stats, decoded.reason);
  }
  const awsLogsOutput = awsLogsOutputMessages(value, file);
  if (awsLogsOutput) return awsLogsOutput;
  if (Array.isArray(value.items) && (value.kind === 'EventList' || value.kind === 'List' || value.apiVersion)) {
    return value.items.map((item, index) => ({ message: JSON.stringify(item), origin: { file, line: index + 1 } }));
  }
  return undefined;
}

/**
 * The messages of a decoded subscription document, with their CloudWatch origin. Counted at once,
 * yielded lazily: each message object lives only while it is looked at, so a 1 MB batch does not
 * keep thousands of them alive at the same time.
 */
export function fromDocument(document: SubscriptionDocument, stats: InputStats): Iterable<RawMessage> {
  stats.malformed += document.malformedEvents;
  if (document.messageType === 'CONTROL_MESSAGE') {
    stats.controlMessages++;
    return [];
  }
  return { [Symbol.iterator]: () => new CloudWatchMessages(document) };
}

class CloudWatchMessages implements Iterator<RawMessage> {
  private index = 0;

  constructor(private readonly document: SubscriptionDocument) {}

  next(): IteratorResult<RawMessage> {
    const events = this.document.logEvents;
    if (this.index >= events.length) return { value: undefined, done: true };
    const at = this.index++;
    return { value: new CloudWatchMessage(events[at]!, this.document), done: false };
  }
}

/** A CloudWatch log event as a message; its origin is built only if the record is kept. */
class CloudWatchMessage implements RawMessage {
  readonly message: string;

  constructor(
    private readonly event: CloudWatchLogEvent,
    /** All messages of one document share its stream. */
    readonly stream: SubscriptionDocument,
  ) {
    this.message = event.message;
  }

  get origin(): RecordOrigin {
    return {
      logGroup: this.stream.logGroup,
      logStream: this.stream.logStream,
      eventId: this.event.id,
      timestampMs: this.event.timestamp,
    };
  }
}

function malformed(stats: InputStats, reason: string): RawMessage[] {
  stats.malformed++;
  if (stats.problems.length < 5) stats.problems.push(reason);
  return [];
}

export const emptyInputStats = (): InputStats => ({ malformed: 0, controlMessages: 0, problems: [] });
