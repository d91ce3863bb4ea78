import { EventKind, TIMESTAMP, type EnvelopeHeader, type EnvelopeIndex, type IndexedEvent } from './envelope-events';
import { ENVELOPE_AUTOMATON } from './envelope-automaton.generated';
import { ENVELOPE_FRAGMENTS } from './envelope-fragments.generated';
import { EnvelopeScan } from './envelope-scan';

export { EventKind, type EnvelopeHeader, type EnvelopeIndex, type IndexedEvent };

/**
 * A decoded subscription envelope read from its bytes, without `JSON.parse` of the whole: only the
 * events that may matter are parsed. A healthy line needs no string built for it, only to be counted
 * (docs/PROFILE.md: the floor itself is gunzip, the decoded buffer's `toString` and the envelope's
 * `JSON.parse`; this does the first and a pass over the bytes instead of the other two).
 *
 * One pass of an automaton over the decoded bytes (envelope-scan.ts) finds where the prefilter's
 * fragments end, in the form they take inside the envelope's JSON strings (ENVELOPE_FRAGMENTS), and
 * where an event holds something CloudWatch Logs' own layout never puts in an id or a message
 * (ANOMALIES). Then each event is located from the bytes: inside a JSON string every `"` is escaped,
 * so `"},{"id":"`, `","timestamp":` and `,"message":"` with raw quotes only occur as the structure of
 * the document. An event with a hit in its id or message is parsed (`JSON.parse` of its own bytes);
 * one without is known not to hold any fragment, and is *settled* when its first byte also rules out
 * the prefilter's other tests and the assembler's (a blank line, a continuation, a klog error, a
 * Warning event, a describe header): it is counted and its message is built only if a continuation
 * line is joined to it. Anything else — another layout, key order or number, a CONTROL_MESSAGE,
 * too many hits — is undefined here, and the caller parses the whole document as before. A delivery
 * whose first events are mostly flagged is parsed whole too, but in pieces (`parsedInPieces`).
 *
 * Exact for every document that is valid JSON, which is what CloudWatch Logs writes: an id or message
 * holding a raw quote would have to hold one after `,` `:` `[` `{` or a space, or a control byte,
 * which ANOMALIES catch; escapes other than the ones `JSON.stringify` writes (`\u…`, `\/`) are
 * caught too, so the fragments' forms are one per fragment (scripts/prefilter-fragments.ts). What is
 * not checked is that a settled message is valid JSON (a bad escape, say): such a document would be
 * read here where `JSON.parse` refuses it.
 */

/** What no id or message written the way `JSON.stringify` writes it holds: the event is parsed. */
export const ANOMALIES: readonly string[] = ['\\u', '\\/', ',"', ':"', '["', '{"', ' "', '\u0001'];

const bytesOf = (text: string) => Buffer.from(text, 'latin1');
const LOG_EVENTS = bytesOf(',"logEvents":[');
const NEXT_EVENT = '"},{"id":"';

/** Classes of the scanner's patterns: flags an event (a fragment or an anomaly), or structure. */
const FLAG = 1;
const NEXT_EVENT_KEY = 2;
const TIMESTAMP_KEY = 4;
/** What the scanner looks for, and the class of each (scripts/generate-envelope-automaton.ts builds its automaton ahead). */
export const PATTERNS: readonly string[] = [...ENVELOPE_FRAGMENTS, ...ANOMALIES, NEXT_EVENT, TIMESTAMP];
export const CLASSES: readonly number[] = [
  ...ENVELOPE_FRAGMENTS.map(() => FLAG),
  ...ANOMALIES.map(() => FLAG),
  NEXT_EVENT_KEY,
  TIMESTAMP_KEY,
];
const QUOTE = 34;
const BACKSLASH = 92;

let scanner: EnvelopeScan | null | undefined;

