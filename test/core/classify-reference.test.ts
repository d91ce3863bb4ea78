import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { classify, classifyAll, fragments } from '../../lambdas/core/classify';
import { ENTITY_GATES } from '../../lambdas/core/entities';
import type { LogRecord } from '../../lambdas/core/model';
import { parseMessage } from '../../lambdas/core/parse';
import { logRules } from '../../lambdas/core/rules';
import { loadSamples, ROOT } from '../helpers';
import { referenceClassify } from '../support/classify-reference';

// The classifier reads its automaton's hits as indexes into tables built for them; the reference
// (test/support/classify-reference.ts) is the classifier as it was, hits as a set of strings. Same
// signals, in the same order, with the same entities.

/**
 * The records of the bench's corpus (scripts/bench.ts draws its failing lines from the same files:
 * the examples and the shared samples), healthy lines included.
 */
const records: LogRecord[] = [
  ...['karpenter-controller.log', 'kubernetes-events.jsonl'].flatMap((file) =>
    readFileSync(join(ROOT, 'examples', file), 'utf8').split('\n'),
  ),
  ...loadSamples().samples.map((sample) => sample.raw),
].flatMap((line, index) => parseMessage(line, { line: index + 1 }) ?? []);

describe('classify against the reference classifier', () => {
  it('gives the same signals on every record of the examples and the shared samples', () => {
    expect(records.filter((record) => classify(record).length > 0).length).toBeGreaterThan(50);
    for (const record of records) expect(classify(record)).toEqual(referenceClassify(record));
  });

  it('classifyAll gives every record’s signals, in order, on all those records at once', () => {
    expect(classifyAll(records)).toEqual(records.map(referenceClassify));
    expect(classifyAll([])).toEqual([]);
  });

  it('property: classifyAll gives each record’s signals on runs of those records changed, long ones among them', () => {
    const pieces = [...fragments(), ...ENTITY_GATES, ' ', '-> False', 'é', '😀', '\n'];
    const changed = fc
      .tuple(
        fc.constantFrom(...records),
        fc.array(fc.tuple(fc.nat(), fc.constantFrom(...pieces), fc.boolean()), { maxLength: 4 }),
        fc.nat({ max: 20 }),
      )
      .map(([record, insertions, long]) => {
        let text = record.text;
        for (const [at, piece, upper] of insertions) {
          const place = at % (text.length + 1);
          text = `${text.slice(0, place)}${upper ? piece.toUpperCase() : piece}${text.slice(place)}`;
        }
        // Now and then longer than many texts together (the pass then takes it alone).
        if (long === 0) text = `${text} ${'reconciled nodeclaim ok; '.repeat(1_400)}${text}`;
        return { ...record, text };
      });
    fc.assert(
      fc.property(fc.array(changed, { maxLength: 150 }), (batch) => {
        expect(classifyAll(batch)).toEqual(batch.map(referenceClassify));
      }),
      { numRuns: 150 },
    );
  });

  it('property: gives the same signals when fragments, gates, case changes and other characters are put into those records', () => {
    const pieces = [...fragments(), ...ENTITY_GATES, ' ', '-> False', 'Status: True -> False', 'é', '😀', '\n'];
    fc.assert(
      fc.property(
        fc.constantFrom(...records),
        fc.array(fc.tuple(fc.nat(), fc.constantFrom(...pieces), fc.boolean()), { maxLength: 6 }),
        (record, insertions) => {
          let text = record.text;
          for (const [at, piece, upper] of insertions) {
            const place = at % (text.length + 1);
            text = `${text.slice(0, place)}${upper ? piece.toUpperCase() : piece}${text.slice(place)}`;
          }
          const changed = { ...record, text };
          expect(classify(changed)).toEqual(referenceClassify(changed));
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('property: gives the same signals on texts made of many rules’ clauses at once (supersession, polarity, the capacity wrapper)', () => {
    // Whole clauses, so that several rules hold on one record in any order: a more specific rule
    // before or after the general ones it replaces, conditions stated healthy and failing.
    const clauses = logRules().flatMap(({ recognition }) => recognition.clauses.map((clause) => clause.join(' ')));
    const extra = [
      'Status: True -> False',
      'Type: Ready, Status: False -> True',
      'NodeHasNoDiskPressure',
      '0/3 nodes are available',
      ' | ',
    ];
    const events = records.filter((record) => record.event !== undefined);
    fc.assert(
      fc.property(
        fc.constantFrom(...records.slice(0, 20), ...events.slice(0, 20)),
        fc.array(fc.constantFrom(...clauses, ...extra), { minLength: 1, maxLength: 8 }),
        (record, pieces) => {
          const changed = { ...record, text: pieces.join(' ; ') };
          expect(classify(changed)).toEqual(referenceClassify(changed));
        },
      ),
      { numRuns: 3000 },
    );
  });
});
