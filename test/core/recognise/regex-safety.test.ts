import { checkSync } from 'recheck';
import { classify } from '../../../lambdas/core/recognise/classify';
import { CONDITION_TRANSITION, DESCRIBE_CONDITION_ROW } from '../../../lambdas/core/recognise/conditions';
import { NAME_PATTERNS, TEXT_PATTERNS } from '../../../lambdas/core/recognise/entities';
import { PARSE_PATTERNS, parseMessage } from '../../../lambdas/core/parse/parse-message';
import { logRules } from '../../../lambdas/core/recognise/rules';
import { AWS_ERROR_SHAPE, NORMALISERS } from '../../../lambdas/core/recognise/unrecognised';

const patterns: RegExp[] = [
  CONDITION_TRANSITION,
  DESCRIBE_CONDITION_ROW,
  ...logRules().flatMap((m) => (m.recognition.patterns ?? []).map((p) => p.pattern)),
  ...TEXT_PATTERNS.map(([, pattern]) => pattern),
  ...NAME_PATTERNS,
  ...PARSE_PATTERNS,
  AWS_ERROR_SHAPE,
  ...NORMALISERS.map(([pattern]) => pattern),
];

/** recheck with its default step limits and no time limit: the same answer on a busy machine as on an idle one. */
const STEPS_ONLY = {
  timeout: null,
  attackTimeout: null,
  incubationTimeout: null,
  seedingTimeout: null,
  recallTimeout: -1,
} as const;

describe('classifier and parser patterns', () => {
  // recheck analyses each pattern for super-linear backtracking (ReDoS); "safe" means linear. Its
  // fuzzer's limits are counted in matching steps only: with its default limits on matching time, the
  // answer depended on the machine's load (a linear entity pattern was once "vulnerable" in a busy run).
  it.each(patterns.map((p) => [p.source.slice(0, 70), p] as const))('%s is linear-time', (_name, pattern) => {
    const diagnosis = checkSync(pattern.source, pattern.flags, STEPS_ONLY);
    expect({ pattern: pattern.source, status: diagnosis.status }).toEqual({ pattern: pattern.source, status: 'safe' });
  });

  it('the checker itself flags a backtracking pattern', () => {
    expect(checkSync('^(a+)+$', '', STEPS_ONLY).status).toBe('vulnerable');
  });

  it.each([
    ['repeated fragment starts', 'insufficient '.repeat(20000)],
    ['one long token', 'a'.repeat(256 * 1024)],
    ['nested JSON braces', `${'{"a":'.repeat(40000)}1${'}'.repeat(40000)}`],
    ['scheduler-like text', `0/9 nodes are available: ${'1 node(s) had untolerated taint {a: b}, '.repeat(6000)}`],
    ['console-like text', `2024-01-01T00:00:00Z\tERROR\t${'controller.'.repeat(20000)}\t{`],
  ])('classifies a 256 KB adversarial line (%s)', (_name, line) => {
    const record = parseMessage(line.slice(0, 256 * 1024), {});
    expect(Array.isArray(classify(record!))).toBe(true);
  });
});
