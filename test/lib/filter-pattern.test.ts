import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_FILTER_TERMS, defaultFilterPattern } from '../../lib/filter-pattern';
import { classify } from '../../lambdas/core/recognise/classify';
import { parseMessage } from '../../lambdas/core/parse/parse-message';
import { logRules } from '../../lambdas/core/recognise/rules';
import { loadSamples, ROOT } from '../helpers';

/**
 * CloudWatch Logs term semantics for `?a ?b …`: an event passes when it contains any term. Terms are
 * matched case-sensitively as whole words here (split on anything but letters, digits and `_`),
 * the stricter reading: a line that passes as a word also passes as a substring.
 */
function passesAsWords(message: string): boolean {
  const words = new Set(message.split(/[^A-Za-z0-9_]+/));
  return DEFAULT_FILTER_TERMS.some((term) => words.has(term));
}
const passesAsSubstring = (message: string): boolean => DEFAULT_FILTER_TERMS.some((term) => message.includes(term));

const { samples } = loadSamples();
const failures = samples.filter((s) => s.expected_rules.length > 0);
const noise = samples.filter((s) => s.expected_rules.length === 0);

describe('the default subscription filter pattern', () => {
  it('is a plain term pattern under 1,024 characters with no regex', () => {
    const pattern = defaultFilterPattern().logPatternString;
    expect(pattern.length).toBeLessThan(1024);
    expect(pattern).not.toContain('%');
    expect(DEFAULT_FILTER_TERMS.every((term) => /^[A-Za-z0-9]+$/.test(term))).toBe(true);
  });

  it.each(failures.map((s) => [s.id, s.raw] as const))('passes failure sample %s', (_id, raw) => {
    expect(passesAsWords(raw)).toBe(true);
  });

  it.each(logRules().map((rule) => [rule.info.id, rule.examples.fires.map((example) => example.line)] as const))(
    'passes every line the rule %s fires on (its examples: controller, event, kubelet and journal lines)',
    (_id, lines) => {
      expect(lines.filter((line) => !passesAsWords(line))).toEqual([]);
    },
  );

  it('passes every failure line of the bundled examples, and drops most of their healthy lines', () => {
    const lines = ['karpenter-controller.log', 'kubernetes-events.jsonl'].flatMap((file) =>
      readFileSync(join(ROOT, 'examples', file), 'utf8')
        .split('\n')
        .filter(Boolean),
    );
    const failing = lines.filter((line) => classify(parseMessage(line, { line: 1 })!).length > 0);
    const healthy = lines.filter((line) => !failing.includes(line));

    expect(failing.filter((line) => !passesAsWords(line))).toEqual([]);
    expect(healthy.filter(passesAsSubstring).length / healthy.length).toBeLessThan(0.05);
  });

  it("passes Karpenter's Nominated event, which resolves a scheduling failure of the same delivery", () => {
    const nominated = JSON.stringify({
      involvedObject: { kind: 'Pod', namespace: 'shop', name: 'api-7d4b9c6f5d-x2x9k' },
      reason: 'Nominated',
      type: 'Normal',
      message: 'Pod should schedule on: nodeclaim/default-x7k2p',
    });
    expect(passesAsWords(nominated)).toBe(true);
  });

  it('reports the share of the real noise samples it drops', () => {
    const dropped = {
      words: noise.filter((s) => !passesAsWords(s.raw)).length,
      substrings: noise.filter((s) => !passesAsSubstring(s.raw)).length,
    };
    // A measurement, printed for the README; the assertion only guards against a pattern that passes everything.
    process.stdout.write(
      `default filter pattern drops ${dropped.words}/${noise.length} noise samples as words, ${dropped.substrings}/${noise.length} as substrings\n`,
    );
    expect(dropped.substrings).toBeGreaterThan(noise.length / 2);
  });
});
