import fc from 'fast-check';
import { Aggregator, sortedValues } from '../../lambdas/core/aggregate';
import { ENTITY_KINDS, type Entities, type EntityKind, type LogRecord, type Signal } from '../../lambdas/core/model';
import type { RuleId } from '../../lambdas/core/rules';
import { Aggregator as ReferenceAggregator } from '../support/aggregate-reference';

/**
 * The aggregator's shortcuts of stop 26 (issue 17) against what they replace: values sorted by
 * binary insertion against `[...set].sort()`, and the entity unions (a value equal to the one last
 * added is not hashed again) against the reference aggregator, on signals whose names repeat in
 * fresh strings (as extraction hands them out), alternate, and overflow the cap of a kind.
 */

/** A copy of `text` that is another string object: what extraction hands out for each record. */
const fresh = (text: string): string => `${text}\u0000`.slice(0, -1);

describe('aggregator fast paths', () => {
  it('property: sortedValues gives what [...set].sort() gives', () => {
    const value = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 12 }),
      fc.string({ unit: fc.constantFrom('a', 'b', '-', 'A', '\u00e9', '\ud83d', '\ude00'), maxLength: 8 }),
    );
    fc.assert(
      fc.property(fc.array(value, { maxLength: 70 }), (values) => {
        const set = new Set(values);
        expect(sortedValues(set)).toStrictEqual([...set].sort());
      }),
      { numRuns: 2000 },
    );
  });

  it('property: entity unions match the reference when names repeat, alternate and overflow the cap', () => {
    const rules: RuleId[] = [
      'subnet-ip-exhaustion',
      'insufficient-instance-capacity',
      'scheduling-untolerated-taint',
      'consolidation-blocked',
    ];
    const kinds: EntityKind[] = [
      'nodeclaims',
      'nodepools',
      'zones',
      'taints',
      'pods',
      'workloads',
      'karpenterNamespaces',
    ];
    // Few names for most kinds (repeats, alternations), many for one (past the cap of 50).
    const name = (kind: EntityKind) =>
      kind === 'nodeclaims'
        ? fc.integer({ min: 0, max: 80 }).map((n) => `default-${n}`)
        : fc.constantFrom('a', 'b', 'c');
    const entities: fc.Arbitrary<Entities> = fc.subarray(kinds, { minLength: 1 }).chain((chosen) =>
      fc.tuple(...chosen.map((kind) => fc.uniqueArray(name(kind), { minLength: 1, maxLength: 3 }))).map((lists) => {
        const found: Entities = {};
        chosen.forEach((kind, i) => (found[kind] = lists[i]!.sort().map(fresh)));
        return found;
      }),
    );
    const record: LogRecord = { format: 'plain', text: 'x', summary: 'x', fields: {}, origin: {} };
    const signal = fc.record({ rule: fc.constantFrom(...rules), entities }).map((s): Signal => ({ ...s, record }));
    fc.assert(
      fc.property(fc.array(signal, { minLength: 1, maxLength: 300 }), (signals) => {
        const fast = new Aggregator('prod');
        const reference = new ReferenceAggregator('prod');
        for (const s of signals) {
          const change = fast.add(s);
          expect({ ...change, grown: [...change.grown] }).toStrictEqual(reference.add(s));
        }
        expect(fast.incidentsFound()).toStrictEqual(reference.incidentsFound());
      }),
      { numRuns: 300 },
    );
    expect(ENTITY_KINDS).toEqual(expect.arrayContaining(kinds));
  });
});
