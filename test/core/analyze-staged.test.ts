import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { analyzeMessages, StreamingAnalyzer, type AnalyzerOptions } from '../../lambdas/core/analyze';
import type { RawMessage } from '../../lambdas/core/assemble';
import { DEFAULT_SOURCES } from '../../lambdas/core/karpenter-source';

/**
 * `analyzeMessages` runs a delivery stage by stage (every record assembled, then classified, then
 * counted); a stream pushes one message at a time through all three. Both must give the same
 * analysis for any input: these compare them on the project's real lines in any order and mix.
 */

const ROOT = join(__dirname, '..', '..');
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8').split('\n').filter(Boolean);

const lines = [
  ...read('examples/karpenter-controller.log'),
  ...read('examples/kubernetes-events.jsonl'),
  ...read('test/fixtures/karpenter-samples.jsonl').map((line) => (JSON.parse(line) as { raw: string }).raw),
];

/** A line as a Fluent Bit record of some container, Karpenter's or another's. */
const fluentBit = (line: string, container: string) =>
  JSON.stringify({
    log: line,
    kubernetes: { pod_name: 'karpenter-6d8f7b9c54-8zr7n', namespace_name: 'karpenter', container_name: container },
  });

const message = fc
  .tuple(
    fc.constantFrom(...lines),
    fc.constantFrom('plain', 'controller', 'sidecar'),
    fc.constantFrom('\tcaused by: x', ''),
  )
  .chain(([line, wrap, continuation]) =>
    fc.constantFrom([wrap === 'plain' ? line : fluentBit(line, wrap)], continuation ? [line, continuation] : [line]),
  );

function streamed(messages: RawMessage[], options: AnalyzerOptions) {
  const analyzer = new StreamingAnalyzer(options);
  const stream = analyzer.stream();
  for (const m of messages) stream.push(m);
  return analyzer.finish();
}

describe('a delivery analysed stage by stage', () => {
  it.each([
    ['without sources', {}],
    ['with the default sources', { sources: DEFAULT_SOURCES }],
  ])('gives the analysis of the same messages pushed one by one (%s)', (_, options) => {
    fc.assert(
      fc.property(fc.array(message, { maxLength: 60 }), (groups) => {
        const messages = groups
          .flat()
          .map((text, i) => ({ message: text, origin: { logGroup: 'g', logStream: 's', line: i + 1 } }));
        expect(analyzeMessages(messages, 'prod', options)).toEqual(streamed(messages, { ...options, cluster: 'prod' }));
      }),
      { numRuns: 150 },
    );
  });

  it('holds on every project line in order, where most rules fire', () => {
    const messages = lines.map((text, i) => ({ message: text, origin: { file: 'all', line: i + 1 } }));
    const staged = analyzeMessages(messages, 'prod');
    expect(staged.incidents.length).toBeGreaterThan(20);
    expect(staged).toEqual(streamed(messages, { cluster: 'prod' }));
  });
});
