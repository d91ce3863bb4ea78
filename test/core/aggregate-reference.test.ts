import fc from 'fast-check';
import { Aggregator } from '../../lambdas/core/aggregate';
import { classify } from '../../lambdas/core/classify';
import { isKarpenterPod } from '../../lambdas/core/entities';
import type { Entities, LogRecord, Signal } from '../../lambdas/core/model';
import { mergeSchedulingCauses } from '../../lambdas/core/scheduling-causes';
import { Aggregator as ReferenceAggregator } from '../support/aggregate-reference';
import { extractEntities as referenceEntities } from '../support/entities-reference';
import { longOutage, NAMED_EVENT_LINES, outageRecord } from '../support/generated-records';

/**
 * Aggregation was cut down for speed (issue 17): one state per incident, saturated entity kinds
 * skipped, growth reported without an array per signal, extraction done once per record with the
 * classifier's gates. These tests hold the incidents it builds to those of the aggregator it replaced
 * (test/support/aggregate-reference.ts) fed with each record's full entity set as the previous
 * extractor found it (test/support/entities-reference.ts): same incidents, entities, counts, evidence
 * and times, and the same change reported for every signal.
 */

/** The classifier's signals with the entities the reference extractor finds in their record. */
function referenceSignals(record: LogRecord, signals: Signal[]): Signal[] {
  const entities = referenceEntities(record);
  return signals.map((signal) => ({ ...signal, entities: entitiesFor(signal.rule, entities) }));
}

/** The controller rule keeps only Karpenter's pods (as lambdas/core/classify.ts does). */
function entitiesFor(rule: string, entities: Entities): Entities {
  if (rule !== 'karpenter-controller-unschedulable') return entities;
  return {
    ...entities,
    pods: (entities.pods ?? []).filter(isKarpenterPod),
    workloads: (entities.workloads ?? []).filter((w) => /\/karpenter(?:-controller)?$/.test(w)),
  };
}

function sameIncidents(records: LogRecord[], account?: string): void {
  const fast = new Aggregator('prod', account);
  const reference = new ReferenceAggregator('prod', account);
  for (const record of records) {
    const signals = mergeSchedulingCauses(classify(record));
    const expected = referenceSignals(record, signals);
    signals.forEach((signal, i) => {
      const change = fast.add(signal);
      expect({ ...change, grown: [...change.grown] }).toStrictEqual(reference.add(expected[i]!));
    });
  }
  expect(fast.incidentsFound()).toStrictEqual(reference.incidentsFound());
}

/**
 * Deliveries of an outage: records of many rules with fresh names, some of them again (a Kubernetes
 * event re-shipped with its count unchanged or risen), so that incidents grow past the entity cap.
 */
const withCopies = (records: LogRecord[]): fc.Arbitrary<LogRecord[]> => {
  // Copies are mostly of events, the records whose copies count by their count.
  const events = records.filter((record) => record.event);
  const copied = fc.oneof(fc.constantFrom(...records), ...(events.length ? [fc.constantFrom(...events)] : []));
  return fc
    .array(fc.tuple(copied, fc.integer({ min: 0, max: 3 }), fc.nat(records.length)), { maxLength: 30 })
    .map((copies) => {
      const all = [...records];
      for (const [record, rise, at] of copies) {
        const count = record.event?.count;
        all.splice(
          at,
          0,
          count === undefined ? record : { ...record, event: { ...record.event, count: count + rise } },
        );
      }
      return all;
    });
};
const delivery = fc.array(outageRecord, { minLength: 1, maxLength: 60 }).chain(withCopies);

describe('aggregation', () => {
  it('property: builds the incidents the reference aggregator builds from full per-record extraction', () => {
    fc.assert(
      fc.property(delivery, (records) => sameIncidents(records)),
      { numRuns: 300, endOnFailure: true },
    );
  });

  it('property: the same for a cluster of another account', () => {
    fc.assert(
      fc.property(delivery, (records) => sameIncidents(records, '444455556666')),
      { numRuns: 50, endOnFailure: true },
    );
  });

  it('property: the same for one long delivery, whose incidents reach every cap', () => {
    fc.assert(
      fc.property(longOutage(200, 400).chain(withCopies), (records) => sameIncidents(records)),
      { numRuns: 20, endOnFailure: true },
    );
  });

  it('property: the same for a long run of named Kubernetes events and their copies, past the count cap', () => {
    fc.assert(
      fc.property(longOutage(100, 300, NAMED_EVENT_LINES).chain(withCopies), (records) => sameIncidents(records)),
      { numRuns: 20, endOnFailure: true },
    );
  });
});
