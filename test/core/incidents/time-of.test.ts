import { analyzeMessages } from '../../../lambdas/core/analyze';
import type { RawMessage } from '../../../lambdas/core/parse/assemble';

// A Karpenter error with no time of its own: the incident's times come from the event's timestamp.
const LINE =
  '{"level":"ERROR","logger":"controller","msg":"failed launching nodeclaim","error":"creating instance, insufficient capacity, with fleet error(s), InsufficientInstanceCapacity: We currently do not have sufficient capacity in the Availability Zone you requested"}';

const message = (timestampMs: number): RawMessage => ({
  message: LINE,
  origin: { logGroup: '/aws/eks/prod/karpenter', logStream: 's', eventId: '1', timestampMs },
});

describe('timeOf', () => {
  it.each([2 ** 53 - 1, -(2 ** 53 - 1), 8.64e15 + 1, Number.NaN])(
    'leaves out an event timestamp no Date can hold (%p) instead of failing the delivery',
    (timestampMs) => {
      const analysis = analyzeMessages([message(timestampMs)], 'prod');
      expect(analysis.incidents).toHaveLength(1);
      expect(analysis.incidents[0]!.firstSeen).toBeUndefined();
      expect(analysis.incidents[0]!.evidence[0]!.timestamp).toBeUndefined();
    },
  );

  it('keeps an event timestamp a Date can hold', () => {
    const analysis = analyzeMessages([message(Date.parse('2026-11-30T03:00:00Z'))], 'prod');
    expect(analysis.incidents[0]!.firstSeen).toBe('2026-11-30T03:00:00.000Z');
  });
});