/** The index of a decoded envelope, or undefined when it is not laid out as CloudWatch Logs writes it. */
export function indexEnvelope(bytes: Buffer): EnvelopeIndex | undefined {
  const reading = readEnvelope(bytes, false);
  return reading && 'index' in reading ? reading.index : undefined;
}

/**
 * A decoded envelope laid out as CloudWatch Logs writes it, read from its bytes: its index, or, for a
 * delivery whose first events are mostly kept (`mostlyFlagged`), the document `JSON.parse` gives,
 * its events parsed in pieces (`parsedInPieces`, when `inPieces`). Undefined for any other layout.
 */
export type EnvelopeReading = { index: EnvelopeIndex } | { parsed: Record<string, unknown> };

export function readEnvelope(bytes: Buffer, inPieces = true): EnvelopeReading | undefined {
  const n = bytes.length;
  // `{"messageType":…,"logEvents":[…]}`: the header, then the events, then `]}`.
  if (n < 16 || bytes[n - 1] !== 125 /* } */ || bytes[n - 2] !== 93 /* ] */) return undefined;
  const key = bytes.indexOf(LOG_EVENTS);
  if (key < 0) return undefined;
  let header: unknown;
  try {
    header = JSON.parse(`${bytes.toString('utf8', 0, key)}}`);
  } catch {
    return undefined;
  }
  if (
    typeof header !== 'object' ||
    header === null ||
    Array.isArray(header) ||
    'logEvents' in header ||
    (header as EnvelopeHeader).messageType !== 'DATA_MESSAGE'
  ) {
    return undefined;
  }
  const first = key + LOG_EVENTS.length;
  const end = n - 2;
  const index: EnvelopeIndex = {
    header: header as EnvelopeHeader,
    bytes,
    count: 0,
    malformed: 0,
    kinds: new Uint8Array(0),
    offsets: new Int32Array(0),
    parsed: new Map(),
  };
  if (first === end) return { index };
  if (first > end) return undefined;
  // Built ahead for these patterns (envelope-automaton.generated.ts): inflated in about a third of the
  // time building it takes, on the first delivery; built here when the patterns changed since.
  scanner ??= EnvelopeScan.of(PATTERNS, CLASSES, ENVELOPE_AUTOMATON) ?? null;
  if (!scanner) return undefined;
  // A stream the subscription filter passes keeps most of its events: parsed whole (in pieces), it
  // costs less than event by event. The first events tell which kind of delivery this is.
  if (n > 2 * MAX_SAMPLE_BYTES && mostlyFlagged(scanner, bytes, first)) {
    return inPieces ? parsedInPieces(bytes, index.header, first, end) : undefined;
  }
  const hits = scanner.hits(bytes, (n >> 4) + 256);
  if (!hits) return undefined;
  const { count: hitCount, positions, classes } = hits;
  // Each event but the first starts with a NEXT_EVENT: that many, unless the layout is another.
  let most = 1;
  for (let i = 0; i < hitCount; i++) if ((classes[i]! & NEXT_EVENT_KEY) !== 0) most++;
  const kinds = new Uint8Array(most);
  const offsets = new Int32Array(4 * most);
  let count = 0;
  let hit = 0;
  // {"id":" opens the first event; the others follow a NEXT_EVENT, which ends with it.
  if (
    bytes[first] !== 123 ||
    bytes[first + 1] !== QUOTE ||
    bytes[first + 2] !== 105 ||
    bytes[first + 3] !== 100 ||
    bytes[first + 4] !== QUOTE ||
    bytes[first + 5] !== 58 ||
    bytes[first + 6] !== QUOTE
  ) {
    return undefined;
  }
  for (let at = first; ;) {
    const idStart = at + 7;
    // The id runs to the next `","timestamp":`; a hit in it flags the event.
    while (hit < hitCount && positions[hit]! < idStart) hit++;
    const idHits = hit;
    while (hit < hitCount && (classes[hit]! & TIMESTAMP_KEY) === 0) hit++;
    if (hit === hitCount) return undefined;
    const idEnd = positions[hit++]! - (TIMESTAMP.length - 1);
    let flagged = flags(positions, classes, idHits, hit, idEnd);
    // The timestamp: an integer as JSON writes it, exact in a double (read when needed, `timestampOf`).
    let digit = idEnd + TIMESTAMP.length;
    const digits = digit;
    for (let code = bytes[digit]!; code >= 48 && code <= 57; code = bytes[++digit]!);
    const length = digit - digits;
    if (length === 0 || length > 15 || (length > 1 && bytes[digits] === 48)) return undefined;
    // ,"message":"
    if (
      bytes[digit] !== 44 ||
      bytes[digit + 1] !== QUOTE ||
      bytes[digit + 2] !== 109 ||
      bytes[digit + 3] !== 101 ||
      bytes[digit + 4] !== 115 ||
      bytes[digit + 5] !== 115 ||
      bytes[digit + 6] !== 97 ||
      bytes[digit + 7] !== 103 ||
      bytes[digit + 8] !== 101 ||
      bytes[digit + 9] !== QUOTE ||
      bytes[digit + 10] !== 58 ||
      bytes[digit + 11] !== QUOTE
    ) {
      return undefined;
    }
    const messageStart = digit + 12;
    // The message runs to the next `"},{"id":"`, or to the document's `"}]}`.
    while (hit < hitCount && positions[hit]! < messageStart) hit++;
    const messageHits = hit;
    while (hit < hitCount && (classes[hit]! & NEXT_EVENT_KEY) === 0) hit++;
    const last = hit === hitCount;
    let messageEnd: number;
    if (last) {
      messageEnd = n - 4;
      if (messageEnd < messageStart || bytes[messageEnd] !== QUOTE || bytes[messageEnd + 1] !== 125) return undefined;
    } else {
      messageEnd = positions[hit++]! - (NEXT_EVENT.length - 1);
    }
    flagged ||= flags(positions, classes, messageHits, hit, messageEnd);
    if (flagged) {
      let event: unknown;
      try {
        event = JSON.parse(bytes.toString('utf8', at, messageEnd + 2));
      } catch {
        return undefined;
      }
      const read = readEvent(event);
      if (read) {
        index.parsed.set(count, read);
        kinds[count] = EventKind.Parsed;
        count++;
      } else {
        index.malformed++;
      }
    } else {
      kinds[count] = settles(bytes, messageStart, messageEnd) ? EventKind.Settled : EventKind.Literal;
      const o = 4 * count;
      offsets[o] = idStart;
      offsets[o + 1] = idEnd;
      offsets[o + 2] = messageStart;
      offsets[o + 3] = messageEnd;
      count++;
    }
    if (last) break;
    at = messageEnd + 3;
    if (count + index.malformed >= most) return undefined;
  }
  index.count = count;
  index.kinds = kinds;
  index.offsets = offsets;
  return { index };
}

