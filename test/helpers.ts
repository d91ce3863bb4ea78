import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { classify } from '../lambdas/core/recognise/classify';
import { parseMessage } from '../lambdas/core/parse/parse-message';
import type { RuleId } from '../lambdas/core/recognise/rules';

export const ROOT = join(__dirname, '..');
export const fixture = (name: string): string => readFileSync(join(__dirname, 'fixtures', name), 'utf8');

/** The rules one line yields when classified on its own, as `classify` does. */
export function rulesOf(line: string): RuleId[] {
  const record = parseMessage(line, { line: 1 });
  return record ? [...new Set(classify(record).map((s) => s.rule))].sort() : [];
}

export interface Sample {
  id: string;
  expected_rules: RuleId[];
  benign: boolean;
  raw: string;
}

/**
 * The labelled samples: the team's copy beside the clone when it is there (CI has it), otherwise the
 * copy in test/fixtures (kept identical).
 */
export function loadSamples(): { path: string; samples: Sample[] } {
  const shared = join(ROOT, '..', 'shared', 'reference', 'karpenter-samples.jsonl');
  const path = existsSync(shared) ? shared : join(__dirname, 'fixtures', 'karpenter-samples.jsonl');
  const samples = readFileSync(path, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Sample);
  return { path, samples };
}
