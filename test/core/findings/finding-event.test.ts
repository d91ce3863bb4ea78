import { readFindingEvent } from '../../../lambdas/core/findings/finding-event';

const SOURCE = 'io.karpenter-doctor';
const ID = '0123456789abcdef01234567';
const event = (over: Record<string, unknown> = {}, detail: Record<string, unknown> = {}) => ({
  source: SOURCE,
  'detail-type': 'Karpenter Finding',
  account: '111122223333',
  region: 'eu-west-1',
  detail: { findingId: ID, cluster: 'prod', status: 'open', ...detail },
  ...over,
});

describe('readFindingEvent', () => {
  it('takes the finding id, and the account, region and cluster the event claims', () => {
    expect(readFindingEvent(event(), SOURCE)).toEqual({
      ok: true,
      findingId: ID,
      claimed: { account: '111122223333', region: 'eu-west-1', cluster: 'prod' },
    });
  });

  it.each([
    ['not an object', 'not an event', 'not an EventBridge event'],
    ['another source', event({ source: 'aws.ec2' }), 'source "aws.ec2" is not io.karpenter-doctor'],
    [
      'its own remediation event',
      event({ 'detail-type': 'Karpenter Remediation' }),
      'detail-type "Karpenter Remediation" is not Karpenter Finding',
    ],
    ['a detail without a finding id', event({ detail: { cluster: 'prod' } }), 'the detail names no finding id'],
    ['a finding id that is no hash', event({}, { findingId: `${ID}; rm -rf /` }), 'the detail names no finding id'],
    ['a detail that is not an object', event({ detail: 'x' }), 'the detail names no finding id'],
    ['a resolved finding', event({}, { status: 'resolved' }), 'the finding is resolved'],
  ])('ignores %s, saying why', (_, input, reason) => {
    expect(readFindingEvent(input, SOURCE)).toEqual({ ok: false, reason });
  });
});
