import fc from 'fast-check';
import { classify } from '../../lambdas/core/classify';
import { extractEntities } from '../../lambdas/core/entities';
import type { LogRecord } from '../../lambdas/core/model';
import { parseMessage } from '../../lambdas/core/parse';
import { extractEntities as referenceEntities } from '../support/entities-reference';
import { outageRecord, PROJECT_LINES } from '../support/generated-records';

/**
 * The entity extractor was rewritten for speed (issue 17): these tests hold it to the extractor it
 * replaced (test/support/entities-reference.ts, kept verbatim), on every line of the project and on
 * generated outage records, both as called alone and as the classifier calls it, with the gates its
 * automaton found.
 */
const sameAsReference = (record: LogRecord): void => {
  const expected = referenceEntities(record);
  expect(extractEntities(record)).toStrictEqual(expected);
  for (const signal of classify(record)) {
    if (signal.rule !== 'karpenter-controller-unschedulable') expect(signal.entities).toStrictEqual(expected);
  }
};

describe('entity extraction', () => {
  it('finds what the reference extractor finds on every line of the project', () => {
    for (const line of PROJECT_LINES) {
      const record = parseMessage(line, { line: 1 });
      if (record) sameAsReference(record);
    }
  });

  it('property: finds what the reference extractor finds on generated outage records', () => {
    fc.assert(fc.property(outageRecord, sameAsReference), { numRuns: 4000 });
  });

  it('property: finds what the reference extractor finds in a run of records of one stream', () => {
    // The extractor remembers the last log stream and writer it saw: a run switches between them.
    fc.assert(
      fc.property(fc.array(outageRecord, { minLength: 2, maxLength: 20 }), (records) =>
        records.forEach(sameAsReference),
      ),
      { numRuns: 300 },
    );
  });
});
