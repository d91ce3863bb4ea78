import { DETAIL_TYPES, EVENT_SOURCE } from '../../../contracts/events';
import { FINDING_EVENT_DETAIL } from '../../../contracts/finding-event-schema';
import { eventEntryBytes, findingEventOf, MAX_EVENT_ENTRY_BYTES } from '../../../lambdas/core/findings/bus-entries';
import type { Finding } from '../../../lambdas/core/findings/finding';
import { RULE_IDS } from '../../../lambdas/core/recognise/rules';
import { crowdedFinding, ruleFindings } from '../../support/rule-findings';

const SCOPE = { partition: 'aws', region: 'us-west-2', account: '123456789012' };

/** Each notice a finding's event goes out with, and the reason a consumer reads from it. */
const NOTICES = [
  { name: 'opened', status: 'open', notice: { kind: 'new', generation: 1 }, reason: 'open' },
  {
    name: 'escalated',
    status: 'ongoing',
    notice: { kind: 'escalated', generation: 2, changed: 'severity now critical' },
    reason: 'escalation',
  },
  { name: 'reminded', status: 'ongoing', notice: { kind: 'reminder', generation: 3 }, reason: 'reminder' },
  { name: 'resolved', status: 'resolved', notice: { kind: 'resolved', generation: 4 }, reason: 'resolved' },
  { name: 'put without a notice', status: 'open', notice: undefined, reason: 'open' },
] as const;

/** Words of the code or the catalog's sources that no reader of an event should meet. */
const INTERNAL = /seed §|seed article|\(action:|\u2060/;
const RULE_ID_IN_PROSE = new RegExp(`\\b(?:${RULE_IDS.join('|')})\\b`);

const proseOf = (detail: Finding & { changed?: string }): string[] => [
  detail.title,
  detail.diagnosis,
  detail.changed ?? '',
  ...detail.remediation.flatMap((step) => [step.title, step.detail]),
];

describe.each(ruleFindings())('the EventBridge detail of %s', (_label, finding) => {
  it.each(NOTICES)('is the contract, with its reason, when $name', ({ status, notice, reason }) => {
    const entry = findingEventOf({ ...finding, status }, EVENT_SOURCE, SCOPE, notice);
    const detail = FINDING_EVENT_DETAIL.parse(JSON.parse(entry.detail));
    expect(detail.reason).toBe(reason);
    expect(detail.changed !== undefined).toBe(reason === 'escalation');
    expect(entry.detailType).toBe(status === 'resolved' ? DETAIL_TYPES.resolved : DETAIL_TYPES.finding);
    expect(eventEntryBytes(entry)).toBeLessThanOrEqual(MAX_EVENT_ENTRY_BYTES);
  });

  it('lists the ARNs of the cluster, its subnets and the node groups read', () => {
    const entry = findingEventOf(finding, EVENT_SOURCE, SCOPE, { kind: 'new', generation: 1 });
    const expected = [
      'arn:aws:eks:us-west-2:123456789012:cluster/prod',
      ...(finding.entities.subnets ?? []).map((s) => `arn:aws:ec2:us-west-2:123456789012:subnet/${s}`),
      ...(finding.context.nodegroups ?? []).flatMap((g) => (g.arn ? [g.arn] : [])),
    ];
    expect([...entry.resources].sort()).toEqual([...new Set(expected)].sort());
  });

  it('says nothing in internal words: no seed sections, action ids or rule ids in its prose', () => {
    const entry = findingEventOf(finding, EVENT_SOURCE, SCOPE, {
      kind: 'escalated',
      generation: 2,
      changed: 'now 2 affected (latest: subnet-0b2c3d4e5f6071829)',
    });
    for (const text of proseOf(JSON.parse(entry.detail))) {
      expect(text).not.toMatch(INTERNAL);
      expect(text).not.toMatch(RULE_ID_IN_PROSE);
    }
  });
});

describe.each(RULE_IDS.map((rule) => [rule]))('the EventBridge detail of %s at the aggregator’s bounds', (rule) => {
  it('fits the 256 KB PutEvents entry, cut down but still the contract', () => {
    const finding = crowdedFinding(rule);
    // Uncut, the document alone passes the limit: the entry must be cut to fit, not dropped.
    expect(Buffer.byteLength(JSON.stringify(finding))).toBeGreaterThan(MAX_EVENT_ENTRY_BYTES);
    const entry = findingEventOf(finding, EVENT_SOURCE, SCOPE, { kind: 'new', generation: 1 });
    expect(eventEntryBytes(entry)).toBeLessThanOrEqual(MAX_EVENT_ENTRY_BYTES);
    const detail = FINDING_EVENT_DETAIL.parse(JSON.parse(entry.detail));
    expect(detail).toMatchObject({ findingId: finding.findingId, rule, reason: 'open' });
  });
});
