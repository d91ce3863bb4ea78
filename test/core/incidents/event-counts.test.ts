import { MAX_EVENT_COUNTS, type Incident } from '../../../lambdas/core/incidents/aggregate';
import { analyzeMessages } from '../../../lambdas/core/analyze';
import { buildFinding } from '../../../lambdas/core/findings/finding';
import { advanceIncident, DEFAULT_POLICY, type IncidentState } from '../../../lambdas/core/incidents/lifecycle';
import { parseMessage } from '../../../lambdas/core/parse/parse-message';
import { PLAIN, renderFindingText } from '../../../lambdas/core/findings/render-text';

const SCHEDULER_MESSAGE =
  '0/5 nodes are available: 5 node(s) had untolerated taint {dedicated: batch}. preemption: 0/5 nodes are available: 5 Preemption is not helpful for scheduling.';

/** A core/v1 Event as the event exporter ships it; `copy` makes each shipped copy distinct. */
const coreEvent = (fields: Record<string, unknown>) =>
  JSON.stringify({
    metadata: {
      name: 'web-7d4b9c6f5d-x2x9k.17a1b2c3d4e5f6a7',
      namespace: 'shop',
      uid: 'b1946ac9-2b4f-4c2e-9d6f-1f0e2d3c4b5a',
    },
    involvedObject: { kind: 'Pod', namespace: 'shop', name: 'web-7d4b9c6f5d-x2x9k' },
    reason: 'FailedScheduling',
    type: 'Warning',
    message: SCHEDULER_MESSAGE,
    source: { component: 'default-scheduler' },
    ...fields,
  });

const lines = (messages: string[]) =>
  messages.map((message, i) => ({ message, origin: { file: 'events', line: i + 1 } }));

const occurrencesOf = (messages: string[]) => {
  const { incidents } = analyzeMessages(lines(messages), 'prod');
  return incidents.map((incident) => [incident.rule, incident.occurrences]);
};

describe('event counts', () => {
  it('counts an event re-emitted with a rising count as its highest count, not the sum of copies', () => {
    // The event recorder updates one Event; the exporter ships some of its updates (count 1, 8, …, 31).
    const copies = [1, 8, 16, 24, 31].map((count) =>
      coreEvent({ count, lastTimestamp: `2026-11-30T10:${String(count).padStart(2, '0')}:00Z` }),
    );
    expect(occurrencesOf(copies)).toEqual([['scheduling-untolerated-taint', 31]]);
  });

  it('counts copies out of order and repeated by their highest count', () => {
    const copies = [12, 31, 7, 31, 30].map((count) => coreEvent({ count }));
    expect(occurrencesOf(copies)).toEqual([['scheduling-untolerated-taint', 31]]);
  });

  it('takes the count of an events.k8s.io series, and deprecatedCount', () => {
    const series = JSON.stringify({
      apiVersion: 'events.k8s.io/v1',
      metadata: {
        name: 'web-7d4b9c6f5d-x2x9k.17a1b2c3d4e5f6a8',
        namespace: 'shop',
        uid: 'c0ffee00-0000-4000-8000-000000000001',
      },
      regarding: { kind: 'Pod', namespace: 'shop', name: 'web-7d4b9c6f5d-x2x9k' },
      reason: 'FailedScheduling',
      type: 'Warning',
      note: SCHEDULER_MESSAGE,
      reportingController: 'default-scheduler',
      series: { count: 17, lastObservedTime: '2026-11-30T10:17:00.000000Z' },
      deprecatedCount: 3,
    });
    expect(parseMessage(series, {})!.event).toMatchObject({ count: 17, uid: 'c0ffee00-0000-4000-8000-000000000001' });
    expect(occurrencesOf([series, series])).toEqual([['scheduling-untolerated-taint', 17]]);
  });

  it('adds up distinct events of one incident, each by its own highest count', () => {
    const other = (count: number) =>
      coreEvent({
        metadata: { name: 'web-7d4b9c6f5d-q8r7t.17a1b2c3d4e5f6b0', namespace: 'shop', uid: 'd2' },
        involvedObject: { kind: 'Pod', namespace: 'shop', name: 'web-7d4b9c6f5d-q8r7t' },
        count,
      });
    expect(occurrencesOf([coreEvent({ count: 4 }), other(2), coreEvent({ count: 5 }), other(3)])).toEqual([
      ['scheduling-untolerated-taint', 8],
    ]);
  });

  it("reads kubectl's (x31 over 50m) and counts the rows of one event by it, not by lines", () => {
    // `kubectl events -A --watch` prints the event again each time its count rises (format checked
    // against kubectl 1.32 with a stub API server).
    const row = (count: number) =>
      `shop        4m (x${count} over 50m)   Warning   FailedScheduling   Pod/web-7d4b9c6f5d-x2x9k   ${SCHEDULER_MESSAGE}`;
    const record = parseMessage(row(31), {})!;
    expect(record.format).toBe('kubectl-event-row');
    expect(record.event).toMatchObject({
      type: 'Warning',
      reason: 'FailedScheduling',
      count: 31,
      object: { kind: 'Pod', namespace: 'shop', name: 'web-7d4b9c6f5d-x2x9k' },
    });
    expect(occurrencesOf([row(29), row(30), row(31)])).toEqual([['scheduling-untolerated-taint', 31]]);

    const { incidents } = analyzeMessages(lines([row(29), row(31)]), 'prod');
    expect(renderFindingText(buildFinding(incidents[0]!), PLAIN)).toContain('31 occurrences');
  });

  it('reads the count of a kubectl describe row the same way', () => {
    const header = ['Name:         web-7d4b9c6f5d-x2x9k', 'Namespace:    shop', 'Events:'];
    const row = `  Warning  FailedScheduling  4m35s (x39 over 50m)  default-scheduler  ${SCHEDULER_MESSAGE}`;
    expect(occurrencesOf([...header, row])).toEqual([['scheduling-untolerated-taint', 39]]);
  });

  it('counts log lines, and event rows that nothing identifies, once per line', () => {
    const plain = `Warning FailedScheduling ${SCHEDULER_MESSAGE}`;
    const withoutIdentity = JSON.stringify({
      involvedObject: { kind: 'Pod', namespace: 'shop', name: 'web-7d4b9c6f5d-x2x9k' },
      reason: 'FailedScheduling',
      type: 'Warning',
      message: SCHEDULER_MESSAGE,
    });
    expect(occurrencesOf([plain, plain, withoutIdentity, withoutIdentity])).toEqual([
      ['scheduling-untolerated-taint', 4],
    ]);
  });
});

