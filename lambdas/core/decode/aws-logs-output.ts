import type { RawMessage } from '../parse/assemble';
import { isObject } from '../common/json';

/**
 * The messages of what `aws logs filter-log-events` or `aws logs get-log-events` print: an `events`
 * array of `{logStreamName?, timestamp, message, ingestionTime, eventId?}` beside `searchedLogStreams`
 * and `nextToken` (filter) or `nextForwardToken`/`nextBackwardToken` (get), one message per event,
 * with its stream, id and time. Undefined when the value is not such an output.
 */
export function awsLogsOutputMessages(value: unknown, file: string): RawMessage[] | undefined {
  if (!isAwsLogsOutput(value)) return undefined;
  // One stream object per log stream: the assembler joins continuation lines only within a stream.
  const streams = new Map<string, object>();
  const streamOf = (name: string): object => {
    let stream = streams.get(name);
    if (!stream) streams.set(name, (stream = { logStream: name }));
    return stream;
  };
  const messages: RawMessage[] = [];
  value.events.forEach((event, index) => {
    if (!isObject(event) || typeof event.message !== 'string') return;
    const logStream = typeof event.logStreamName === 'string' ? event.logStreamName : undefined;
    messages.push({
      message: event.message,
      origin: {
        file,
        line: index + 1,
        ...(logStream !== undefined ? { logStream } : {}),
        ...(typeof event.eventId === 'string' ? { eventId: event.eventId } : {}),
        ...(typeof event.timestamp === 'number' ? { timestampMs: event.timestamp } : {}),
      },
      stream: streamOf(logStream ?? ''),
    });
  });
  return messages;
}

const PAGING_KEYS = ['searchedLogStreams', 'nextToken', 'nextForwardToken', 'nextBackwardToken'] as const;

/**
 * The CLI's shape: an `events` array whose entries carry a string message and a numeric timestamp,
 * and a paging key of either command (present even on the last page of get-log-events; filter-log-events
 * always prints searchedLogStreams), or events with CloudWatch's own `ingestionTime`.
 */
function isAwsLogsOutput(value: unknown): value is { events: unknown[] } {
  if (!isObject(value) || !Array.isArray(value.events)) return false;
  const events = value.events as unknown[];
  const logEvent = (event: unknown): boolean =>
    isObject(event) && typeof event.message === 'string' && typeof event.timestamp === 'number';
  if (!events.every(logEvent)) return false;
  return (
    PAGING_KEYS.some((key) => key in value) ||
    (events.length > 0 && events.every((e) => 'ingestionTime' in (e as object)))
  );
}
