import type { Incident } from '../../../lambdas/core/incidents/aggregate';
import { digestNotificationOf } from '../../../lambdas/core/notice/digest-text';
import {
  boundIncidents,
  buildDigest,
  memberOf,
  planNotices,
  type NoticeCandidate,
} from '../../../lambdas/core/incidents/digest';
import type { RuleId } from '../../../lambdas/core/recognise/rules';

const incident = (findingId: string, rule: RuleId, occurrences = 1, workloads: string[] = []): Incident => ({
  findingId,
  cluster: 'prod',
  rule,
  occurrences,
  entities: workloads.length ? { workloads } : {},
  evidence: [],
  ...(workloads.length ? { workloadCount: workloads.length } : {}),
});

const candidate = (findingId: string, overrides: Partial<NoticeCandidate> = {}): NoticeCandidate => ({
  findingId,
  cluster: 'prod',
  severity: 'medium',
  status: 'open',
  ...overrides,
});

describe('boundIncidents', () => {
  it('keeps the most severe incidents up to the limit and returns the rest as overflow', () => {
    const incidents = [
      incident('low', 'missing-resource-requests'),
      incident('crit', 'subnet-ip-exhaustion'),
      incident('med', 'scheduling-untolerated-taint'),
    ];

    const { tracked, overflow } = boundIncidents(incidents, 2);

    expect(tracked.map((i) => i.findingId)).toEqual(['crit', 'med']);
    expect(overflow.map((i) => i.findingId)).toEqual(['low']);
  });
});

describe('planNotices', () => {
  it('sends the most severe few of each cluster on their own, new before ongoing, and digests the rest', () => {
    const due = [
      candidate('m-ongoing', { status: 'ongoing' }),
      candidate('m-open'),
      candidate('c1', { severity: 'critical' }),
      candidate('other-cluster', { cluster: 'staging', severity: 'low' }),
      candidate('r', { status: 'resolved', severity: 'critical' }),
    ];

    const { individual, digested } = planNotices(due, 2);

    expect(individual.map((c) => c.findingId)).toEqual(['c1', 'r', 'other-cluster']);
    expect(digested.map((c) => c.findingId)).toEqual(['m-open', 'm-ongoing']);
  });

  it('makes the same split for the same input (a retry finishes what the first attempt planned)', () => {
    const due = Array.from({ length: 20 }, (_, i) => candidate(`f${i}`, { severity: i % 3 ? 'high' : 'low' }));
    expect(planNotices(due, 5)).toEqual(planNotices([...due], 5));
  });
});

describe('buildDigest', () => {
  it('counts incidents, occurrences and workloads per rule, beyond the listed workloads', () => {
    const members = [
      memberOf(incident('a', 'scheduling-untolerated-taint', 7, ['shop/a', 'shop/b']), 'open'),
      { ...memberOf(incident('b', 'scheduling-untolerated-taint', 3, ['shop/c']), 'untracked'), workloadCount: 120 },
      memberOf(incident('c', 'missing-resource-requests', 1), 'ongoing'),
    ];

    const digest = buildDigest('prod', members, {
      region: 'eu-west-1',
      logGroup: '/aws/containerinsights/prod/application',
    });

    expect(digest).toMatchObject({ kind: 'digest', cluster: 'prod', incidents: 3, untracked: 1 });
    expect(digest.byRule).toEqual([
      expect.objectContaining({ rule: 'scheduling-untolerated-taint', incidents: 2, occurrences: 10, workloads: 122 }),
      expect.objectContaining({ rule: 'missing-resource-requests', incidents: 1, occurrences: 1, workloads: 0 }),
    ]);
    expect(digest.topWorkloads).toEqual(['shop/a', 'shop/b', 'shop/c']);
    expect(digest.commands.join('\n')).toContain('--log-group-name /aws/containerinsights/prod/application');
  });

  it('keeps log text out of the Subject and control characters out of the email', () => {
    const hostile = {
      ...memberOf(incident('x', 'scheduling-untolerated-taint', 1, ['shop/evil\u001b[31m\r\nFORGED: paged']), 'open'),
      keyValue: 'taint\r\nSubject: forged',
    };
    const notification = digestNotificationOf(buildDigest('prod', [hostile], {}));
    const email = (JSON.parse(notification.message) as { email: string }).email;

    expect(notification.subject).toBe('MEDIUM prod: 1 more incident (digest)');
    expect(notification.attributes).toEqual({ rule: 'digest', severity: 'medium', cluster: 'prod', status: 'digest' });
    expect(email).not.toMatch(/[\u0000-\u0009\u000b-\u001f]/);
    expect(email).not.toContain('\r\nSubject');
  });
});

describe('digest text (issue 31)', () => {
  const member = (n: number, key: string) => ({
    findingId: `${'a'.repeat(23)}${n}`,
    cluster: 'prod',
    rule: 'scheduling-untolerated-taint' as const,
    severity: 'medium' as const,
    status: 'open' as const,
    keyValue: key,
    occurrences: 4,
    workloads: [`shop/deployment/web-${n}`],
  });
  const digest = buildDigest('prod', [member(1, 'dedicated=gpu:NoSchedule'), member(2, 'dedicated=infer:NoSchedule')], {
    region: 'eu-west-1',
    logGroup: '/aws/containerinsights/prod/application',
    startTime: Date.parse('2026-12-01T03:00:00Z'),
  });
  const published = JSON.parse(digestNotificationOf(digest).message) as { email: string; https: string };

  it('states the common cause in its first sentence: one namespace, one taint family', () => {
    expect(published.email.split('\n')[0]).toBe(
      'All 2 incidents in prod: pods do not tolerate the taints of the available nodes in namespace shop (all dedicated).',
    );
  });

  it('names no rule id and no finding id, and gives commands that run from an installed CLI', () => {
    const chat = JSON.parse(published.https) as { content: { nextSteps: string[] }; metadata: { threadId: string } };
    for (const text of [published.email, published.https]) {
      expect(text).not.toContain('scheduling-untolerated-taint');
      expect(text).not.toContain(digest.entries[0]!.findingId);
      expect(text).not.toContain('npx ');
      expect(text).not.toContain('<ms>');
    }
    expect(published.email).toContain('--start-time 1796094000000 ');
    expect(published.email).toContain('&& karpenter-doctor analyze logs.json');
    expect(chat.metadata.threadId).toBe('digest-prod');
    expect(chat.content.nextSteps[0]).toContain('aws logs filter-log-events');
  });
});
