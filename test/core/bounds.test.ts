import { Aggregator, MAX_REMEMBERED } from '../../lambdas/core/aggregate';
import { classify } from '../../lambdas/core/classify';
import type { Signal } from '../../lambdas/core/model';
import { parseMessage } from '../../lambdas/core/parse';
import { failedSchedulingEvent } from '../support/kube-events';
import { heapGrowthOf } from '../support/heap';

/**
 * What one analysis keeps grows with its incidents, not with its input: a gigabyte log read by the
 * CLI is one analysis. These feed far more distinct names than any bound and look at what is kept.
 */

const [base] = classify(parseMessage(failedSchedulingEvent(1), { file: 'events', line: 1 })!);

/** The same scheduling failure (one incident) for another Deployment's pod, as another Event at `count`. */
function failureOf(i: number, count = 1): Signal {
  const pod = `web${i}-7d4b9c6f5d-x2x9k`;
  return {
    ...base!,
    entities: { ...base!.entities, pods: [`shop/${pod}`], workloads: [`shop/web${i}`] },
    record: { ...base!.record, event: { ...base!.record.event!, uid: `uid-${i}`, name: `${pod}.${i}`, count } },
  };
}

describe('an incident fed 100,000 distinct events of 100,000 workloads', () => {
  const distinct = 100_000;

  it('keeps at most MAX_REMEMBERED of each, whatever the input', async () => {
    expect(base!.rule).toBe('scheduling-insufficient-resources');
    const aggregator = new Aggregator('prod');
    const small = await heapGrowthOf(() => {
      for (let i = 0; i < MAX_REMEMBERED; i++) aggregator.add(failureOf(i));
    });
    const large = await heapGrowthOf(() => {
      for (let i = MAX_REMEMBERED; i < distinct; i++) aggregator.add(failureOf(i));
    });
    const [incident] = aggregator.incidentsFound();
    // Every event counted once; the workloads counted up to the bound.
    expect(incident!.occurrences).toBe(distinct);
    expect(incident!.workloadCount).toBe(MAX_REMEMBERED);
    expect(incident!.entities.workloads).toHaveLength(50);
    // 9× more events after the first MAX_REMEMBERED kept no more than the first ones did (their
    // identities and workloads, over a MiB, would be 9× that unbounded).
    expect(small).toBeGreaterThan(2 ** 19);
    expect(large).toBeLessThan(small);
    // Not a timing: a generous ceiling for a shared machine.
  }, 60_000);

  it('remembers the most recently counted events: an older one seen again counts in full', () => {
    const aggregator = new Aggregator('prod');
    for (let i = 0; i <= MAX_REMEMBERED; i++) aggregator.add(failureOf(i, 3));
    const before = aggregator.incidentsFound()[0]!.occurrences;
    expect(before).toBe(3 * (MAX_REMEMBERED + 1));
    // The newest is remembered at 3: a copy at 4 adds 1. The first was forgotten: at 4 it adds 4.
    aggregator.add(failureOf(MAX_REMEMBERED, 4));
    expect(aggregator.incidentsFound()[0]!.occurrences).toBe(before + 1);
    aggregator.add(failureOf(0, 4));
    expect(aggregator.incidentsFound()[0]!.occurrences).toBe(before + 1 + 4);
  });
});
