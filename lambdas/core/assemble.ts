import { worthParsingOrPlacement } from './classify';
import type { LogRecord, RecordOrigin } from './model';
import {
  type DescribeContext,
  isContinuationLine,
  parseMessage,
  trackDescribeHeader,
  withoutTrailingNewlines,
} from './parse';

/** One message as it arrives: a CloudWatch log event, or one line of a local file. */
export interface RawMessage {
  message: string;
  origin: RecordOrigin;
  /** Identifies the stream when messages share one object for it (a subscription document). */
  stream?: object;
  /**
   * Set by the delivery decoder (envelope-index.ts) for a message known, from the envelope's bytes,
   * to hold none of `worthParsingOrPlacement`'s fragments and to start with a character that is
   * not blank and starts no continuation line, describe header, klog error or Warning event: the
   * assembler counts it as a skipped record without reading its text, when that is its prefilter.
   */
  settled?: boolean;
  /**
   * The messages this one is one of, at `listIndex` (a subscription document's events parsed
   * whole, input.ts): the assembler tests the prefilter on the next few of them at once
   * (`prefiltered`).
   */
  list?: ReadonlyArray<{ readonly message: string }>;
  listIndex?: number;
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

  /**
   * Whether settled messages are skipped unread and the messages of a list are answered ahead
   * (`prefiltered`): the prefilter is the one they were settled for.
   */
  private readonly trustsSettled: boolean;

  constructor(private readonly prefilter?: Prefilter) {
    this.trustsSettled = prefilter?.keep === worthParsingOrPlacement;
  }

  /** Takes the next message; returns the record it completes, if any. */
  push(raw: RawMessage): LogRecord | undefined {
    const sameStream = this.previous !== undefined && sameStreamOf(this.previous, raw);
    this.previous = raw;
    const pending = this.pending;
    if (
      pending &&
      sameStream &&
      raw.settled !== true &&
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
    if (this.trustsSettled) {
      if (pending.settled === true) {
        // Not blank, no describe header: what the prefilter's skipping below would do.
        this.prefilter!.skipped++;
        return undefined;
      }
      if (pending.list !== undefined)
        return parsePending(pending, this.describe, this.prefilter, this.prefiltered(pending));
    }
    return parsePending(pending, this.describe, this.prefilter);
  }

  /** The first of `answers` is the prefilter's answer for `texts[0]`, the message at `answersFrom` in `answersOf`. */
  private answersOf: RawMessage['list'];
  private answersFrom = 0;
  private answersTo = 0;
  private readonly texts: Array<string | undefined> = [];
  private readonly answers = new Uint8Array(PREFILTERED_AHEAD);

  /**
   * `worthParsingOrPlacement(pending.message)` for a message of a list (`RawMessage.list`), tested
   * with the next ones of that list, PREFILTERED_AHEAD at a time: the prefilter's passes in a row,
   * then the parses of the messages it keeps in a row, each keeping its own tables and the messages
   * in the processor's caches instead of taking turns on every message: the bench's decode + parse
   * of the filtered stream 1–3 % faster (main 85a064c against this, four races alternating in one
   * process, either order). The same answer as testing the message itself: the prefilter reads
   * nothing but the text, and an answer is taken only for that very text (a message joined with its
   * continuations is another text, and another message). test/core/assemble-ahead.test.ts.
   */
  private prefiltered(pending: RawMessage): boolean {
    const list = pending.list!;
    const at = pending.listIndex!;
    if (list !== this.answersOf || at < this.answersFrom || at >= this.answersTo) {
      const to = Math.min(list.length, at + PREFILTERED_AHEAD);
      for (let i = at; i < to; i++) {
        const text = list[i]!.message;
        // Not a string (a list the caller filled itself): asked again on its turn, as before.
        this.texts[i - at] = typeof text === 'string' ? text : undefined;
        this.answers[i - at] = typeof text === 'string' && worthParsingOrPlacement(text) ? 1 : 0;
      }
      this.answersOf = list;
      this.answersFrom = at;
      this.answersTo = to;
    }
    const i = at - this.answersFrom;
    return this.texts[i] === pending.message ? this.answers[i] === 1 : worthParsingOrPlacement(pending.message);
  }
}

/** How many messages of a list the assembler tests with the prefilter at once. */
const PREFILTERED_AHEAD = 16;

function parsePending(
  pending: RawMessage,
  describe: DescribeContext,
  prefilter?: Prefilter,
  kept?: boolean,
): LogRecord | undefined {
  if (prefilter && !(kept ?? prefilter.keep(pending.message))) {
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
