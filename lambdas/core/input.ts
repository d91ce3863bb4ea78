import type { RawMessage } from './assemble';
import {
  decodeSubscriptionData,
  isObject,
  toSubscriptionDocument,
  tryJson,
  type CloudWatchLogEvent,
  type SubscriptionDocument,
} from './decode';
import type { RecordOrigin } from './model';

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
  const trimmed = content.trim();
  if ((trimmed.startsWith('{') && trimmed.endsWith('}')) || (trimmed.startsWith('[') && trimmed.endsWith(']'))) {
    const whole = tryJson(trimmed);
    if (whole !== undefined) {
      const messages = fromJsonDocument(whole, file, stats);
      if (messages) return messages;
    }
  }
  const messages: RawMessage[] = [];
  const lines = content.split(/\r?\n/);
  lines.forEach((line, index) => {
    if (line.trim() === '') return;
    const origin = { file, line: index + 1 };
    if (line.startsWith('{"awslogs"') || line.startsWith('{"messageType"')) {
      const value = tryJson(line);
      const fromDocument = value === undefined ? undefined : fromJsonDocument(value, file, stats);
      if (fromDocument) {
        messages.push(...fromDocument);
        return;
      }
    }
    messages.push({ message: line, origin });
  });
  return messages;
}

/** Messages of a JSON document that is a container of log data, or undefined when it is one record. */
function fromJsonDocument(value: unknown, file: string, stats: InputStats): RawMessage[] | undefined {
  if (Array.isArray(value)) {
    const messages: RawMessage[] = [];
    value.forEach((item, index) => {
      const inner = fromJsonDocument(item, file, stats);
      if (inner) messages.push(...inner);
      else messages.push({ message: JSON.stringify(item), origin: { file, line: index + 1 } });
    });
    return messages;
  }
  if (!isObject(value)) return undefined;
  if (isObject(value.awslogs)) {
    const decoded = decodeSubscriptionData(value.awslogs.data);
    return decoded.ok ? [...fromDocument(decoded.document, stats)] : malformed(stats, decoded.reason);
  }
  if ('messageType' in value && 'logEvents' in value) {
    const decoded = toSubscriptionDocument(value);
    return decoded.ok ? [...fromDocument(decoded.document, stats)] : malformed(stats, decoded.reason);
  }
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
  const { logGroup, logStream, logEvents } = document;
  return {
    *[Symbol.iterator]() {
      for (const event of logEvents) yield new CloudWatchMessage(event, logGroup, logStream, document);
    },
  };
}

/** A CloudWatch log event as a message; its origin is built only if the record is kept. */
class CloudWatchMessage implements RawMessage {
  readonly message: string;

  constructor(
    private readonly event: CloudWatchLogEvent,
    private readonly logGroup: string,
    private readonly logStream: string,
    /** All messages of one document share its stream. */
    readonly stream: object,
  ) {
    this.message = event.message;
  }

  get origin(): RecordOrigin {
    return {
      logGroup: this.logGroup,
      logStream: this.logStream,
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
