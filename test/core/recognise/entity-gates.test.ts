import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { ENTITY_GATES, TEXT_PATTERNS } from '../../../lambdas/core/recognise/entities';
import { parseMessage } from '../../../lambdas/core/parse/parse-message';
import { logRules } from '../../../lambdas/core/recognise/rules';
import { loadSamples, ROOT } from '../../helpers';

/**
 * Each text pattern of the entity extractor runs only where one of its gates is found (a literal that
 * every match holds). A gate that a match can lack would drop an entity silently; these tests look
 * for one on every line the project has and on generated text.
 */
const lines = [
  ...loadSamples().samples.map((s) => s.raw),
  ...readFileSync(join(ROOT, 'examples', 'karpenter-controller.log'), 'utf8').split('\n'),
  ...readFileSync(join(ROOT, 'examples', 'kubernetes-events.jsonl'), 'utf8').split('\n'),
  ...logRules().flatMap((rule) => rule.examples.fires.map((example) => example.line)),
].filter(Boolean);
const texts = lines.map((line) => parseMessage(line, { line: 1 })?.text ?? line);

describe('entity gates', () => {
  it('every match of every text pattern holds one of its gates, on every line of the samples, examples and rules', () => {
    const ungated: string[] = [];
    for (const text of texts) {
      const lower = text.toLowerCase();
      for (const [kind, pattern, , gates] of TEXT_PATTERNS) {
        for (const match of text.matchAll(new RegExp(pattern.source, pattern.flags))) {
          if (!gates.some((gate) => match[0].toLowerCase().includes(gate) && lower.includes(gate)))
            ungated.push(`${kind}: ${match[0]}`);
        }
      }
    }
    expect(ungated).toEqual([]);
  });

  it('gates are lower case, so that the case-blind automaton and the lower-cased text agree', () => {
    expect(ENTITY_GATES.filter((gate) => gate !== gate.toLowerCase())).toEqual([]);
  });

  it('property: a pattern with none of its gates in a text has no match there', () => {
    const names = fc.constantFrom(
      'subnet-0a1b2c3d4e5f60718',
      'i-0123456789abcdef0',
      'm5.2xlarge',
      'us-west-2a',
      'nodeclaim/default-x7k2p',
      'NodePool=batch',
      'pod default/web-6f7c9d8b4-x2x2x',
      'ip-10-0-1-2.eu-west-1.compute.internal',
      'VcpuLimitExceeded',
      'InsufficientInstanceCapacity',
      'perform: ec2:RunInstances',
      'taint {node.kubernetes.io/not-ready: }',
    );
    fc.assert(
      fc.property(fc.array(fc.oneof(names, fc.string({ maxLength: 12 })), { maxLength: 8 }), (parts) => {
        const text = parts.join(' ');
        const lower = text.toLowerCase();
        for (const [, pattern, , gates] of TEXT_PATTERNS) {
          if (gates.some((gate) => lower.includes(gate))) continue;
          expect(new RegExp(pattern.source, pattern.flags).test(text)).toBe(false);
        }
      }),
      { numRuns: 2000 },
    );
  });
});
