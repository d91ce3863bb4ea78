/**
 * The events of a delivery read from its bytes (envelope-index.ts), as the pipeline reads them: the
 * index's shape and the accessors that build an event's id, timestamp and message on demand. Apart
 * from the scanner that builds the index, so that what reads an index (input.ts, the document's
 * `logEvents`) stays in the file a cold start loads while the scanner, its automaton and its
 * generated fragments are a file of their own, loaded on the first delivery decoded
 * (subscription-payload.ts, `envelopeScanner`).
 */

/** One event of an indexed envelope, as the pipeline reads it. */
export interface IndexedEvent {
  id: string;
  timestamp: number;
  message: string;
}

/** How an event is read. */
export const EventKind = {
  /** No fragment, no anomaly, and a first byte no other test of the prefilter or the assembler needs. */
  Settled: 0,
  /** No fragment and no anomaly: its message is its string literal, parsed when read. */
  Literal: 1,
  /** A hit in its id or message: parsed as a whole, kept in `parsed`. */
  Parsed: 2,
} as const;

/** The header of the document: everything but `logEvents`, parsed. */
export type EnvelopeHeader = Record<string, unknown>;

export interface EnvelopeIndex {
  header: EnvelopeHeader;
  bytes: Uint8Array;
  /** Events kept (malformed ones are left out, as the whole-document path leaves them out). */
  count: number;
  /** Events left out because they are not `{…, message: string}` objects. */
  malformed: number;
  kinds: Uint8Array;
  /** Per event: start of the id, its closing quote, start of the message, its closing quote. */
  offsets: Int32Array;
  /** The events parsed as a whole, by index. */
  parsed: Map<number, IndexedEvent>;
}

/** What follows an event's id: the timestamp's key, whose digits run up to `,"message":"`. */
export const TIMESTAMP = '","timestamp":';
/** What follows an event's timestamp: `,"message":"`, 12 bytes. */
const MESSAGE_KEY_LENGTH = 12;

/** The message of event `i`. */
export function messageOf(index: EnvelopeIndex, i: number): string {
  if (index.kinds[i] === EventKind.Parsed) return index.parsed.get(i)!.message;
  const o = 4 * i;
  return literal(index.bytes, index.offsets[o + 2]!, index.offsets[o + 3]!);
}

/** The id of event `i`. */
export function idOf(index: EnvelopeIndex, i: number): string {
  if (index.kinds[i] === EventKind.Parsed) return index.parsed.get(i)!.id;
  const o = 4 * i;
  return literal(index.bytes, index.offsets[o]!, index.offsets[o + 1]!);
}

/** The timestamp of event `i`. */
export function timestampOf(index: EnvelopeIndex, i: number): number {
  if (index.kinds[i] === EventKind.Parsed) return index.parsed.get(i)!.timestamp;
  // The digits between the id's `","timestamp":` and `,"message":"`, read as the walk checked them.
  const o = 4 * i;
  const bytes = index.bytes;
  let timestamp = 0;
  for (
    let at = index.offsets[o + 1]! + TIMESTAMP.length, end = index.offsets[o + 2]! - MESSAGE_KEY_LENGTH;
    at < end;
    at++
  ) {
    timestamp = timestamp * 10 + bytes[at]! - 48;
  }
  return timestamp;
}

/** Event `i` as an object, as `JSON.parse` of the whole document gives it. */
export function eventOf(index: EnvelopeIndex, i: number): IndexedEvent {
  if (index.kinds[i] === EventKind.Parsed) return index.parsed.get(i)!;
  return { id: idOf(index, i), timestamp: timestampOf(index, i), message: messageOf(index, i) };
}

/** The string of a JSON string literal's content, between `start` and its closing quote at `end`. */
function literal(bytes: Uint8Array, start: number, end: number): string {
  const text = (bytes as Buffer).toString('utf8', start - 1, end + 1);
  // Without a backslash, the content is the string itself.
  return text.includes('\\') ? (JSON.parse(text) as string) : text.slice(1, -1);
}
