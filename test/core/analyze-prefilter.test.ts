import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { analyzeMessages } from '../../lambdas/core/analyze';
import type { RawMessage } from '../../lambdas/core/parse/assemble';
import { loadSamples, ROOT } from '../helpers';

// The same analyzer with the prefilter tested on every record: what `testedWhileItPays` must not change.
let analyzeTestingEvery: typeof analyzeMessages;
jest.isolateModules(() => {
  const assemble = '../../lambdas/core/parse/assemble';
  jest.doMock(assemble, () => ({
    ...jest.requireActual<object>(assemble),
    testedWhileItPays: (keep: (message: string) => boolean) => keep,
  }));
  ({ analyzeMessages: analyzeTestingEvery } = jest.requireActual<{ analyzeMessages: typeof analyzeMessages }>(
    '../../lambdas/core/analyze',
  ));
});

// The samples labelled with rules, and those with none (lines that look alike and are not failures).
const samples = loadSamples().samples;
const failing = samples.filter((sample) => sample.expected_rules.length > 0).map((sample) => sample.raw);
const benign = samples.filter((sample) => sample.expected_rules.length === 0).map((sample) => sample.raw);
const examples = ['karpenter-controller.log', 'kubernetes-events.jsonl'].flatMap((file) =>
  readFileSync(join(ROOT, 'examples', file), 'utf8')
    .split('\n')
    .filter(Boolean),
);
const healthy = [
  '{"level":"INFO","time":"2026-11-28T02:20:49.824Z","logger":"controller","message":"found provisionable pod(s)"}',
  '{"level":"DEBUG","time":"2026-11-28T02:20:50.001Z","logger":"controller","message":"discovered subnets"}',
  'I1128 02:20:51.000000       1 leaderelection.go:260] successfully renewed lease karpenter/karpenter-leader',
];

const messagesOf = (lines: readonly string[]): RawMessage[] =>
  lines.map((message, index) => ({ message, origin: { file: 'stream.log', line: index + 1 } }));

describe('leaving the prefilter out where it keeps nearly everything', () => {
  it('gives the analysis of testing every record, on bursts of failures and healthy stretches alike', () => {
    const stretch = (lines: readonly string[], minLength = 0) =>
      fc.array(fc.constantFrom(...lines), { minLength, maxLength: 600 });
    // A burst of failures long enough for the prefilter to be left out, then anything.
    const stretches = fc.oneof(stretch(failing, 64), stretch(benign), stretch(examples), stretch(healthy));
    fc.assert(
      fc.property(fc.array(stretches, { minLength: 1, maxLength: 5 }), (stretches) => {
        const messages = messagesOf(stretches.flat());
        expect(analyzeMessages(messages, 'prod')).toEqual(analyzeTestingEvery(messages, 'prod'));
      }),
      { numRuns: 40 },
    );
  });
});