/** One delivery's incident, as the analyzer hands it to the store. */
const delivery = (messages: string[]): Incident => {
  const { incidents } = analyzeMessages(lines(messages), 'prod');
  expect(incidents).toHaveLength(1);
  return incidents[0]!;
};

const T0 = Date.parse('2026-11-30T10:00:00Z');

/** The stored state after each delivery in turn (one batch id each, a minute apart). */
const storedAfter = (deliveries: Incident[], start?: IncidentState): IncidentState => {
  let state = start;
  deliveries.forEach((incident, i) => {
    state = advanceIncident(state, incident, 'medium', `b${i}`, T0 + i * 60_000, DEFAULT_POLICY).state;
  });
  return state!;
};

describe('event counts across deliveries', () => {
  it('counts an event whose updates land in two deliveries once, at its highest count', () => {
    const state = storedAfter([delivery([coreEvent({ count: 31 })]), delivery([coreEvent({ count: 32 })])]);

    expect(state.occurrences).toBe(32);
  });

  it('adds nothing, and writes nothing, for a delivery holding only counts already counted', () => {
    const stored = storedAfter([delivery([coreEvent({ count: 31 })])]);

    const again = advanceIncident(
      stored,
      delivery([coreEvent({ count: 12 }), coreEvent({ count: 31 })]),
      'medium',
      'b-old-copies',
      T0 + 60_000,
      DEFAULT_POLICY,
    );

    expect(again).toMatchObject({ changed: false, outcome: { kind: 'seen' } });
    expect(again.state.occurrences).toBe(31);
  });

  it('adds new events and log lines of a later delivery in full, and a known event by what it grew', () => {
    const other = coreEvent({
      metadata: { name: 'web-7d4b9c6f5d-q8r7t.17a1b2c3d4e5f6b0', namespace: 'shop', uid: 'd2' },
      involvedObject: { kind: 'Pod', namespace: 'shop', name: 'web-7d4b9c6f5d-q8r7t' },
      count: 5,
    });
    const plain = `Warning FailedScheduling ${SCHEDULER_MESSAGE}`;
    const state = storedAfter([
      delivery([coreEvent({ count: 10 })]),
      delivery([coreEvent({ count: 14 }), other, plain]),
    ]);

    expect(state.occurrences).toBe(10 + 4 + 5 + 1);
  });

  it('does not reopen a resolved incident for an old copy of an event, and counts only what is new', () => {
    const resolved: IncidentState = {
      ...storedAfter([delivery([coreEvent({ count: 31 })])]),
      status: 'resolved',
      resolvedAt: T0 + 30 * 60_000,
    };

    const copy = advanceIncident(resolved, delivery([coreEvent({ count: 31 })]), 'medium', 'b2', T0, DEFAULT_POLICY);
    const grown = advanceIncident(resolved, delivery([coreEvent({ count: 33 })]), 'medium', 'b3', T0, DEFAULT_POLICY);

    expect(copy).toMatchObject({ changed: false, outcome: { kind: 'seen' } });
    expect(grown.outcome).toMatchObject({ kind: 'notify', notify: { reason: 'reopened' } });
    expect(grown.state.occurrences).toBe(2);
  });

  it('counts events told apart only by their object and message once per delivery, as a new Event may restart at 1', () => {
    const row = (count: number) =>
      `shop        4m (x${count} over 50m)   Warning   FailedScheduling   Pod/web-7d4b9c6f5d-x2x9k   ${SCHEDULER_MESSAGE}`;
    const first = delivery([row(31)]);

    expect(first.eventCounts).toBeUndefined();
    expect(storedAfter([first, delivery([row(2)])]).occurrences).toBe(33);
  });

  it('keeps the most recently counted events, at most MAX_EVENT_COUNTS; one pushed out counts in full again', () => {
    const named = (i: number, count: number) =>
      coreEvent({ metadata: { name: `web-${i}.17a1b2c3d4e5f6a7`, namespace: 'shop', uid: `uid-${i}` }, count });
    const many = Array.from({ length: MAX_EVENT_COUNTS + 10 }, (_, i) => named(i, 3));
    const first = delivery(many);
    expect(first.eventCounts).toHaveLength(MAX_EVENT_COUNTS);

    const state = storedAfter([first, delivery([named(MAX_EVENT_COUNTS + 9, 4), named(0, 4)])]);

    expect(state.eventCounts).toHaveLength(MAX_EVENT_COUNTS);
    // The newest event grew by 1; the first one was pushed out, so its 4 count again in full.
    expect(state.occurrences).toBe(3 * (MAX_EVENT_COUNTS + 10) + 1 + 4);
    expect(state.eventCounts!.at(-1)).toEqual([expect.any(String), 4]);
  });
});
