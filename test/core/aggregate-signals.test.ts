import fc from 'fast-check';
import { Aggregator } from '../../lambdas/core/aggregate';
import { CAUSE_KIND } from '../../lambdas/core/incident-key';
import type { Entities, EntityKind, LogRecord, Signal } from '../../lambdas/core/model';
import { RULE_IDS, type RuleId } from '../../lambdas/core/rules/ids';
import { Aggregator as ReferenceAggregator } from '../support/aggregate-reference';

/**
 * The aggregator's per-signal work was cut again (issue 17): one lookup per rule for its keying and
 * incidents, a shared "unchanged" answer for signals that neither open nor grow an incident,
 * severities read once per incident, one-shot hashes for ids and event keys, snapshots built without
 * spreads. These properties hold it to the frozen reference aggregator (test/support/aggregate-reference.ts)
 * on signal streams made here rather than by the classifier, so that every path is reached on
 * purpose: many incidents of every kind of keying, entity kinds filled past their cap of 50, values
 * repeated and new, Kubernetes events by uid, by name and by object with rising and repeated counts,
 * per-workload rules with many workloads, causes, records with and without times.
 */

/** Rules of each keying: per workload with a cause kind, per workload cluster-wide, and keyed on their entity. */
const PER_WORKLOAD = Object.keys(CAUSE_KIND) as RuleId[];
const OTHERS = RULE_IDS.filter((rule) => !PER_WORKLOAD.includes(rule));
const rule: fc.Arbitrary<RuleId> = fc.oneof(fc.constantFrom(...PER_WORKLOAD), fc.constantFrom(...OTHERS));

/** Kinds the key entities and cause kinds use, and a few others. */
const KINDS: readonly EntityKind[] = [
  'nodepools',
  'nodeclasses',
  'subnets',
  'instanceTypes',
  'zones',
  'pods',
  'workloads',
  'taints',
  'labels',
  'resources',
  'images',
  'errorCodes',
  'nodeclaims',
  'iamActions',
];

/** A value from a small pool (repeated: `default`, one error code) or a large one (fresh names past the cap). */
const value: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom('default', 'gpu', 'a', 'b', 'x=1:NoSchedule', 'cpu'),
  fc.integer({ min: 0, max: 400 }).map((n) => `name-${n}`),
  fc.string({ maxLength: 6 }),
);

const entities: fc.Arbitrary<Entities> = fc
  .uniqueArray(fc.constantFrom(...KINDS), { maxLength: 6 })
  .chain((kinds) =>
    fc.tuple(
      ...kinds.map((kind) => fc.array(value, { minLength: 0, maxLength: 4 }).map((values) => [kind, values] as const)),
    ),
  )
  .map((pairs) => Object.fromEntries(pairs) as Entities);

/** An event's identity: none, a uid, a name, or only its object and message (with a count or without). */
const event: fc.Arbitrary<LogRecord['event']> = fc.oneof(
  fc.constant(undefined),
  fc.record({
    uid: fc.option(
      fc.integer({ min: 0, max: 30 }).map((n) => `uid-${n}`),
      { nil: undefined },
    ),
    name: fc.option(
      fc.integer({ min: 0, max: 30 }).map((n) => `shop/event-${n}`),
      { nil: undefined },
    ),
    count: fc.option(fc.integer({ min: 1, max: 40 }), { nil: undefined }),
    type: fc.constantFrom('Warning', 'Normal'),
    reason: fc.constant('FailedScheduling'),
    object: fc.option(
      fc.record({ kind: fc.constant('Pod'), namespace: fc.constant('shop'), name: fc.constantFrom('web-0', 'web-1') }),
      { nil: undefined },
    ),
  }),
);

const record: fc.Arbitrary<LogRecord> = fc
  .record({
    text: fc.constantFrom('0/3 nodes are available', 'insufficient capacity', 'denied'),
    summary: fc.oneof(
      fc.constantFrom('one line', 'another line', '\u001b[31mred\u001b[0m  line', 'x'.repeat(1200)),
      fc.integer({ min: 0, max: 50 }).map((n) => `line ${n}`),
    ),
    timeMs: fc.option(fc.integer({ min: 1_700_000_000_000, max: 1_700_000_900_000 }), { nil: undefined }),
    origin: fc.record({
      logGroup: fc.option(fc.constant('/aws/eks/prod/karpenter'), { nil: undefined }),
      timestampMs: fc.option(fc.integer({ min: 1_700_000_000_000, max: 1_700_000_900_000 }), { nil: undefined }),
      line: fc.option(fc.nat(1000), { nil: undefined }),
    }),
    event,
  })
  .map(({ text, summary, timeMs, origin, event }) => ({
    format: 'plain' as const,
    text,
    summary,
    fields: {},
    origin,
    ...(timeMs === undefined ? {} : { timeMs }),
    ...(event === undefined ? {} : { event }),
  }));

const causes = fc.option(fc.uniqueArray(fc.constantFrom(...PER_WORKLOAD), { minLength: 1, maxLength: 3 }), {
  nil: undefined,
});

const signal: fc.Arbitrary<Signal> = fc
  .record({ rule, entities, record, causes })
  .map(({ rule, entities, record, causes }) => ({ rule, entities, record, ...(causes ? { causes } : {}) }));

