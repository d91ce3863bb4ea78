import { classify, mayClassify } from '../../lambdas/core/recognise/classify';
import { CATALOG_ORDER } from '../../lambdas/core/findings/catalog-order';
import { parseMessage } from '../../lambdas/core/parse/parse-message';
import type { Io } from './io';
import { expandSources } from './sources';
import { decodeText, emptyTextInfo, InputError, linesOf } from './text-input';
import { createReadStream } from 'node:fs';

/**
 * `classify`: one JSON line per input line, `{"line": N, "rules": [...]}`. Every line is a record on
 * its own (no continuation joining), so labelled lines can be scored one by one. Streams: output
 * waits for a slow reader instead of piling up in memory.
 */
export async function classifyInput(input: string | undefined, io: Io): Promise<void> {
  const [source] = expandSources([input ?? '-'], io.cwd);
  if (io.stdinIsTty && !source!.path) throw new InputError('no input: name a log file, or pipe logs in');
  const bytes = source!.path ? createReadStream(source!.path, { highWaterMark: 1024 * 1024 }) : io.stdin();
  const info = emptyTextInfo();
  let number = 0;
  for await (const lines of linesOf(decodeText(bytes, source!.name, info), info)) {
    let out = '';
    for (const line of lines) out += `${JSON.stringify({ line: ++number, rules: rulesOf(line, number) })}\n`;
    if (io.stdout(out) === false) await io.drain();
  }
}

/** The rules one line shows on its own, in catalog order. */
export function rulesOf(line: string, number: number): string[] {
  const text = line.endsWith('\r') ? line.slice(0, -1) : line;
  if (!mayClassify(text)) return [];
  const record = parseMessage(text, { line: number });
  return record ? [...new Set(classify(record).map((signal) => signal.rule))].sort(CATALOG_ORDER) : [];
}
