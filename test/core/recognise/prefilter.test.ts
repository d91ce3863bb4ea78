import fc from 'fast-check';
import {
  classify,
  fragments as allFragments,
  mayClassify,
  worthParsing,
  worthParsingOrPlacement,
} from '../../../lambdas/core/recognise/classify';
import { mayBePlacement } from '../../../lambdas/core/incidents/resolution';
import { parseMessage } from '../../../lambdas/core/parse/parse-message';
import { fixture, loadSamples } from '../../helpers';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../../helpers';

const fragments = allFragments();

describe('mayClassify (the prefilter before parsing)', () => {
  const yields = (line: string) => {
    const record = parseMessage(line, { line: 1 });
    return record ? classify(record).length > 0 : false;
  };

  it('keeps every line of the samples and examples that yields a signal', () => {
    const lines = [
      ...loadSamples().samples.map((s) => s.raw),
      ...readFileSync(join(ROOT, 'examples', 'karpenter-controller.log'), 'utf8').split('\n'),
      ...readFileSync(join(ROOT, 'examples', 'kubernetes-events.jsonl'), 'utf8').split('\n'),
      ...fixture('karpenter-samples.jsonl')
        .split('\n')
        .filter(Boolean)
        .map((l) => (JSON.parse(l) as { raw: string }).raw),
    ].filter(Boolean);
    const lost = lines.filter((line) => yields(line) && !mayClassify(line));
    expect(lost).toEqual([]);
  });

  it('skips most healthy Karpenter lines', () => {
    const healthy = readFileSync(join(ROOT, 'examples', 'karpenter-controller.log'), 'utf8')
      .split('\n')
      .filter((line) => line && !yields(line));
    expect(healthy.filter(mayClassify).length / healthy.length).toBeLessThan(0.05);
  });

  it('property: a fragment inside any envelope, however escaped, is never skipped', () => {
    const envelopes: Array<(text: string) => string> = [
      (t) => t,
      (t) => JSON.stringify({ level: 'ERROR', message: 'failed', error: t }),
      (t) => JSON.stringify({ log: `2026-11-28T02:20:49Z stdout F ${JSON.stringify({ level: 'INFO', message: t })}` }),
      (t) => JSON.stringify({ reason: 'Unconsolidatable', message: t, involvedObject: { kind: 'Node', name: 'n' } }),
      (t) => `2026-11-28T02:20:49.824Z\tERROR\tcontroller\t${t}\t{"commit":"x"}`,
      (t) =>
        JSON.stringify({ message: t }).replace(/[<>&']/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`),
    ];
    fc.assert(
      fc.property(
        fc.constantFrom(...fragments),
        fc.string({ maxLength: 20 }),
        fc.string({ maxLength: 20 }),
        fc.nat(envelopes.length - 1),
        fc.boolean(),
        (fragment, before, after, envelope, upper) => {
          const text = `${before} ${upper ? fragment.toUpperCase() : fragment} ${after}`;
          const line = envelopes[envelope]!(text);
          if (yields(line)) expect(mayClassify(line)).toBe(true);
        },
      ),
      { numRuns: 3000 },
    );
  });
});

describe('worthParsingOrPlacement (the pipeline’s prefilter, one pass)', () => {
  it('keeps every line worthParsing or mayBePlacement keeps, placements in any case, and skips healthy lines', () => {
    const lines = [
      ...loadSamples().samples.map((s) => s.raw),
      ...readFileSync(join(ROOT, 'examples', 'karpenter-controller.log'), 'utf8').split('\n'),
      ...readFileSync(join(ROOT, 'examples', 'kubernetes-events.jsonl'), 'utf8').split('\n'),
      '3m   Normal   Nominated   pod/web-1   Pod should schedule on: nodeclaim/default-abcde',
      '{"reason":"Scheduled","message":"Successfully assigned default/web-1 to ip-10-0-1-2.ec2.internal"}',
      'E1105 10:00:00.000000       1 reflector.go:1] widget failed',
      'Warning  SomethingNew  pod/web-1  a new kind of failure',
    ].filter(Boolean);
    const lost = lines.filter((line) => (worthParsing(line) || mayBePlacement(line)) && !worthParsingOrPlacement(line));
    expect(lost).toEqual([]);
    expect(worthParsingOrPlacement('3m Normal NOMINATED pod/web-1 x')).toBe(true);
    expect(worthParsingOrPlacement('{"level":"INFO","message":"found provisionable pod(s)"}')).toBe(false);
  });
});
