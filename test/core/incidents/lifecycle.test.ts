import type { Incident } from '../../../lambdas/core/incidents/aggregate';
import { noticeOfDue } from '../../../lambdas/core/notice/kind';
import {
  advanceIncident,
  DEFAULT_POLICY,
  incidentOf,
  MAX_BATCHES,
  resolveIncident,
  sweepAction,
  TAKEOVER_AFTER_MS,
  takeOverPending,
  type IncidentState,
} from '../../../lambdas/core/incidents/lifecycle';

const MINUTE = 60_000;
const T0 = Date.parse('2026-11-28T02:00:00Z');

const batch = (subnets: string[], occurrences = 1, time = '2026-11-28T02:00:00.000Z'): Incident => ({
  findingId: 'f00d',
  cluster: 'prod',
  rule: 'subnet-ip-exhaustion',
  occurrences,
  firstSeen: time,
  lastSeen: time,
  entities: { subnets },
  evidence: [{ message: `InsufficientFreeAddressesInSubnet ${subnets.join(' ')}` }],
});

/** The state after its notification went out on both channels. */
const sent = (state: IncidentState): IncidentState => ({
  ...state,
  pending: { ...state.pending!, snsDone: true, eventsDone: true },
});

/** A new incident whose first notice went out (`unsent`: whose publishing failed every attempt). */
function opened(subnets = ['subnet-a'], { unsent = false } = {}): IncidentState {
  const state = advanceIncident(undefined, batch(subnets), 'critical', 'b1', T0, DEFAULT_POLICY).state;
  return unsent ? state : sent(state);
}

