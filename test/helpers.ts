import { readFileSync } from 'node:fs';
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

/** The labelled samples, vendored in test/fixtures: tests read nothing outside the repository. */
export function loadSamples(): { path: string; samples: Sample[] } {
  const path = join(__dirname, 'fixtures', 'karpenter-samples.jsonl');
  const samples = readFileSync(path, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Sample);
  return { path, samples };
}
