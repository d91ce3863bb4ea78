import { RULE_LIST } from '../lambdas/core/recognise/rules';

/** Markers around the README's rule table; `npm run docs:rules` rewrites what lies between them. */
export const TABLE_START =
  '<!-- rule-table:start (generated from lambdas/core/recognise/rules by npm run docs:rules) -->';
export const TABLE_END = '<!-- rule-table:end -->';

const sourceLabel = (source: number | string): string => (typeof source === 'number' ? `§${source}` : source);

/** The README rule table, one row per registry module, padded the way prettier pads Markdown tables. */
export function renderRuleTable(): string {
  const header = ['id', 'family', 'severity', 'source', 'what it means'];
  const rows = RULE_LIST.map(({ info }) => [
    `\`${info.id}\``,
    info.family,
    info.severity,
    sourceLabel(info.source),
    `${info.title}: ${info.recognises}`.replace(/\|/g, '\\|'),
  ]);
  const widths = header.map((cell, column) => Math.max(cell.length, ...rows.map((row) => row[column]!.length)));
  const line = (cells: string[]) => `| ${cells.map((cell, column) => cell.padEnd(widths[column]!)).join(' | ')} |`;
  return [line(header), line(widths.map((width) => '-'.repeat(width))), ...rows.map(line)].join('\n');
}

/** `readme` with the text between the markers replaced by the generated table. */
export function withRuleTable(readme: string): string {
  const start = readme.indexOf(TABLE_START);
  const end = readme.indexOf(TABLE_END);
  if (start < 0 || end < start) throw new Error(`README.md has no ${TABLE_START} … ${TABLE_END} section`);
  return `${readme.slice(0, start + TABLE_START.length)}\n\n${renderRuleTable()}\n\n${readme.slice(end)}`;
}
