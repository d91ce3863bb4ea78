import fc from 'fast-check';
import type { LogRecord, RuleId, Signal } from '../../lambdas/core/model';
import { mergeSchedulingCauses, SCHEDULING_LEAD_ORDER } from '../../lambdas/core/scheduling-causes';

/**
 * `mergeSchedulingCauses` builds its causes by insertion and its arrays at their final length
 * (issue 17, stop 27); the reference is how it read before: filter, sort by rank (stable), push.
 */
function referenceMerge(signals: Signal[]): Signal[] {
  const rank = (rule: RuleId) => SCHEDULING_LEAD_ORDER.indexOf(rule);
  const scheduling = signals.filter((signal) => rank(signal.rule) >= 0);
  if (signals.length < 2 || scheduling.length < 2) return signals;
  const lead = scheduling.reduce((best, signal) => (rank(signal.rule) > rank(best.rule) ? signal : best));
  const causes = scheduling
    .filter((signal) => signal !== lead)
    .map((signal) => signal.rule)
    .sort((a, b) => rank(b) - rank(a));
  return signals.flatMap((signal) =>
    signal === lead
      ? [{ rule: lead.rule, entities: lead.entities, record: lead.record, causes }]
      : rank(signal.rule) >= 0
        ? []
        : [signal],
  );
}

describe('mergeSchedulingCauses against the reference', () => {
  it('property: the same signals, leads and causes in the same order, repeated rules included', () => {
    const record: LogRecord = { format: 'plain', text: 'x', summary: 'x', fields: {}, origin: {} };
    const rule = fc.constantFrom<RuleId>(
      ...SCHEDULING_LEAD_ORDER,
      'oom-killed',
      'subnet-ip-exhaustion',
      'node-not-ready',
    );
    const signal = fc
      .record({ rule, pod: fc.constantFrom('a', 'b', 'c') })
      .map(({ rule, pod }): Signal => ({ rule, entities: { pods: [pod] }, record }));
    fc.assert(
      fc.property(fc.array(signal, { maxLength: 10 }), (signals) => {
        const merged = mergeSchedulingCauses(signals);
        const reference = referenceMerge(signals);
        expect(merged).toStrictEqual(reference);
        // Each signal not merged is handed on as it is, not copied.
        merged.forEach((signal, i) => {
          if (!signal.causes) expect(signal).toBe(reference[i]);
        });
      }),
      { numRuns: 3000 },
    );
  });
});
