import { classify } from '../../lambdas/core/classify';
import { parseMessage } from '../../lambdas/core/parse';
import { CATALOG_ORDER } from '../../lambdas/core/order';

/**
 * `classify`: one JSON line per input line, `{"line": N, "rules": [...]}`. Every line is a record on
 * its own (no continuation joining), so labelled lines can be scored one by one.
 */
export function classifyLines(content: string, write: (line: string) => void): void {
  const lines = content.split('\n');
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  lines.forEach((line, index) => {
    const record = parseMessage(line, { line: index + 1 });
    const rules = record ? [...new Set(classify(record).map((signal) => signal.rule))].sort(CATALOG_ORDER) : [];
    write(JSON.stringify({ line: index + 1, rules }));
  });
}
