import { Aggregator, MAX_REMEMBERED } from '../../lambdas/core/incidents/aggregate';
import { analyzeMessages } from '../../lambdas/core/analyze';
import { classify } from '../../lambdas/core/recognise/classify';
import type { Signal } from '../../lambdas/core/model';
import { parseMessage } from '../../lambdas/core/parse/parse-message';
import { MAX_PLACEMENTS } from '../../lambdas/core/incidents/resolution';
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

describe('an incident fed 200,000 distinct events of 200,000 workloads', () => {
  const distinct = 200_000;

  it('keeps at most MAX_REMEMBERED of each, whatever the input', async () => {
    expect(base!.rule).toBe('scheduling-insufficient-resources');
    const aggregator = new Aggregator('prod');
    // The first MAX_REMEMBERED fill what is kept (not measured: the heap also moves by a few MiB as
    // V8 drops unused bytecode and first-use tables settle) …
    for (let i = 0; i < MAX_REMEMBERED; i++) aggregator.add(failureOf(i));
    // … and the 190,000 after them leave nothing more. Unbounded, their identities and workloads
    // would take about 26 MB (about 140 bytes for each event and its workload).
    const growth = await heapGrowthOf(() => {
      for (let i = MAX_REMEMBERED; i < distinct; i++) aggregator.add(failureOf(i));
    });
    expect(growth).toBeLessThan(6 * 2 ** 20);
    const [incident] = aggregator.incidentsFound();
    // Every event counted once; the workloads counted up to the bound.
    expect(incident!.occurrences).toBe(distinct);
    expect(incident!.workloadCount).toBe(MAX_REMEMBERED);
    expect(incident!.entities.workloads).toHaveLength(50);
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

describe('a delivery of more placements than MAX_PLACEMENTS', () => {
  const event = (pod: string, reason: string, message: string, time: string) =>
    JSON.stringify({
      metadata: { name: `${pod}.${reason}`, namespace: 'shop' },
      involvedObject: { kind: 'Pod', namespace: 'shop', name: pod },
      reason,
      type: reason === 'FailedScheduling' ? 'Warning' : 'Normal',
      message,
      source: { component: reason === 'Nominated' ? 'karpenter' : 'default-scheduler' },
      lastTimestamp: time,
    });
  // sigs.k8s.io/karpenter@v1.14.1 pkg/controllers/provisioning/scheduling/events.go NominatePodEvent
  const nominated = (pod: string) =>
    event(pod, 'Nominated', 'Pod should schedule on: nodeclaim/default-x7k2p', '2026-11-30T10:00:10Z');
  const failed = (pod: string) =>
    event(pod, 'FailedScheduling', '0/3 nodes are available: 3 Insufficient cpu.', '2026-11-30T10:00:00Z');
  const resolvedAfter = (placements: number) =>
    analyzeMessages(
      [...Array.from({ length: placements }, (_, i) => nominated(`web-${i}`)), failed('web-0')].map((message, i) => ({
        message,
        origin: { file: 'events', line: i + 1 },
      })),
      'prod',
    ).stats.resolvedSignals;

  it('remembers the most recent ones: an earlier failure of a pod placed long before is counted', () => {
    // The first pod's placement, later than its failure, resolves it while remembered …
    expect(resolvedAfter(MAX_PLACEMENTS)).toBe(1);
    // … and is forgotten once MAX_PLACEMENTS other pods were placed after it.
    expect(resolvedAfter(MAX_PLACEMENTS + 1)).toBe(0);
  }, 60_000);
});
