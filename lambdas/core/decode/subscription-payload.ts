import { createHash } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import { errorMessage } from '../common/error-message';
import { isObject } from '../common/json';

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
  let parsed: unknown;
  try {
    parsed = JSON.parse(bytes.toString('utf8'));
  } catch (error) {
    return { ok: false, reason: `decoded payload is not JSON: ${errorMessage(error)}` };
  }
  return toSubscriptionDocument(parsed);
}

/** zlib's output chunk sized from the gzip trailer (ISIZE), bounded: one chunk instead of dozens of 16 KB. */
function outputChunkOf(gzip: Buffer): number {
  if (gzip.length < 18) return 16 * 1024;
  return Math.min(Math.max(gzip.readUInt32LE(gzip.length - 4) + 64, 16 * 1024), MAX_DECODED_BYTES);
}

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
 * (another account than the deployment's, `keyAccountOf` in account.ts) keeps two accounts' deliveries apart.
 */
export function batchIdOf(document: SubscriptionDocument, account?: string): string {
  const hash = createHash('sha256');
  if (account) hash.update(`account:${account}\u0000`);
  hash.update(`${document.logGroup}\u0000${document.logStream}`);
  for (const event of document.logEvents) hash.update(`\u0000${event.id}`);
  return hash.digest('hex').slice(0, 32);
}

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
