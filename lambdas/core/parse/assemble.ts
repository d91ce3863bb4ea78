import type { LogRecord, RecordOrigin } from '../model';
import {
  type DescribeContext,
  isContinuationLine,
  parseMessage,
  trackDescribeHeader,
  withoutTrailingNewlines,
} from './parse-message';

/** One message as it arrives: a CloudWatch log event, or one line of a local file. */
export interface RawMessage {
  message: string;
  origin: RecordOrigin;
  /** Identifies the stream when messages share one object for it (a subscription document). */
  stream?: object;
}

/** Continuations are joined up to this size; a record never grows past it. */
const MAX_RECORD_CHARS = 256 * 1024;

/** Skips the parsing of records that cannot matter; counts what it skipped. */
export interface Prefilter {
  /** False for a record (raw, continuations joined) that is not worth parsing. */
  keep: (message: string) => boolean;
  skipped: number;
  /**
   * Parse a copy of each kept message, for messages cut from larger strings (the CLI's lines, sliced
   * from the chunks it reads): V8 keeps a slice's whole parent alive, so without the copy one
   * held scheduling failure or one entity value would keep its chunk in memory. Only kept records
   * are copied; the healthy lines the prefilter skips cost nothing.
   */
  copyKept?: boolean;
}

/** Records tested in each round of `testedWhileItPays`, and how many of them must be kept to stop testing. */
const ROUND = 64;
const MOSTLY_KEPT = 56;

/**
 * `keep`, tested only while it skips records: once it keeps 7 in 8 of a round (a subscription filter
 * chose the lines), only one record in 8 is tested, until a round of those keeps fewer. A record not
 * tested is parsed, which gives the same analysis as keeping it.
 */
export function testedWhileItPays(keep: (message: string) => boolean): (message: string) => boolean {
  let tested = 0;
  let kept = 0;
  let passed = 0;
  let sampling = false;
  return (message) => {
    if (sampling && ++passed % 8 !== 0) return true;
    const keeps = keep(message);
    if (keeps) kept++;
    if (++tested === ROUND) {
      sampling = kept >= MOSTLY_KEPT;
      tested = kept = 0;
    }
    return keeps;
  };
}

/**
 * Turns a stream of messages into records: continuation lines (no timestamp, level or JSON; e.g.
 * `\tstatus code: 403` or `caused by: …`) are appended to the record before them from the same
 * stream, and `kubectl describe` headers give their Events rows an object. With a prefilter, a
 * record it does not keep is counted and never parsed.
 */
export function* assembleRecords(messages: Iterable<RawMessage>, prefilter?: Prefilter): Generator<LogRecord> {
  const assembler = new RecordAssembler(prefilter);
  for (const raw of messages) {
    const record = assembler.push(raw);
    if (record) yield record;
  }
  const last = assembler.flush();
  if (last) yield last;
}

/**
 * The record assembly of one stream of messages, one message at a time: a record is complete when
 * the next message is not its continuation, or when the input ends or goes quiet (`flush`).
 */
export class RecordAssembler {
  private pending: RawMessage | undefined;
  /** The message before this one, kept after a flush so a stream keeps its describe context. */
  private previous: RawMessage | undefined;
  private readonly describe: DescribeContext = {};

  constructor(private readonly prefilter?: Prefilter) {}

  /** Takes the next message; returns the record it completes, if any. */
  push(raw: RawMessage): LogRecord | undefined {
    const sameStream = this.previous !== undefined && sameStreamOf(this.previous, raw);
    this.previous = raw;
    const pending = this.pending;
    if (
      pending &&
      sameStream &&
      isContinuationLine(raw.message) &&
      pending.message.length + raw.message.length < MAX_RECORD_CHARS
    ) {
      this.pending = {
        message: `${withoutTrailingNewlines(pending.message)}\n${raw.message}`,
        origin: pending.origin,
        stream: pending.stream,
      };
      return undefined;
    }
    const record = pending ? this.parsePending(pending) : undefined;
    if (!sameStream) this.describe.object = undefined;
    this.pending = raw;
    return record;
  }

  /** The record still waiting for continuations, completed now (end of input, or a quiet stream). */
  flush(): LogRecord | undefined {
    const pending = this.pending;
    this.pending = undefined;
    return pending ? this.parsePending(pending) : undefined;
  }

  private parsePending(pending: RawMessage): LogRecord | undefined {
    return parsePending(pending, this.describe, this.prefilter);
  }
}

function parsePending(pending: RawMessage, describe: DescribeContext, prefilter?: Prefilter): LogRecord | undefined {
  if (prefilter && !prefilter.keep(pending.message)) {
    if (!isBlank(pending.message)) {
      prefilter.skipped++;
      trackDescribeHeader(pending.message, describe);
    }
    return undefined;
  }
  const message = prefilter?.copyKept ? ownCopy(pending.message) : pending.message;
  return parseMessage(message, pending.origin, describe);
}

/**
 * The text as a string of its own: the concatenation is flattened into a new string before it is
 * sliced, so the result refers to that copy, never to the string `text` may be a slice of.
 */
function ownCopy(text: string): string {
  return ` ${text}`.slice(1);
}

function isBlank(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 32) return false;
  return true;
}

function sameStreamOf(a: RawMessage, b: RawMessage): boolean {
  if (a.stream !== undefined && a.stream === b.stream) return true;
  const x = a.origin;
  const y = b.origin;
  return x.file === y.file && x.logGroup === y.logGroup && x.logStream === y.logStream;
}