/** Signals of few rules and keys, so that incidents take many signals each and reach their caps. */
const stream = (maxLength: number): fc.Arbitrary<Signal[]> =>
  fc.array(signal, { minLength: 1, maxLength }).chain((signals) =>
    // Copies of earlier signals: an event re-shipped, a line repeated.
    fc.array(fc.tuple(fc.nat(signals.length - 1), fc.nat(signals.length)), { maxLength: 20 }).map((copies) => {
      const all = [...signals];
      for (const [from, at] of copies) all.splice(at, 0, signals[from]!);
      return all;
    }),
  );

function sameAsReference(signals: Signal[], account?: string): void {
  const fast = new Aggregator('prod', account);
  const reference = new ReferenceAggregator('prod', account);
  // Fed without asking what changed (`add(signal, false)`, the analyzer without a listener).
  const quiet = new Aggregator('prod', account);
  signals.forEach((signal, i) => {
    expect(quiet.add(signal, false)).toBeUndefined();
    const change = fast.add(signal);
    expect({ i, ...change, grown: [...change.grown] }).toStrictEqual({ i, ...reference.add(signal) });
    // Read in the middle as well: a snapshot must not disturb what follows.
    if (i % 97 === 0) expect(fast.incident(change.findingId)).toStrictEqual(reference.incident(change.findingId));
  });
  const found = fast.incidentsFound();
  expect(found).toStrictEqual(reference.incidentsFound());
  expect(JSON.stringify(quiet.incidentsFound())).toBe(JSON.stringify(found));
  // Members in the same order: findings are serialised as they are.
  expect(JSON.stringify(found)).toBe(JSON.stringify(reference.incidentsFound()));
}

describe('aggregation of generated signal streams', () => {
  it('property: the same changes and incidents as the reference aggregator', () => {
    fc.assert(
      fc.property(stream(80), (signals) => sameAsReference(signals)),
      { numRuns: 300, endOnFailure: true },
    );
  });

  it('property: the same for a cluster of another account', () => {
    fc.assert(
      fc.property(stream(40), (signals) => sameAsReference(signals, '444455556666')),
      { numRuns: 50, endOnFailure: true },
    );
  });

  it('property: the same for long streams of a few rules, whose incidents fill every entity kind past its cap', () => {
    const few = fc
      .record({
        rule: fc.constantFrom<RuleId>('scheduling-untolerated-taint', 'oom-killed', OTHERS[0]!),
        entities,
        record,
        causes,
      })
      .map(({ rule, entities, record, causes }) => ({ rule, entities, record, ...(causes ? { causes } : {}) }));
    fc.assert(
      fc.property(fc.array(few, { minLength: 300, maxLength: 800 }), (signals) => sameAsReference(signals)),
      { numRuns: 15, endOnFailure: true },
    );
  });
});

describe('event counts past what an incident remembers', () => {
  const signalOf = (kind: string, n: number, count: number): Signal => {
    const event: NonNullable<LogRecord['event']> =
      kind === 'uid'
        ? { uid: `u-${n}`, count }
        : kind === 'name'
          ? { name: `shop/e-${n}`, count }
          : { object: { kind: 'Pod', namespace: 'shop', name: `web-${n}` }, count, type: 'Warning' };
    return {
      rule: 'oom-killed',
      entities: {},
      record: { format: 'k8s-event', text: 'OOMKilled', summary: 'OOMKilled', fields: {}, origin: {}, event },
    };
  };

  it('property: forgets the events raised longest ago across uids, names and objects, as the reference does', () => {
    // One incident, more distinct events than MAX_REMEMBERED (10,000) of the three kinds of identity
    // interleaved, some raised again on the way (moved to the newest); then every one of them again,
    // in another order, some raised: those forgotten count in full again, so which were forgotten
    // shows in the occurrences, and the newest in the event counts.
    const kinds = fc.array(fc.constantFrom('uid', 'name', 'object'), { minLength: 10_050, maxLength: 10_300 });
    const plan = kinds.chain((kinds) =>
      fc.tuple(
        fc.constant(kinds),
        fc.array(fc.tuple(fc.nat(kinds.length - 1), fc.integer({ min: 1, max: 3 })), { maxLength: 300 }),
        fc.shuffledSubarray(
          kinds.map((_, i) => i),
          { minLength: kinds.length },
        ),
        fc.array(fc.integer({ min: 1, max: 3 }), { minLength: kinds.length, maxLength: kinds.length }),
      ),
    );
    fc.assert(
      fc.property(plan, ([kinds, raises, again, counts]) => {
        const signals: Signal[] = [];
        kinds.forEach((kind, n) => {
          signals.push(signalOf(kind, n, 1));
          // A raise of an earlier event on the way.
          const raise = raises[n];
          if (raise) signals.push(signalOf(kinds[raise[0]]!, raise[0], 1 + raise[1]));
        });
        for (const n of again) signals.push(signalOf(kinds[n]!, n, counts[n]!));
        const fast = new Aggregator('prod');
        const reference = new ReferenceAggregator('prod');
        for (const signal of signals) {
          fast.add(signal);
          reference.add(signal);
        }
        expect(JSON.stringify(fast.incidentsFound())).toBe(JSON.stringify(reference.incidentsFound()));
      }),
      { numRuns: 3, endOnFailure: true },
    );
  });
});