describe('advanceIncident', () => {
  it('opens a new incident and asks for a notification', () => {
    const { state, outcome } = advanceIncident(undefined, batch(['subnet-a'], 4), 'critical', 'b1', T0, DEFAULT_POLICY);

    expect(outcome).toEqual({
      kind: 'notify',
      notify: { generation: 1, batchId: 'b1', status: 'open', reason: 'new', snsDone: false, eventsDone: false },
    });
    expect(state).toMatchObject({
      status: 'open',
      occurrences: 4,
      version: 1,
      affected: ['subnet-a'],
      batches: ['b1'],
    });
    expect(state.expiresAt).toBe(Math.ceil((T0 + DEFAULT_POLICY.retainForMs) / 1000));
  });

  it('counts a later batch as ongoing without a notification', () => {
    const { state, outcome } = advanceIncident(
      opened(),
      batch(['subnet-a'], 10),
      'critical',
      'b2',
      T0 + 10 * MINUTE,
      DEFAULT_POLICY,
    );

    expect(outcome).toEqual({ kind: 'ongoing' });
    expect(state.occurrences).toBe(11);
    expect(state.version).toBe(2);
  });

  it('does not count a batch twice and returns its unfinished notification on a retry', () => {
    const first = opened(['subnet-a'], { unsent: true });
    const retry = advanceIncident(first, batch(['subnet-a']), 'critical', 'b1', T0 + MINUTE, DEFAULT_POLICY);

    expect(retry.changed).toBe(false);
    expect(retry.state.occurrences).toBe(1);
    expect(retry.outcome).toEqual({ kind: 'seen', notify: first.pending });
  });

  it('returns nothing to finish for a re-delivered batch whose notification went out', () => {
    const again = advanceIncident(opened(), batch(['subnet-a']), 'critical', 'b1', T0 + MINUTE, DEFAULT_POLICY);

    expect(again.outcome).toEqual({ kind: 'seen', notify: undefined });
  });

  it('re-notifies when the affected set grows after the suppression window', () => {
    const { state, outcome } = advanceIncident(
      opened(),
      batch(['subnet-b']),
      'critical',
      'b2',
      T0 + 6 * MINUTE,
      DEFAULT_POLICY,
    );

    expect(outcome).toMatchObject({ kind: 'notify', notify: { generation: 2, status: 'ongoing', reason: 'affected' } });
    expect(state.entities.subnets).toEqual(['subnet-a', 'subnet-b']);
    expect(state.notified?.affected).toEqual(['subnet-a', 'subnet-b']);
  });

  it('holds an escalation inside the suppression window and sends it with the next batch after it', () => {
    const held = advanceIncident(opened(), batch(['subnet-b']), 'critical', 'b2', T0 + 2 * MINUTE, DEFAULT_POLICY);
    const later = advanceIncident(held.state, batch(['subnet-a']), 'critical', 'b3', T0 + 7 * MINUTE, DEFAULT_POLICY);

    expect(held.outcome.kind).toBe('ongoing');
    expect(later.outcome).toMatchObject({ kind: 'notify', notify: { reason: 'affected' } });
  });

  it('re-notifies when the severity rises', () => {
    const low = sent(advanceIncident(undefined, batch([]), 'medium', 'b1', T0, DEFAULT_POLICY).state);

    const { outcome, state } = advanceIncident(low, batch([]), 'high', 'b2', T0 + 6 * MINUTE, DEFAULT_POLICY);

    expect(outcome).toMatchObject({ kind: 'notify', notify: { reason: 'severity' } });
    expect(state.severity).toBe('high');
  });

  it('re-notifies an ongoing incident after the re-notify interval', () => {
    const { outcome } = advanceIncident(
      opened(),
      batch(['subnet-a']),
      'critical',
      'b2',
      T0 + DEFAULT_POLICY.renotifyAfterMs,
      DEFAULT_POLICY,
    );

    expect(outcome).toMatchObject({ kind: 'notify', notify: { reason: 'interval', status: 'ongoing' } });
  });

  it('treats an expired item as absent even before TTL deletes it', () => {
    const old = opened();
    const after = T0 + DEFAULT_POLICY.retainForMs + MINUTE;

    const { state, outcome } = advanceIncident(old, batch(['subnet-a'], 2), 'critical', 'b9', after, DEFAULT_POLICY);

    expect(outcome).toMatchObject({ kind: 'notify', notify: { reason: 'new', status: 'open', generation: 2 } });
    expect(state.occurrences).toBe(2);
    expect(state.version).toBe(old.version + 1);
  });

  it('reopens a resolved incident with a new notification', () => {
    const resolved: IncidentState = { ...opened(), status: 'resolved', resolvedAt: T0 + 60 * MINUTE };

    const { state, outcome } = advanceIncident(
      resolved,
      batch(['subnet-a']),
      'critical',
      'b2',
      T0 + 90 * MINUTE,
      DEFAULT_POLICY,
    );

    expect(outcome).toMatchObject({ kind: 'notify', notify: { reason: 'reopened', status: 'open' } });
    expect(state.status).toBe('open');
    expect(state.openedAt).toBe(T0 + 90 * MINUTE);
  });

  it('keeps a bounded list of counted batches', () => {
    let state = opened();
    for (let i = 2; i <= MAX_BATCHES + 10; i++) {
      state = advanceIncident(state, batch(['subnet-a']), 'critical', `b${i}`, T0 + i * 1000, DEFAULT_POLICY).state;
    }

    expect(state.batches).toHaveLength(MAX_BATCHES);
    expect(state.batches.at(-1)).toBe(`b${MAX_BATCHES + 10}`);
    expect(state.occurrences).toBe(MAX_BATCHES + 10);
  });

  it('keeps the newest distinct evidence first, at most three', () => {
    let state = opened(['subnet-a']);
    for (const name of ['subnet-b', 'subnet-c', 'subnet-d']) {
      state = advanceIncident(state, batch([name]), 'critical', name, T0 + MINUTE, DEFAULT_POLICY).state;
    }

    expect(state.evidence.map((e) => e.message)).toEqual([
      'InsufficientFreeAddressesInSubnet subnet-d',
      'InsufficientFreeAddressesInSubnet subnet-c',
      'InsufficientFreeAddressesInSubnet subnet-b',
    ]);
  });

  it('widens first and last seen to span every batch', () => {
    const later = advanceIncident(
      opened(),
      batch(['subnet-a'], 1, '2026-11-28T03:00:00.000Z'),
      'critical',
      'b2',
      T0 + MINUTE,
      DEFAULT_POLICY,
    ).state;

    expect(incidentOf(later)).toMatchObject({
      firstSeen: '2026-11-28T02:00:00.000Z',
      lastSeen: '2026-11-28T03:00:00.000Z',
      occurrences: 2,
    });
  });

  describe('a first notice that failed every attempt', () => {
    const unsent = () => opened(['subnet-a'], { unsent: true });

    it('is left to its own batch while that batch may still be retrying it', () => {
      const { outcome, state } = advanceIncident(
        unsent(),
        batch(['subnet-a']),
        'critical',
        'b2',
        T0 + TAKEOVER_AFTER_MS - 1,
        DEFAULT_POLICY,
      );

      expect(outcome).toEqual({ kind: 'ongoing' });
      expect(state.pending?.batchId).toBe('b1');
      expect(state.occurrences).toBe(2);
    });

    it('is taken over by the next delivery and goes out as the open notice, only the channels missing', () => {
      const failed: IncidentState = { ...unsent(), pending: { ...unsent().pending!, eventsDone: true } };
      const at = T0 + 5 * MINUTE;

      const { outcome, state } = advanceIncident(failed, batch(['subnet-b']), 'critical', 'b2', at, DEFAULT_POLICY);

      expect(outcome).toEqual({
        kind: 'notify',
        notify: {
          generation: 1,
          batchId: 'b2',
          status: 'open',
          reason: 'new',
          snsDone: false,
          eventsDone: true,
          claimedAt: at,
        },
      });
      expect(state.affected).toEqual(['subnet-a', 'subnet-b']);
    });

    it('is no longer the old batch to finish once taken over', () => {
      const taken = advanceIncident(unsent(), batch(['subnet-a']), 'critical', 'b2', T0 + 5 * MINUTE, DEFAULT_POLICY);

      const lateRetry = advanceIncident(
        taken.state,
        batch(['subnet-a']),
        'critical',
        'b1',
        T0 + 6 * MINUTE,
        DEFAULT_POLICY,
      );

      expect(lateRetry.outcome).toEqual({ kind: 'seen', notify: undefined });
    });

    it('is finished by the sweep when no delivery comes, with a write that claims it', () => {
      const state = unsent();

      expect(sweepAction(state, T0 + MINUTE, DEFAULT_POLICY)).toBe('keep');
      expect(sweepAction(state, T0 + TAKEOVER_AFTER_MS, DEFAULT_POLICY)).toBe('finish');
      const taken = takeOverPending(state, T0 + TAKEOVER_AFTER_MS)!;
      expect(taken.state.pending).toMatchObject({ batchId: 'sweep', status: 'open', generation: 1 });
      expect(taken.state.version).toBe(state.version + 1);
      expect(sweepAction(taken.state, T0 + TAKEOVER_AFTER_MS + MINUTE, DEFAULT_POLICY)).toBe('keep');
      expect(takeOverPending(sent(state), T0 + TAKEOVER_AFTER_MS)).toBeUndefined();
    });
  });
});

describe('resolveIncident', () => {
  it.each<[string, string | undefined, object, object]>([
    [
      'the sweep, after the quiet window',
      undefined,
      { reason: 'quiet', status: 'resolved', generation: 2 },
      { kind: 'resolved', generation: 2 },
    ],
    [
      'the poller, when the cluster says the failure is over',
      'NodeClaim default-x7k2p: Launched=True',
      { reason: 'resolved', said: 'NodeClaim default-x7k2p: Launched=True', status: 'resolved', generation: 2 },
      { kind: 'resolved', generation: 2, changed: 'NodeClaim default-x7k2p: Launched=True' },
    ],
  ])('resolves with the reason of %s, and the notice tells it', (_, said, pending, notice) => {
    const { state } = resolveIncident(opened(), T0 + 5 * MINUTE, said);
    expect(state).toMatchObject({ status: 'resolved', resolvedAt: T0 + 5 * MINUTE, pending });
    expect(noticeOfDue(state, state.pending!)).toEqual(notice);
  });
});