/** About how many bytes of events `parsedInPieces` parses at a time. */
export const PIECE_BYTES = 64 * 1024;
const NEXT_EVENT_BYTES = bytesOf(NEXT_EVENT);
const OPEN_BRACKET = 91;
const CLOSE_BRACKET = 93;

/**
 * The document a delivery of mostly kept events is, as `JSON.parse` of its whole text gives it, its
 * events parsed about `pieceBytes` at a time. A piece runs from an event's `{"id":"` to the `"}`
 * that ends the last event in it, cut where `"},{"id":"` is (in a valid document those raw quotes
 * are structure: between two of CloudWatch's flat events, the end of one and the start of the next),
 * and is parsed as `[` + piece + `]`, the two bytes around it (`[` or `,` before, `,` or `]` after)
 * set to those brackets for the time of its `toString`, then put back.
 *
 * Why: parsed whole, the decoded text is one string the size of the delivery (about 570 KB on the
 * bench's filtered stream), a large object for V8, made and dropped on every delivery; a piece is a
 * string of the young generation. Measured on the bench's four filtered deliveries, alternating
 * rounds in one process (load 2–3): `toString` + `JSON.parse` 4.4 ms whole, 3.3–3.5 ms in pieces of
 * 64–100 KB (3.7 ms with 16 KB); the bench's decode + parse of the filtered stream, old and new
 * bundled in one process, 0.90–0.93× its time before, the whole pipeline 0.97×.
 *
 * The same value: the header is what `JSON.parse` gives of the text before `,"logEvents":[` (the
 * caller checked that no `logEvents` is in it), and when every piece is a JSON array, the pieces
 * joined by their commas are one too, of their elements in order, which is the whole document's
 * `logEvents`: its text is `[` + the events + `]}` at its end. A piece that does not parse (a
 * damaged document, or an event nesting `"},{"id":"` in an object of its own) gives undefined, its
 * bytes put back, and the caller parses the whole text, failing with its own message if it fails.
 * test/core/envelope-index.test.ts holds the pieces to `JSON.parse` of the whole on generated
 * documents, whole and damaged, cut in pieces of 1 to 300 bytes.
 */
