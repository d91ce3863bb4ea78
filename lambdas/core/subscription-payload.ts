import { createHash } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import { type EnvelopeIndex, eventOf, idOf } from './envelope-events';
import type { EnvelopeReading } from './envelope-index';
import { errorMessage } from './error-message';
import { isObject } from './json';

/** One CloudWatch Logs event inside a subscription payload. */
export interface CloudWatchLogEvent {
  id: string;
  timestamp: number;
  message: string;
}

/** The decoded document of a CloudWatch Logs subscription delivery. */
export interface SubscriptionDocument {
  messageType: 'DATA_MESSAGE' | 'CONTROL_MESSAGE';
  owner: string;
  logGroup: string;
  logStream: string;
  subscriptionFilters: string[];
  logEvents: CloudWatchLogEvent[];
  /** Log events that were not `{id, timestamp, message}` and were skipped. */
  malformedEvents: number;
}

export type DecodeResult = { ok: true; document: SubscriptionDocument } | { ok: false; reason: string };

/** Decoded payloads larger than this are refused: a real subscription batch is at most about 1 MB. */
export const MAX_DECODED_BYTES = 16 * 1024 * 1024;

/**
 * Decodes `awslogs.data` (base64 of gzip of JSON). Never throws: anything that is not a
 * subscription document comes back as `{ok: false, reason}` so the caller can count it.
 */
export function decodeSubscriptionData(data: unknown): DecodeResult {
  if (typeof data !== 'string' || data.length === 0)
    return { ok: false, reason: 'awslogs.data is not a non-empty string' };
  if (!looksLikeBase64(data)) return { ok: false, reason: 'awslogs.data is not base64' };
  let bytes: Buffer;
  try {
    const gzip = Buffer.from(data, 'base64');
    bytes = gunzipSync(gzip, { maxOutputLength: MAX_DECODED_BYTES, chunkSize: outputChunkOf(gzip) });
  } catch (error) {
    return { ok: false, reason: `awslogs.data is not gzip: ${errorMessage(error)}` };
  }
  const read = readBytes(bytes);
  if (read) return read;
  let parsed: unknown;
  try {
    parsed = JSON.parse(bytes.toString('utf8'));
  } catch (error) {
    return { ok: false, reason: `decoded payload is not JSON: ${errorMessage(error)}` };
  }
  return toSubscriptionDocument(parsed);
}

/**
 * The size of zlib's output chunks for this payload: its decoded size as the gzip trailer gives it
 * (ISIZE, the last four bytes), so that the output is one chunk, not sixty-odd of 16 KB concatenated
 * at the end (a third less for the gunzip of a 1 MB delivery, npm run bench). Bounded: the trailer
 * is the payload's word, not a fact.
 */
function outputChunkOf(gzip: Buffer): number {
  if (gzip.length < 18) return 16 * 1024;
  return Math.min(Math.max(gzip.readUInt32LE(gzip.length - 4) + 64, 16 * 1024), MAX_DECODED_BYTES);
}

/**
 * An envelope laid out as CloudWatch Logs writes it, read from its bytes (envelope-index.ts): the
 * document of its index, or, for a delivery of mostly kept events, the document its events parsed
 * in pieces give, as `JSON.parse` of the whole would. Undefined for any other layout, which is
 * parsed whole.
 */
function readBytes(bytes: Buffer): DecodeResult | undefined {
  const scanner = envelopeScanner();
  const reading = tryRead(scanner, bytes);
  if (!reading) return undefined;
  if ('parsed' in reading) return toSubscriptionDocument(reading.parsed);
  return { ok: true, document: indexedDocument(scanner, reading.index) };
}

/**
 * The document of an envelope read from its index, without parsing it whole: its header as
 * `JSON.parse` gives it, its `logEvents` built on first use (the AWS phase hashes every event id,
 * and only runs for a delivery with an incident), its events read by `fromDocument` straight from
 * the index.
 */
function indexedDocument(scanner: EnvelopeScanner, index: EnvelopeIndex): SubscriptionDocument {
  const document = documentOf(index.header, 'DATA_MESSAGE', [], index.malformed);
  let logEvents: CloudWatchLogEvent[] | undefined;
  Object.defineProperty(document, 'logEvents', {
    enumerable: true,
    configurable: true,
    get: () => (logEvents ??= Array.from({ length: index.count }, (_, i) => eventOf(index, i))),
    set: (events: CloudWatchLogEvent[]) => {
      // Replaced: the events to read are the ones put there, no longer the index's.
      scanner.documentIndexes.delete(document);
      logEvents = events;
    },
  });
  scanner.documentIndexes.set(document, index);
  return document;
}

function tryRead(scanner: EnvelopeScanner, bytes: Buffer): EnvelopeReading | undefined {
  try {
    return scanner.readEnvelope(bytes);
  } catch {
    // Never throws, as the whole-document path: that path decides about this document.
    return undefined;
  }
}

/** The index a document was read from by `decodeSubscriptionData`, if it was; undefined for any other document. */
export const envelopeIndexOf = (document: SubscriptionDocument): EnvelopeIndex | undefined =>
  envelopeScanner().documentIndexes.get(document);

type EnvelopeScanner = typeof import('./envelope-index');

