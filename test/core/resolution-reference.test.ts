import fc from 'fast-check';
import type { LogRecord, Signal } from '../../lambdas/core/model';
import { type ResolutionOptions, ResolutionTracker } from '../../lambdas/core/resolution';
import type { RuleId } from '../../lambdas/core/rules/ids';
import { ResolutionTracker as ReferenceTracker } from '../support/resolution-reference';

/**
 * The resolution tracker takes every record of a delivery; it was changed to build nothing for a
 * record whose signals it does not hold (the same array back, no release list, no placement lookup
 * before the first placement). These properties hold it to the tracker it replaced
 * (test/support/resolution-reference.ts) on generated streams of scheduling failures naming pods,
 * other signals, and placements (Nominated and Scheduled events, the scheduler's binding message),
 * with and without times, under a window and tight caps: the same signals released in the same
 * order for every record, the same count resolved, the same held, the same drained at the end.
 */

const PODS = ['web-0', 'web-1', 'api-7d4b9c6f5d-x2x9k', 'cart-0'];
const pod = fc
  .tuple(fc.constantFrom('', 'shop', 'ml'), fc.constantFrom(...PODS))
  .map(([ns, name]) => (ns ? `${ns}/${name}` : name));
const time = fc.option(fc.integer({ min: 0, max: 200_000 }), { nil: undefined });

const base = (text: string, timeMs: number | undefined, event?: LogRecord['event']): LogRecord => ({
  format: 'plain',
  text,
  summary: text,
  fields: {},
  origin: {},
  ...(timeMs === undefined ? {} : { timeMs }),
  ...(event ? { event } : {}),
});

type Step = { record: LogRecord; signals: Signal[] };

const failure: fc.Arbitrary<Step> = fc
  .tuple(
    fc.array(
      fc.tuple(
        fc.constantFrom<RuleId>(
          'scheduling-insufficient-resources',
          'scheduling-untolerated-taint',
          'karpenter-controller-unschedulable',
          'subnet-ip-exhaustion',
        ),
        fc.array(pod, { maxLength: 3 }),
      ),
      { minLength: 1, maxLength: 3 },
    ),
    time,
    fc.nat(300),
  )
  .map(([signals, timeMs, length]) => {
    const record = base(`0/3 nodes are available ${'x'.repeat(length)}`, timeMs);
    return {
      record,
      signals: signals.map(([rule, pods]) => ({ rule, entities: pods.length ? { pods } : {}, record })),
    };
  });

const placement: fc.Arbitrary<Step> = fc
  .tuple(fc.constantFrom('Nominated', 'Scheduled', 'Other'), pod, time, fc.boolean())
  .map(([reason, placed, timeMs, byMessage]) => {
    const [namespace, name] = placed.includes('/') ? placed.split('/') : [undefined, placed];
    const record = byMessage
      ? base(`Successfully assigned ${namespace ?? 'shop'}/${name} to ip-10-0-1-2`, timeMs, { reason, type: 'Normal' })
      : base('placed', timeMs, {
          reason,
          type: 'Normal',
          object: { kind: 'Pod', name: name!, ...(namespace ? { namespace } : {}) },
        });
    return { record, signals: [] };
  });

const quiet: fc.Arbitrary<Step> = time.map((timeMs) => ({ record: base('nothing', timeMs), signals: [] }));

const options: fc.Arbitrary<ResolutionOptions> = fc.record(
  {
    windowMs: fc.integer({ min: 0, max: 60_000 }),
    maxHeld: fc.integer({ min: 1, max: 6 }),
    maxHeldChars: fc.integer({ min: 50, max: 2_000 }),
    launches: fc.boolean(),
  },
  { requiredKeys: [] },
);

describe('resolution tracker against the reference', () => {
  it('property: the same signals counted, in the same order, and the same resolved, held and drained', () => {
    fc.assert(
      fc.property(options, fc.array(fc.oneof(failure, failure, placement, quiet), { maxLength: 80 }), (opts, steps) => {
        const fast = new ResolutionTracker(opts);
        const reference = new ReferenceTracker(opts);
        for (const [i, { record, signals }] of steps.entries()) {
          const got = fast.accept(record, signals, record.timeMs);
          const expected = reference.accept(record, signals, record.timeMs);
          expect({ i, signals: [...got] }).toEqual({ i, signals: expected });
          // The very objects, not copies.
          got.forEach((signal, j) => expect(signal).toBe(expected[j]));
          expect([fast.resolved, fast.held]).toEqual([reference.resolved, reference.held]);
        }
        const drained = fast.drain();
        const expectedDrained = reference.drain();
        expect(drained.length).toBe(expectedDrained.length);
        drained.forEach((signal, j) => expect(signal).toBe(expectedDrained[j]));
      }),
      { numRuns: 400, endOnFailure: true },
    );
  });
});