export function parsedInPieces(
  bytes: Buffer,
  header: EnvelopeHeader,
  first: number,
  end: number,
  pieceBytes = PIECE_BYTES,
): EnvelopeReading | undefined {
  const events: unknown[] = [];
  for (let from = first; from < end;) {
    const cut = from + pieceBytes < end ? bytes.indexOf(NEXT_EVENT_BYTES, from + pieceBytes) : -1;
    // After the piece's closing `"}`: the `,` before the next event, or the document's `]`.
    const to = cut < 0 || cut + 2 >= end ? end : cut + 2;
    const before = bytes[from - 1]!;
    const after = bytes[to]!;
    let piece: unknown;
    try {
      bytes[from - 1] = OPEN_BRACKET;
      bytes[to] = CLOSE_BRACKET;
      piece = JSON.parse(bytes.toString('utf8', from - 1, to + 1));
    } catch {
      return undefined;
    } finally {
      bytes[from - 1] = before;
      bytes[to] = after;
    }
    for (const event of piece as unknown[]) events.push(event);
    from = to + 1;
  }
  return { parsed: { ...header, logEvents: events } };
}

/** The events looked at first, to tell a delivery of mostly kept events (`mostlyFlagged`), and at most. */
const SAMPLE_BYTES = 8 * 1024;
const MAX_SAMPLE_BYTES = 32 * 1024;

/**
 * Whether so many events are likely to be flagged that parsing the delivery whole costs less. Each
 * event has six hits of its own structure (`{"`, `:"` twice, `,"` twice, the timestamp key), every
 * other hit is a fragment or an anomaly, about five per kept event. Measured on deliveries of the
 * project's lines (interleaved rounds, pipeline vs floor): read event by event, 1.6 vs 2.5× with 5 %
 * of the lines kept, 2.3 vs 2.7× with 20 %, 2.7 vs 3.2× with 30 %, even at 50 %, and 6.9 vs 6.2× on
 * the bench's filtered stream (90 %); more than two such hits per event is about 40 % kept.
 *
 * The events of the first 8 KB decide when they are clearly one kind or the other (fewer than one
 * such hit per event, or more than three), those of the first 32 KB otherwise (and when 8 KB hold
 * no whole event). Only whole events count, from the first one on: the header's own quotes and a
 * cut-off last event would weigh on a small sample. On the bench's deliveries, the first 8 KB give
 * 0.1–1.1 per event on the raw mix (the one above one has 0.3 over 32 KB) and 3.6–6.3 on the
 * filtered stream; the probe of 32 KB had cost about 0.04× the floor on the filtered stream, where
 * it is work on top of parsing whole.
 */
