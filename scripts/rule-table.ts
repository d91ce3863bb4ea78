import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RuleModule } from '../lambdas/core/recognise/rules';
import { ruleModules } from './rule-registry';

/** The document that holds the generated rule table, from the repository root. */
export const RULES_DOCUMENT = 'docs/rules.md';

/** Markers around the rule table of RULES_DOCUMENT; `npm run generate` rewrites what lies between them. */
export const TABLE_START =
  '<!-- rule-table:start (generated from lambdas/core/recognise/rules by npm run generate) -->';
export const TABLE_END = '<!-- rule-table:end -->';

const sourceLabel = (source: number | string): string => (typeof source === 'number' ? `§${source}` : source);

/** The rule table, one row per registry module, padded the way prettier pads Markdown tables. */
export function renderRuleTable(modules: readonly RuleModule[] = ruleModules()): string {
  const header = ['id', 'family', 'severity', 'source', 'what it means'];
  const rows = modules.map(({ info }) => [
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

/** `document` with the text between the markers replaced by the generated table. */
export function withRuleTable(document: string): string {
  const start = document.indexOf(TABLE_START);
  const end = document.indexOf(TABLE_END);
  if (start < 0 || end < start) throw new Error(`${RULES_DOCUMENT} has no ${TABLE_START} … ${TABLE_END} section`);
  return `${document.slice(0, start + TABLE_START.length)}\n\n${renderRuleTable()}\n\n${document.slice(end)}`;
}

/** docs/rules.md as `npm run generate` writes it: the document with its table made anew. */
export const rulesDocument = (): string => withRuleTable(readFileSync(join(__dirname, '..', RULES_DOCUMENT), 'utf8'));
