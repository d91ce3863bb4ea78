import type { LogRecord } from '../model';
import { sanitizeLine, truncate } from '../common/sanitize';

/**
 * No silent unknowns (issue 11 item 5): a record that looks like a failure but that no rule
 * recognises is counted, and its most frequent messages are shown. Nothing is notified for them.
 */
export interface Unrecognised {
  /** Records that look like failures and matched no rule. */
  count: number;
  /** The most frequent of their messages, normalised so that ids and numbers do not split a group. */
  top: Array<{ message: string; count: number }>;
}

/**
 * Raw text (lower case) that a failure-shaped line carries, for the cheap test before parsing: a
 * Karpenter error level (zap JSON or console), a `Warning` event (JSON or table), an `error` field,
 * or the shape of an AWS API error. Case is ignored; JSON escapes are handled by the prefilter.
 */
export const FAILURE_MARKERS: readonly string[] = [
  '"level":"error"',
  '"level": "error"',
  '"level":"fatal"',
  '"level":"panic"',
  '"level":"dpanic"',
  '\terror\t',
  ' error  ',
  '\tfatal\t',
  '"type":"warning"',
  '"type": "warning"',
  ' warning ',
  '\twarning\t',
  '"error":"',
  '"error": "',
  '"err":"',
  'error="',
  'err="',
  'api error ',
  'fleet error',
  'status code: 4',
  'status code: 5',
  'statuscode: 4',
  'statuscode: 5',
];

/** A klog line at error level (`E1105 10:00:00.000000 …`), tested without a regular expression. */
export function isKlogError(raw: string): boolean {
  if (raw.charCodeAt(0) !== 69 /* E */ || raw.length < 6) return false;
  for (let i = 1; i <= 4; i++) {
    const code = raw.charCodeAt(i);
    if (code < 48 || code > 57) return false;
  }
  return raw.charCodeAt(5) === 32;
}

const ERROR_LEVELS = new Set(['ERROR', 'FATAL', 'PANIC', 'DPANIC']);
/** An AWS API error in the SDKs' wording (Go v1 and v2) or Karpenter's fleet wrapper. */
export const AWS_ERROR_SHAPE = /\b(?:api error [A-Za-z]|with fleet error|status ?code: [45]\d\d)/i;

/** Whether a parsed record looks like a failure, whatever its wording. */
export function looksLikeFailure(record: LogRecord): boolean {
  if (record.level && ERROR_LEVELS.has(record.level)) return true;
  if (record.event?.type === 'Warning') return true;
  const error = record.fields.error ?? record.fields.err;
  if (typeof error === 'string' && error.trim() !== '') return true;
  const unread = record.format === 'plain' || (record.format === 'zap-json' && record.level === undefined);
  if (unread && isUnreadJsonFailure(record.text)) return true;
  return AWS_ERROR_SHAPE.test(record.text);
}

/**
 * JSON in a shape the parser does not know (an unknown envelope, an array, a cut-off line) that
 * carries a failure marker: it is counted, never dropped in silence.
 */
function isUnreadJsonFailure(text: string): boolean {
  const first = text.trimStart().charAt(0);
  if (first !== '{' && first !== '[') return false;
  const plain = text.toLowerCase().replaceAll('\\"', '"');
  return FAILURE_MARKERS.some((marker) => plain.includes(marker));
}

// Replacements that make one message of many: ids, addresses, names with generated suffixes, numbers.
export const NORMALISERS: ReadonlyArray<readonly [RegExp, string]> = [
  [/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, '<uuid>'],
  [/\b(?:i|subnet|sg|vol|ami|eni|vpc|lt|fleet|snap|pvc|r)-[0-9a-f]{8,17}\b/g, '<id>'],
  [/\bip-\d{1,3}-\d{1,3}-\d{1,3}-\d{1,3}(?:\.[a-z0-9-]{1,40}){0,4}/g, '<node>'],
  [/\b\d{1,3}(?:\.\d{1,3}){3}(?::\d{1,5})?\b/g, '<ip>'],
  [/\b(nodeclaim|machine|node|pod|nodepool)\/[a-z0-9][a-z0-9.-]{0,252}/gi, '$1/<name>'],
  // Kubernetes' generated suffixes use consonants and digits only (`default-x7k2p`, `web-6f7c9d8b4-x2x2x`).
  [/-[bcdfghjklmnpqrstvwxz2456789]{5,10}\b/g, '-<x>'],
  [/\b[0-9a-f]{12,}\b/g, '<hex>'],
  [/\b\d+(?:\.\d+)?\b/g, '<n>'],
];

/** The message a group is known by: sanitised, one line, with ids and numbers folded. */
export function normaliseMessage(record: LogRecord): string {
  // Only the head is shown: a 256 KB error is cut before it is cleaned, not after.
  const head = record.summary.length > 1200 ? record.summary.slice(0, 1200) : record.summary;
  let text = sanitizeLine(head, 600);
  for (const [pattern, replacement] of NORMALISERS) text = text.replace(pattern, replacement);
  return truncate(text, 200);
}

/** At most this many distinct messages are kept; the rest are still counted. */
const MAX_GROUPS = 500;

/** Counts unrecognised failure-shaped records by normalised message, in bounded memory. */
export class UnrecognisedCounter {
  private count = 0;
  private readonly groups = new Map<string, number>();

  add(record: LogRecord): void {
    this.count++;
    const message = normaliseMessage(record);
    const seen = this.groups.get(message);
    if (seen !== undefined) this.groups.set(message, seen + 1);
    else if (this.groups.size < MAX_GROUPS) this.groups.set(message, 1);
  }

  result(top = 5): Unrecognised {
    const sorted = [...this.groups].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
    return { count: this.count, top: sorted.slice(0, top).map(([message, count]) => ({ message, count })) };
  }
}
