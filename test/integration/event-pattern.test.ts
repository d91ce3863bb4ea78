import { matchesPattern } from './support/event-pattern';

/**
 * The harness decides what a template rule delivers (moto cannot match into arrays of objects), so its
 * matcher is checked here on the cases of the EventBridge User Guide ("Event patterns", "Comparison
 * operators"), the shape of the remediation rule's pattern among them.
 */
describe('matchesPattern', () => {
  const finding = {
    source: 'io.karpenter-doctor',
    'detail-type': 'Karpenter Finding',
    resources: ['arn:aws:eks:eu-west-1:123456789012:cluster/prod', 'arn:aws:ec2:eu-west-1:123456789012:subnet/s-1'],
    detail: {
      status: 'open',
      occurrences: 3,
      remediation: [{ title: 'See the subnets' }, { title: 'Plan capacity', action: 'plan-subnet-capacity' }],
    },
  };

  it.each<[string, unknown, boolean]>([
    ['an exact value', { source: ['io.karpenter-doctor'] }, true],
    ['another value', { source: ['aws.ec2'] }, false],
    ['any value of the list', { 'detail-type': ['Karpenter Remediation', 'Karpenter Finding'] }, true],
    ['a value of an array in the event', { resources: ['arn:aws:ec2:eu-west-1:123456789012:subnet/s-1'] }, true],
    ['a nested field', { detail: { status: ['open', 'ongoing'] } }, true],
    ['a nested field with another value', { detail: { status: ['resolved'] } }, false],
    ['a field the event lacks', { detail: { severity: ['high'] } }, false],
    ['a field of any object of an array', { detail: { remediation: { action: ['plan-subnet-capacity'] } } }, true],
    ['a value no object of the array has', { detail: { remediation: { action: ['raise-system-nodegroup'] } } }, false],
    ['prefix', { source: [{ prefix: 'io.' }] }, true],
    ['suffix', { resources: [{ suffix: 'cluster/prod' }] }, true],
    ['anything-but a list', { detail: { status: [{ 'anything-but': ['resolved'] }] } }, true],
    ['anything-but the value', { detail: { status: [{ 'anything-but': 'open' }] } }, false],
    ['exists: false on a missing field', { detail: { severity: [{ exists: false }] } }, true],
    ['exists: true on a missing field', { detail: { severity: [{ exists: true }] } }, false],
    ['numeric within the range', { detail: { occurrences: [{ numeric: ['>', 0, '<=', 3] }] } }, true],
    ['numeric outside the range', { detail: { occurrences: [{ numeric: ['>', 3] }] } }, false],
    ['equals-ignore-case', { 'detail-type': [{ 'equals-ignore-case': 'karpenter finding' }] }, true],
    ['$or with one branch true', { $or: [{ source: ['aws.ec2'] }, { detail: { status: ['open'] } }] }, true],
    ['every field must match', { source: ['io.karpenter-doctor'], 'detail-type': ['Karpenter Remediation'] }, false],
  ])('%s', (_, pattern, expected) => {
    expect(matchesPattern(pattern, finding)).toBe(expected);
  });

  it('refuses an operator it does not know rather than guess', () => {
    expect(() => matchesPattern({ source: [{ wildcard: 'io.*' }] }, finding)).toThrow(/wildcard/);
  });
});
