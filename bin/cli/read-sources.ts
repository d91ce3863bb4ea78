import { createReadStream } from 'node:fs';
import type { StreamingAnalyzer } from '../../lambdas/core/analyze';
import { InputReader, type InputStats } from '../../lambdas/core/decode/local-input';
import type { Source } from './sources';
import { decodeText, emptyTextInfo, InputError, linesOf, type ByteSource, type TextInfo } from './text-input';

/** What was read from one input, for the list the user sees and the JSON stats. */
export interface InputRead {
  name: string;
  lines: number;
  encoding: TextInfo['encoding'];
  gzip: boolean;
  /** Why a file found under a directory or by a pattern was not analysed. */
  skipped?: string;
}

export interface ReadOptions {
  /** Standard input, as bytes. */
  stdin: () => ByteSource;
  /**
   * Completes the last record when the input has been quiet this long, so a stream held open shows
   * its findings before more arrives (a later continuation line then starts a record of its own).
   */
  idleFlushMs?: number;
  /** Stops reading (Ctrl-C in --follow): the inputs end as if at their end. */
  signal?: AbortSignal;
}

/** Reads each source into the analyzer in turn, each as a stream of its own; returns what was read. */
export async function readSources(
  sources: Source[],
  analyzer: StreamingAnalyzer,
  stats: InputStats,
  options: ReadOptions,
): Promise<InputRead[]> {
  const read: InputRead[] = [];
  for (const source of sources) {
    if (options.signal?.aborted) break;
    read.push(await readSource(source, analyzer, stats, options));
  }
  return read;
}

/** Reads several sources at the same time (the two kubectl streams of `watch`). */
export async function readSourcesTogether(
  sources: Array<{ source: Source; bytes: ByteSource }>,
  analyzer: StreamingAnalyzer,
  stats: InputStats,
  options: ReadOptions,
): Promise<InputRead[]> {
  return Promise.all(
    sources.map(({ source, bytes }) => readSource(source, analyzer, stats, { ...options, stdin: () => bytes })),
  );
}

async function readSource(
  source: Source,
  analyzer: StreamingAnalyzer,
  stats: InputStats,
  options: ReadOptions,
): Promise<InputRead> {
  const info = emptyTextInfo();
  const stream = analyzer.stream();
  const reader = new InputReader(source.name, stats, (message) => stream.push(message));
  const bytes = source.path ? openFile(source) : options.stdin();
  let lines = 0;
  let timer: NodeJS.Timeout | undefined;
  const stop = () => {
    const destroy = (bytes as { destroy?: () => void }).destroy;
    if (typeof destroy === 'function') destroy.call(bytes);
  };
  options.signal?.addEventListener('abort', stop, { once: true });
  try {
    for await (const batch of linesOf(decodeText(bytes, source.name, info), info)) {
      if (timer) clearTimeout(timer);
      for (const line of batch) reader.line(line);
      lines += batch.length;
      if (options.idleFlushMs !== undefined) timer = setTimeout(() => stream.flush(), options.idleFlushMs);
      if (options.signal?.aborted) break;
    }
  } catch (error) {
    if (!options.signal?.aborted) {
      if (error instanceof InputError && source.found) {
        return { name: source.name, lines, encoding: info.encoding, gzip: info.gzip, skipped: error.message };
      }
      throw error;
    }
  } finally {
    if (timer) clearTimeout(timer);
    options.signal?.removeEventListener('abort', stop);
  }
  reader.end();
  stream.flush();
  if (info.cutLines > 0) stats.problems.push(`${source.name}: ${info.cutLines} lines longer than 1 MiB cut`);
  return { name: source.name, lines, encoding: info.encoding, gzip: info.gzip };
}

/** A file's bytes; open errors surface on the first read, as InputError. */
async function* openFile(source: Source): AsyncGenerator<Buffer> {
  // 64 KiB reads: the text of a read over about 1 MB (Node's EXTERN_APEX) is an external string,
  // whose memory V8 frees only at a full collection, and with 1 MiB reads a gigabyte log kept 50–80
  // MiB of them waiting (and the heap a few dozen MiB more). A 64 KiB text is an ordinary young
  // string that the next scavenge frees: peak RSS went from about 195 to 110 MiB and CPU time did not
  // grow.
  const stream = createReadStream(source.path!, { highWaterMark: 64 * 1024 });
  try {
    for await (const chunk of stream) yield chunk as Buffer;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'EACCES' || code === 'EISDIR' || code === 'EPERM') {
      const why = {
        ENOENT: 'no such file',
        EACCES: 'permission denied',
        EPERM: 'permission denied',
        EISDIR: 'is a directory',
      }[code];
      throw new InputError(`cannot read ${source.name}: ${why}`);
    }
    throw error;
  } finally {
    stream.destroy();
  }
}