/**
 * The envelope scanner (envelope-index.ts, with its automaton, envelope-scan.ts, and the fragments
 * it looks for, envelope-fragments.generated.ts: about 49 KiB), required on first use rather than
 * imported. The analyzer bundles it as a file of its own beside index.js
 * (lib/constructs/analyzer-function.ts, `ANALYZER_LAZY_CORE_MODULES`): a cold start neither reads nor
 * compiles it, the first delivery decoded does (a control message too), and the first with events
 * builds or inflates its automaton anyway. Inside
 * index.js it had taken index.js from 146 to 195 KiB and its import from about 4.15 to 4.8–5.1× an
 * empty bundle; apart, `npm run bench -- cold` measured 4.14× against 4.49× for the scanner inside
 * index.js in the same run (5.9 against 6.4 ms, load average 1.9), through a first batch without a
 * finding 66.7 against 66.5 ms. Elsewhere (the CLI, tests) the require is an ordinary one, bundled
 * inline.
 */
function envelopeScanner(): EnvelopeScanner {
  // Required once: every require resolves its path first, and under a loader such as tsx (the bench,
  // the tests) that cost about a millisecond per delivery.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (scannerModule ??= require('./envelope-index') as EnvelopeScanner);
}

let scannerModule: EnvelopeScanner | undefined;

/** Validates an already decoded subscription document (as found in a file or a test fixture). */
export function toSubscriptionDocument(value: unknown): DecodeResult {
  if (!isObject(value)) return { ok: false, reason: 'decoded payload is not a JSON object' };
  const messageType = value.messageType;
  if (messageType !== 'DATA_MESSAGE' && messageType !== 'CONTROL_MESSAGE') {
    return { ok: false, reason: `unknown messageType ${JSON.stringify(messageType)?.slice(0, 40)}` };
  }
  if (!Array.isArray(value.logEvents)) return { ok: false, reason: 'logEvents is not an array' };
  const events = value.logEvents as unknown[];
  // The usual case: every parsed event is already well-formed, and the array is kept as it is.
  if (events.every(isWellFormedEvent)) return { ok: true, document: documentOf(value, messageType, events, 0) };
  const logEvents: CloudWatchLogEvent[] = [];
  let malformedEvents = 0;
  for (const event of events) {
    if (!isObject(event) || typeof event.message !== 'string') {
      malformedEvents++;
    } else if (isWellFormedEvent(event)) {
      logEvents.push(event);
    } else {
      logEvents.push({
        id: typeof event.id === 'string' ? event.id : String(event.id ?? ''),
        timestamp: typeof event.timestamp === 'number' && Number.isFinite(event.timestamp) ? event.timestamp : 0,
        message: event.message,
      });
    }
  }
  return { ok: true, document: documentOf(value, messageType, logEvents, malformedEvents) };
}

/** An event as CloudWatch Logs writes it: kept as it is, without a copy. */
function isWellFormedEvent(event: unknown): event is CloudWatchLogEvent {
  return (
    isObject(event) &&
    typeof event.message === 'string' &&
    typeof event.id === 'string' &&
    typeof event.timestamp === 'number' &&
    Number.isFinite(event.timestamp)
  );
}

function documentOf(
  value: Record<string, unknown>,
  messageType: SubscriptionDocument['messageType'],
  logEvents: CloudWatchLogEvent[],
  malformedEvents: number,
): SubscriptionDocument {
  return {
    messageType,
    owner: stringOr(value.owner),
    logGroup: stringOr(value.logGroup),
    logStream: stringOr(value.logStream),
    subscriptionFilters: Array.isArray(value.subscriptionFilters)
      ? (value.subscriptionFilters as unknown[]).filter((f): f is string => typeof f === 'string')
      : [],
    logEvents,
    malformedEvents,
  };
}

/** Encodes a document the way CloudWatch Logs does; used by fixtures, examples and benchmarks. */
export function encodeSubscriptionData(document: Omit<SubscriptionDocument, 'malformedEvents'>): string {
  return gzipSync(Buffer.from(JSON.stringify(document), 'utf8')).toString('base64');
}

/**
 * A stable id of one delivery: the same payload, re-delivered or retried, has the same id. `account`
 * (another account than the deployment's, `keyAccountOf` in core/account.ts) keeps two accounts' deliveries apart.
 *
 * The sha-256 of `account:<account>\0` (with an account), `<logGroup>\0<logStream>`, then `\0<id>`
 * for each event. The ids of a document read from its bytes come from its index, without building
 * the events (the messages of a whole 1 MB delivery, which nothing else in the AWS phase reads), and
 * they are hashed in a few long updates rather than one per event: the same bytes in the same order,
 * so the same id.
 */
export function batchIdOf(document: SubscriptionDocument, account?: string): string {
  const hash = createHash('sha256');
  if (account) hash.update(`account:${account}\u0000`);
  hash.update(`${document.logGroup}\u0000${document.logStream}`);
  const index = envelopeIndexOf(document);
  const count = index ? index.count : document.logEvents.length;
  let ids = '';
  for (let i = 0; i < count; i++) {
    ids += `\u0000${index ? idOf(index, i) : document.logEvents[i]!.id}`;
    if (ids.length >= ID_CHUNK_CHARS) {
      hash.update(ids);
      ids = '';
    }
  }
  if (ids !== '') hash.update(ids);
  return hash.digest('hex').slice(0, 32);
}

/** How many characters of ids `batchIdOf` joins before it hands them to the hash. */
const ID_CHUNK_CHARS = 64 * 1024;

/**
 * Base64 alphabet at the start and padding at the end. The whole payload is not scanned: a bad
 * character further in makes gunzip fail, which is reported as well.
 */
function looksLikeBase64(data: string): boolean {
  const head = data.slice(0, 1024).trimStart();
  const tail = data.slice(-8).trimEnd();
  return /^[A-Za-z0-9+/]+$/.test(head.replace(/=+$/, '')) && /^[A-Za-z0-9+/]*={0,2}$/.test(tail) && head.length > 0;
}

const stringOr = (value: unknown): string => (typeof value === 'string' ? value : '');