function mostlyFlagged(scanner: EnvelopeScan, bytes: Uint8Array, first: number): boolean {
  const early = flagsPerEvent(scanner, bytes.subarray(first, first + SAMPLE_BYTES));
  if (early !== undefined && (early < 1 || early > 3)) return early > 3;
  const late = flagsPerEvent(scanner, bytes.subarray(first, first + MAX_SAMPLE_BYTES), true);
  return late !== undefined && late > 2;
}

/**
 * Hits per whole event of `sample` beyond the six of its structure; undefined without a whole event.
 * With `flaggedFirst`, a sample inside its first event counts as Infinity once that event has a hit
 * that flags it: an event longer than the largest sample is most of what the probe sees, and once
 * flagged it is parsed either way, so read event by event the delivery would pay a scan of all its
 * bytes on top of that parse (one 256 KB line: 2.5× the floor so, 2.3× parsed whole).
 */
function flagsPerEvent(scanner: EnvelopeScan, sample: Uint8Array, flaggedFirst = false): number | undefined {
  const hits = scanner.hits(sample, sample.length);
  if (!hits) return Infinity;
  // The hits up to the last NEXT_EVENT are those of the events it closes.
  let events = 0;
  let counted = 0;
  for (let i = 0; i < hits.count; i++) {
    if ((hits.classes[i]! & NEXT_EVENT_KEY) !== 0) {
      events++;
      counted = i + 1;
    }
  }
  if (events > 0) return (counted - 6 * events) / events;
  return flaggedFirst && hits.count > 6 ? Infinity : undefined;
}

/** Whether a hit of `from` up to `to` that flags its event ends before `end` (the hits are in order). */
function flags(positions: Int32Array, classes: Uint8Array, from: number, to: number, end: number): boolean {
  for (let i = from; i < to && positions[i]! < end; i++) if ((classes[i]! & FLAG) !== 0) return true;
  return false;
}

/**
 * Whether a message with no fragment, starting with this byte, needs nothing else from the
 * prefilter or the assembler: not empty or blank (a first byte above the space, or outside ASCII),
 * not escaped (a tab, a line break), and not the first letter of a continuation (tab, space, `c`,
 * `g`, `s`: parse.ts `isContinuationLine`), of a describe header (`N`, `K`, `P`, `S`, `C`:
 * `trackDescribeHeader`), of a klog error (`E`: `isKlogError`) or of a Warning event (`W`).
 */
function settles(bytes: Uint8Array, start: number, end: number): boolean {
  if (start === end) return false;
  const code = bytes[start]!;
  return code > 32 && code !== QUOTE && code !== BACKSLASH && !UNSETTLED_FIRST[code];
}

const UNSETTLED_FIRST = new Uint8Array(256);
for (const char of 'cgsNKPSCEW') UNSETTLED_FIRST[char.charCodeAt(0)] = 1;

/** An event as `toSubscriptionDocument` reads it: undefined for one that is malformed. */
export function readEvent(event: unknown): IndexedEvent | undefined {
  if (typeof event !== 'object' || event === null || Array.isArray(event)) return undefined;
  const { id, timestamp, message } = event as Record<string, unknown>;
  if (typeof message !== 'string') return undefined;
  if (typeof id === 'string' && typeof timestamp === 'number' && Number.isFinite(timestamp)) {
    return event as IndexedEvent;
  }
  return {
    id: typeof id === 'string' ? id : String(id ?? ''),
    timestamp: typeof timestamp === 'number' && Number.isFinite(timestamp) ? timestamp : 0,
    message,
  };
}

/**
 * The index each decoded document was read from (subscription-payload.ts `envelopeIndexOf`). Here,
 * not beside the decoder, so that there is one per process: in the analyzer's bundle this file is
 * one file that index.js and every half beside it require, while each half bundles its own copy of
 * the decoder (the organisation stream's half decodes its records with its copy, and the pipeline
 * in index.js reads the documents with another).
 */
export const documentIndexes = new WeakMap<object, EnvelopeIndex>();
