import type { LogRecord, RecordOrigin } from './model';
import { type DescribeContext, isContinuationLine, parseMessage } from './parse';

/** One message as it arrives: a CloudWatch log event, or one line of a local file. */
export interface RawMessage {
  message: string;
  origin: RecordOrigin;
}

/** Continuations are joined up to this size; a record never grows past it. */
const MAX_RECORD_CHARS = 256 * 1024;

/**
 * Turns a stream of messages into records: continuation lines (no timestamp, level or JSON; e.g.
 * `\tstatus code: 403` or `caused by: …`) are appended to the record before them from the same
 * stream, and `kubectl describe` headers give their Events rows an object.
 */
export function* assembleRecords(messages: Iterable<RawMessage>): Generator<LogRecord> {
  let pending: RawMessage | undefined;
  let pendingStream: string | undefined;
  const describe: DescribeContext = {};
  for (const raw of messages) {
    const stream = streamOf(raw.origin);
    if (
      pending &&
      stream === pendingStream &&
      isContinuationLine(raw.message) &&
      pending.message.length + raw.message.length < MAX_RECORD_CHARS
    ) {
      pending = { message: `${pending.message.replace(/[\r\n]+$/, '')}\n${raw.message}`, origin: pending.origin };
      continue;
    }
    if (pending) {
      const record = parseMessage(pending.message, pending.origin, describe);
      if (record) yield record;
    }
    if (stream !== pendingStream) describe.object = undefined;
    pending = raw;
    pendingStream = stream;
  }
  if (pending) {
    const record = parseMessage(pending.message, pending.origin, describe);
    if (record) yield record;
  }
}

const streamOf = (origin: RecordOrigin): string =>
  `${origin.file ?? ''}\u0000${origin.logGroup ?? ''}\u0000${origin.logStream ?? ''}`;
