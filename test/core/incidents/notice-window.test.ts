import { EMPTY_WINDOW, planWindow, splitAnnounced, windowStartOf } from '../../../lambdas/core/incidents/notice-window';
import type { DigestMember } from '../../../lambdas/core/incidents/digest';

const LIMITS = { maxPerDelivery: 5, maxPerHour: 12 };
const sent = (notices: number) => ({ notices, announced: new Set<string>() });

describe('planWindow', () => {
  it.each([
    ['a few due, nothing untracked', 3, 0, sent(0), { individual: 3, digest: false }],
    ['more due than a delivery sends', 60, 0, sent(0), { individual: 5, digest: true }],
    ['only untracked incidents', 0, 10, sent(0), { individual: 0, digest: true }],
    ['five due fit the delivery', 5, 0, sent(0), { individual: 5, digest: false }],
    ['the window nearly spent', 60, 10, sent(10), { individual: 1, digest: true }],
    ['one left: the digest takes it', 3, 0, sent(11), { individual: 0, digest: true }],
    ['one left, one due', 1, 0, sent(11), { individual: 1, digest: false }],
    ['the window spent', 60, 10, sent(12), { individual: 0, digest: false }],
  ])('plans %s', (_name, candidates, fresh, window, expected) => {
    expect(planWindow(candidates, fresh, window, LIMITS)).toEqual(expected);
  });
});

describe('splitAnnounced', () => {
  it('announces only what the window has not', () => {
    const member = (findingId: string) => ({ findingId }) as DigestMember;
    const window = { notices: 1, announced: new Set(['a']) };

    expect(splitAnnounced([member('a'), member('b')], window)).toEqual({ fresh: [member('b')], repeat: [member('a')] });
    expect(splitAnnounced([member('a')], EMPTY_WINDOW).fresh).toHaveLength(1);
  });
});

describe('windowStartOf', () => {
  it('starts windows on the hour', () => {
    expect(windowStartOf(Date.parse('2026-11-28T02:59:59.999Z'))).toBe(Date.parse('2026-11-28T02:00:00Z'));
    expect(windowStartOf(Date.parse('2026-11-28T03:00:00Z'))).toBe(Date.parse('2026-11-28T03:00:00Z'));
  });
});
