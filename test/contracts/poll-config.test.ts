import { parseConfig } from '../../contracts/config';
import { configErrorOf as messageOf } from '../support/config-errors';

const withPoll = (poll: unknown, extra: Record<string, unknown> = {}) => ({
  clusters: [{ name: 'prod', logGroups: ['/aws/containerinsights/prod/application'], poll, ...extra }],
});

describe('clusters[].poll', () => {
  it.each([
    [{}, { enabled: true, intervalMinutes: 1, endpointAccess: 'public' }],
    [{ intervalMinutes: 5 }, { enabled: true, intervalMinutes: 5, endpointAccess: 'public' }],
    [
      {
        endpointAccess: 'private',
        subnetIds: ['subnet-0a1b2c3d4e5f60718'],
        securityGroupIds: ['sg-0123456789abcdef0'],
      },
      {
        enabled: true,
        intervalMinutes: 1,
        endpointAccess: 'private',
        subnetIds: ['subnet-0a1b2c3d4e5f60718'],
        securityGroupIds: ['sg-0123456789abcdef0'],
      },
    ],
    [{ enabled: false }, { enabled: false, intervalMinutes: 1, endpointAccess: 'public' }],
  ])('accepts %j as %j', (poll, parsed) => {
    expect(parseConfig(withPoll(poll), 'test.json').clusters[0]!.poll).toEqual(parsed);
  });

  it.each([
    [
      { endpointAccess: 'private' },
      /clusters\[0\]\.poll\.subnetIds.*a private endpoint is polled from inside the VPC/s,
    ],
    [{ endpointAccess: 'private', subnetIds: ['subnet-0a1b2c3d4e5f60718'] }, /poll\.securityGroupIds.*give subnetIds/s],
    [{ subnetIds: ['subnet-0a1b2c3d4e5f60718'] }, /poll\.endpointAccess.*set endpointAccess to "private"/s],
    [{ endpointAccess: 'internal' }, /expected "public" or "private"/],
    [{ intervalMinutes: 0 }, /poll\.intervalMinutes/],
    [
      { endpointAccess: 'private', subnetIds: ['subnet-x'], securityGroupIds: ['sg-0123456789abcdef0'] },
      /expected a subnet id/,
    ],
    [{ every: 1 }, /every/],
  ])('refuses %j', (poll, message) => {
    expect(messageOf(withPoll(poll))).toMatch(message);
  });

  it('refuses to poll a cluster of another account', () => {
    expect(messageOf(withPoll({}, { account: '222233334444' }))).toMatch(
      /cluster prod is in account 222233334444: only clusters of the deploying account can be polled/,
    );
  });
});
