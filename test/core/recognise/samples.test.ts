import { loadSamples, rulesOf } from '../../helpers';

const { samples } = loadSamples();
// Lines are scored one by one, with embedded newlines folded as the scorer does.
const asLine = (raw: string): string => raw.replace(/\r?\n/g, ' ');

describe('real public Karpenter lines (the labelled samples of loadSamples)', () => {
  const failures = samples.filter((s) => s.expected_rules.length > 0 && !s.benign);
  const benign = samples.filter((s) => s.benign);
  const noise = samples.filter((s) => s.expected_rules.length === 0);

  it('has failure lines and noise lines to check', () => {
    expect(failures.length).toBeGreaterThan(30);
    expect(noise.length).toBeGreaterThan(30);
  });

  it.each(failures.map((s) => [s.id, s] as const))('%s yields one of its expected rules', (_id, sample) => {
    const rules = rulesOf(asLine(sample.raw));
    expect(rules.some((rule) => sample.expected_rules.includes(rule))).toBe(true);
  });

  it.each(benign.map((s) => [s.id, s] as const))('%s (benign) yields silence or an expected rule', (_id, sample) => {
    const rules = rulesOf(asLine(sample.raw));
    expect(rules.every((rule) => sample.expected_rules.includes(rule))).toBe(true);
  });

  it.each(noise.map((s) => [s.id, s] as const))('%s (healthy) yields nothing', (_id, sample) => {
    expect(rulesOf(asLine(sample.raw))).toEqual([]);
  });
});
