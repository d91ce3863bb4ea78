import { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';

/** Raised for input the CLI cannot read; becomes exit code 2 with a one-line message. */
export class InputError extends Error {}

/** Longer lines are cut here (and counted), so one line without a break cannot fill the memory. */
export const MAX_LINE_CHARS = 1024 * 1024;

/** What was found out about one input while reading it. */
export interface TextInfo {
  encoding: 'utf-8' | 'utf-16le' | 'utf-16be';
  gzip: boolean;
  /** Lines longer than MAX_LINE_CHARS, cut. */
  cutLines: number;
}

/**
 * The text of a byte stream, decoded as it arrives: gzip is recognised by its magic number (any
 * file name, several members), UTF-8 with or without a byte order mark, UTF-16 LE or BE with a
 * mark or recognised by its zero bytes. Archives and other binary input are refused with an
 * InputError naming what they look like, rather than read as an empty log.
 */
/** Bytes as they arrive: a stream, or (in tests) a list of chunks. */
export type ByteSource = AsyncIterable<Buffer | string> | Iterable<Buffer | string>;

export async function* decodeText(bytes: ByteSource, name: string, info: TextInfo): AsyncGenerator<string> {
  const source =
    Symbol.asyncIterator in bytes
      ? bytes[Symbol.asyncIterator]()
      : (bytes as Iterable<Buffer | string>)[Symbol.iterator]();
  let head = Buffer.alloc(0);
  // The first bytes decide; a stream held open is not waited on beyond its first chunk.
  while (head.length < 4) {
    const next = await source.next();
    if (next.done) break;
    head = Buffer.concat([head, toBuffer(next.value)]);
  }
  if (head.length === 0) return;
  const rest = async function* (): AsyncGenerator<Buffer> {
    yield head;
    for (let next = await source.next(); !next.done; next = await source.next()) yield toBuffer(next.value);
  };
  if (head[0] === 0x1f && head[1] === 0x8b) {
    if (info.gzip) throw new InputError(`${name} is gzip inside gzip; unpack it once first`);
    info.gzip = true;
    const gunzip = createGunzip();
    const raw = Readable.from(rest());
    raw.on('error', (error) => gunzip.destroy(error));
    raw.pipe(gunzip);
    try {
      yield* decodeText(gunzip, name, info);
    } catch (error) {
      if (error instanceof InputError) throw error;
      const code = (error as NodeJS.ErrnoException).code;
      if (code?.startsWith('Z_')) throw new InputError(`${name} is not valid gzip: ${(error as Error).message}`);
      throw error;
    } finally {
      raw.destroy();
    }
    return;
  }
  const refused = binaryKind(head);
  if (refused) throw new InputError(`${name} is ${refused}, not a log; karpenter-doctor reads text and gzip`);
  info.encoding = encodingOf(head);
  const decoder = new TextDecoder(info.encoding);
  let checked = false;
  for await (const chunk of rest()) {
    if (!checked && info.encoding === 'utf-8') {
      checked = true;
      const why = binaryContent(chunk);
      if (why) throw new InputError(`${name} looks binary (${why}), not a log; karpenter-doctor reads text and gzip`);
    }
    const text = decoder.decode(chunk, { stream: true });
    if (text) yield text;
  }
  const tail = decoder.decode();
  if (tail) yield tail;
}

/** Splits decoded text into lines as it arrives; the last line needs no line break. */
export async function* linesOf(texts: AsyncIterable<string>, info: TextInfo): AsyncGenerator<string[]> {
  let carry = '';
  let cutting = false;
  for await (const text of texts) {
    const lines: string[] = [];
    let start = 0;
    let data = text;
    if (carry) {
      data = carry + text;
      carry = '';
    }
    for (let end = data.indexOf('\n'); end !== -1; end = data.indexOf('\n', start)) {
      if (cutting) cutting = false;
      else lines.push(data.slice(start, end));
      start = end + 1;
    }
    if (start < data.length) {
      if (cutting) {
        // Still inside a line that was cut: drop until its line break.
      } else if (data.length - start > MAX_LINE_CHARS) {
        lines.push(data.slice(start, start + MAX_LINE_CHARS));
        info.cutLines++;
        cutting = true;
      } else {
        carry = data.slice(start);
      }
    }
    if (lines.length) yield lines;
  }
  if (carry && !cutting) yield [carry];
}

export const emptyTextInfo = (): TextInfo => ({ encoding: 'utf-8', gzip: false, cutLines: 0 });

function toBuffer(value: Buffer | string): Buffer {
  return typeof value === 'string' ? Buffer.from(value, 'utf8') : value;
}

/** UTF-16 by its byte order mark, or by zero bytes on one side of most of the first characters. */
function encodingOf(head: Buffer): TextInfo['encoding'] {
  if (head[0] === 0xff && head[1] === 0xfe) return 'utf-16le';
  if (head[0] === 0xfe && head[1] === 0xff) return 'utf-16be';
  const pairs = Math.min(64, Math.floor(head.length / 2));
  if (pairs < 2) return 'utf-8';
  let evenZero = 0;
  let oddZero = 0;
  for (let i = 0; i < pairs; i++) {
    if (head[2 * i] === 0 && head[2 * i + 1] !== 0) evenZero++;
    if (head[2 * i + 1] === 0 && head[2 * i] !== 0) oddZero++;
  }
  if (oddZero >= pairs * 0.75) return 'utf-16le';
  if (evenZero >= pairs * 0.75) return 'utf-16be';
  return 'utf-8';
}

/** The kind of a well-known binary format recognised by its magic number, if it is one. */
function binaryKind(head: Buffer): string | undefined {
  const starts = (...bytes: number[]) => bytes.every((byte, i) => head[i] === byte);
  if (starts(0x50, 0x4b, 0x03, 0x04)) return 'a zip archive';
  if (starts(0x42, 0x5a, 0x68)) return 'bzip2-compressed';
  if (starts(0xfd, 0x37, 0x7a, 0x58)) return 'xz-compressed';
  if (starts(0x28, 0xb5, 0x2f, 0xfd)) return 'zstd-compressed';
  if (starts(0x37, 0x7a, 0xbc, 0xaf)) return 'a 7-zip archive';
  if (starts(0x7f, 0x45, 0x4c, 0x46)) return 'an executable (ELF)';
  if (starts(0x89, 0x50, 0x4e, 0x47)) return 'a PNG image';
  if (starts(0x25, 0x50, 0x44, 0x46)) return 'a PDF document';
  return undefined;
}

/** Why the first chunk of supposedly UTF-8 text is binary: zero bytes, or mostly control bytes. */
function binaryContent(chunk: Buffer): string | undefined {
  const sample = chunk.subarray(0, 8192);
  if (sample.length >= 262 && sample.toString('latin1', 257, 262) === 'ustar') return 'a tar archive';
  let control = 0;
  for (const byte of sample) {
    if (byte === 0) return 'it holds zero bytes';
    // Tab, line feed, vertical tab, form feed, carriage return and escape appear in logs.
    if (byte < 32 && !(byte >= 9 && byte <= 13) && byte !== 27) control++;
  }
  return control > sample.length * 0.1 ? 'it is mostly control bytes' : undefined;
}
