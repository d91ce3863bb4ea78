import { emptyContext } from '../../../lambdas/core/findings/context';
import { CATALOG, diagnose, logRules, RULE_IDS, RULE_LIST, RULES } from '../../../lambdas/core/recognise/rules';
import { anyOf, defineRule, RULE_FAMILIES } from '../../../lambdas/core/recognise/rules/types';
import { loadSamples, rulesOf } from '../../helpers';

/**
 * One test walks the registry (lambdas/core/recognise/rules): every module is complete, and its own example
 * lines fire it or leave it silent. Adding a rule adds its examples here without a new test.
 */
describe('rule registry', () => {
  it('has one module per id, under its own id, in catalog order', () => {
    expect(Object.keys(RULES).sort()).toEqual([...RULE_IDS].sort());
    for (const [id, rule] of Object.entries(RULES)) expect(rule.info.id).toBe(id);
    expect(RULE_LIST.map((rule) => rule.info.id)).toEqual([...RULE_IDS]);
    expect(Object.keys(CATALOG)).toEqual([...RULE_IDS]);
  });

  it('keeps the public ids of the first catalog (they are never renamed)', () => {
    expect(RULE_IDS).toEqual(expect.arrayContaining(['subnet-ip-exhaustion', 'karpenter-controller-unschedulable']));
    expect(new Set(RULE_IDS).size).toBe(RULE_IDS.length);
  });

  it('gives only the headroom rule no recognition', () => {
    expect(RULE_LIST.filter((rule) => !rule.recognition).map((rule) => rule.info.id)).toEqual([
      'subnet-ip-headroom-low',
    ]);
    expect(RULE_LIST.filter((rule) => rule.info.emittedBy === 'headroom').map((rule) => rule.info.id)).toEqual([
      'subnet-ip-headroom-low',
    ]);
  });

  it('the type system refuses a log rule without recognition or a firing example', () => {
    const info = {
      id: 'oom-killed',
      title: 't',
      shortTitle: 's',
      severity: 'low',
      source: 'beyond',
      family: 'workload',
      emittedBy: 'logs',
      recognises: 'r',
    } as const;
    const diagnose = () => ({ diagnosis: '', remediation: [], docs: [] });
    const example = { line: 'x', source: 'constructed from x' };
    // @ts-expect-error a log rule must say how it is recognised
    defineRule({ info, diagnose, examples: { fires: [example], silent: [] } });
    // @ts-expect-error a log rule needs at least one line it fires on
    defineRule({ info, diagnose, recognition: { clauses: anyOf('x') }, examples: { fires: [], silent: [] } });
    expect(
      defineRule({ info, diagnose, recognition: { clauses: anyOf('x') }, examples: { fires: [example], silent: [] } })
        .info,
    ).toBe(info);
  });
});

describe.each(logRules().map((rule) => [rule.info.id, rule] as const))('rule %s', (id, rule) => {
  it('has a catalog entry with a known family', () => {
    expect(RULE_FAMILIES).toContain(rule.info.family);
    expect(rule.info.title).not.toBe('');
    expect(rule.info.recognises).not.toBe('');
  });

  it('is recognised by lower-case ASCII fragments, patterns, conditions or a context', () => {
    const { clauses, patterns = [], conditions = [], context = [] } = rule.recognition;
    expect(clauses.length + patterns.length + conditions.length + context.length).toBeGreaterThan(0);
    const fragments = [...clauses.flat(), ...patterns.map((p) => p.gate), ...conditions.map((c) => c.type), ...context];
    for (const fragment of fragments) expect(fragment).toMatch(/^[\x20-\x7e]+$/);
    for (const fragment of fragments) expect(fragment).toBe(fragment.toLowerCase());
    for (const clause of clauses) expect(clause.length).toBeGreaterThan(0);
  });

  it('fires on each of its examples', () => {
    for (const { line } of rule.examples.fires)
      expect({ line, rules: rulesOf(line) }).toEqual({ line, rules: expect.arrayContaining([id]) });
  });

  it('stays silent on each of its healthy examples', () => {
    for (const { line } of rule.examples.silent)
      expect({ line, rules: rulesOf(line) }).toEqual({ line, rules: expect.not.arrayContaining([id]) });
  });

  it('says where each example comes from, and not only from the shared samples', () => {
    const examples = [...rule.examples.fires, ...rule.examples.silent];
    for (const { source } of examples) {
      expect(source).toMatch(/^(https:\/\/\S+|seed §\d+|constructed from \S|[\w.-]+\/[\w.-]+@[\w.-]+:\S+)/);
    }
    const samples = new Set(loadSamples().samples.map((sample) => sample.raw));
    expect(rule.examples.fires.filter(({ line }) => !samples.has(line)).length).toBeGreaterThan(0);
  });

  it('diagnoses with no entities and no context: placeholders, at least one step and one doc', () => {
    const result = diagnose({ rule: id, cluster: 'demo', entities: {}, occurrences: 1, context: emptyContext() });
    expect(result.diagnosis.length).toBeGreaterThan(40);
    expect(result.remediation.length).toBeGreaterThan(0);
    expect(result.docs.length).toBeGreaterThan(0);
    for (const doc of result.docs) expect(doc).toMatch(/^https:\/\//);
  });
});
