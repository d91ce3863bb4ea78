import { DescribeSubnetsCommand, DescribeVpcsCommand, EC2Client } from '@aws-sdk/client-ec2';
import { EKSClient } from '@aws-sdk/client-eks';
import { AssumeRoleCommand, STSClient, STSServiceException } from '@aws-sdk/client-sts';
import { AutoScalingClient } from '@aws-sdk/client-auto-scaling';
import { ServiceQuotasClient } from '@aws-sdk/client-service-quotas';
import { mockClient } from 'aws-sdk-client-mock';
import 'aws-sdk-client-mock-jest';
import { AccountAccess, accountEnrichers } from '../../lambdas/adapters/accounts';
import type { EnrichmentClients } from '../../lambdas/adapters/enrich';
import { clusterSettingsOf } from '../../lambdas/core/decode/cluster';

const sts = mockClient(STSClient);
const ec2 = mockClient(EC2Client);

const HOME = { partition: 'aws', region: 'eu-west-1', account: '111122223333' };
const SPOKE_A = '444455556666';
const SPOKE_B = '555566667777';
const SUBNET = 'subnet-0a1b2c3d4e5f60718';

/** Response shape of sts:AssumeRole (STS API reference, Credentials); the key id names the account. */
const assumed = (account: string, expiresInMs = 3_600_000) => ({
  Credentials: {
    AccessKeyId: `ASIA${account}`,
    SecretAccessKey: 'secret',
    SessionToken: `token-${account}`,
    Expiration: new Date(clock + expiresInMs),
  },
  AssumedRoleUser: { AssumedRoleId: 'AROA:karpenter-doctor', Arn: `arn:aws:sts::${account}:assumed-role/x/y` },
});
const denied = () =>
  new STSServiceException({
    name: 'AccessDenied',
    $fault: 'client',
    $metadata: { httpStatusCode: 403 },
    message: `User: arn:aws:sts::${HOME.account}:assumed-role/analyzer/x is not authorized to perform: sts:AssumeRole`,
  });

let clock = Date.parse('2026-11-28T02:00:00Z');
const home = (): EnrichmentClients & { sts: STSClient } => ({
  ec2: new EC2Client({ region: HOME.region }),
  eks: new EKSClient({ region: HOME.region }),
  autoScaling: new AutoScalingClient({ region: HOME.region }),
  serviceQuotas: new ServiceQuotasClient({ region: HOME.region }),
  sts: new STSClient({ region: HOME.region }),
});

beforeEach(() => {
  sts.reset();
  ec2.reset();
  clock = Date.parse('2026-11-28T02:00:00Z');
  sts.on(AssumeRoleCommand).callsFake((input: { RoleArn: string }) => assumed(input.RoleArn.split(':')[4]!));
});

describe('AccountAccess', () => {
  it('uses the function’s own clients for the home account, without asking STS', async () => {
    const clients = home();
    const access = new AccountAccess(clients, { sts: clients.sts, roleName: 'karpenter-doctor-enrichment' });

    expect(await access.clientsFor(undefined, HOME)).toEqual({ ok: true, clients });
    expect(await access.clientsFor(HOME.account, HOME)).toEqual({ ok: true, clients });
    expect(sts).not.toHaveReceivedCommand(AssumeRoleCommand);
  });

  it('assumes the spoke role once per account, with the external id naming the home account', async () => {
    const clients = home();
    const access = new AccountAccess(clients, {
      sts: clients.sts,
      roleName: 'karpenter-doctor-enrichment',
      now: () => clock,
    });

    const a = await access.clientsFor(SPOKE_A, HOME);
    await access.clientsFor(SPOKE_A, HOME);
    const b = await access.clientsFor(SPOKE_B, HOME);

    expect(a.ok && b.ok).toBe(true);
    expect(sts).toHaveReceivedCommandTimes(AssumeRoleCommand, 2);
    expect(sts).toHaveReceivedCommandWith(AssumeRoleCommand, {
      RoleArn: `arn:aws:iam::${SPOKE_A}:role/karpenter-doctor-enrichment`,
      ExternalId: `karpenter-doctor-${HOME.account}`,
      RoleSessionName: 'karpenter-doctor',
    });
    if (!a.ok || !b.ok) return;
    const keyOf = async (client: EC2Client) => (await client.config.credentials()).accessKeyId;
    expect(await keyOf(a.clients.ec2)).toBe(`ASIA${SPOKE_A}`);
    expect(await keyOf(b.clients.ec2)).toBe(`ASIA${SPOKE_B}`);
    expect(a.clients.ec2).not.toBe(clients.ec2);
  });

  it('renews the credentials shortly before they expire, not on every call', async () => {
    const clients = home();
    const access = new AccountAccess(clients, { sts: clients.sts, roleName: 'r', now: () => clock });

    await access.clientsFor(SPOKE_A, HOME);
    clock += 50 * 60_000;
    await access.clientsFor(SPOKE_A, HOME);
    expect(sts).toHaveReceivedCommandTimes(AssumeRoleCommand, 1);
    clock += 6 * 60_000; // within five minutes of the end of the hour
    await access.clientsFor(SPOKE_A, HOME);
    expect(sts).toHaveReceivedCommandTimes(AssumeRoleCommand, 2);
  });

  it('reports a denied assumption, remembers it for a minute, then tries again', async () => {
    sts.on(AssumeRoleCommand).rejects(denied());
    const clients = home();
    const access = new AccountAccess(clients, { sts: clients.sts, roleName: 'r', now: () => clock });

    const first = await access.clientsFor(SPOKE_A, HOME);
    await access.clientsFor(SPOKE_A, HOME);

    expect(first).toEqual({
      ok: false,
      error: {
        source: 'sts:AssumeRole',
        message: expect.stringMatching(/^arn:aws:iam::444455556666:role\/r: access denied \(AccessDenied\)/),
      },
    });
    expect(sts).toHaveReceivedCommandTimes(AssumeRoleCommand, 1);
    clock += 61_000;
    sts.on(AssumeRoleCommand).resolves(assumed(SPOKE_A));
    expect((await access.clientsFor(SPOKE_A, HOME)).ok).toBe(true);
  });
});

describe('accountEnrichers', () => {
  const settings = (cluster: string, account: string | undefined) =>
    clusterSettingsOf(
      [
        { name: 'prod', discoveryTag: { key: 'karpenter.sh/discovery', value: 'home-prod' } },
        { name: 'prod', account: SPOKE_A, discoveryTag: { key: 'karpenter.sh/discovery', value: 'spoke-prod' } },
      ],
      cluster,
      account,
    );

  it('reads each account’s subnets with that account’s credentials and settings', async () => {
    ec2.on(DescribeSubnetsCommand).callsFake(async (input, getClient) => {
      const key = (await getClient().config.credentials()).accessKeyId;
      const tag = input.Filters?.[0]?.Values?.[0];
      return {
        Subnets: [
          {
            SubnetId: key === `ASIA${SPOKE_A}` ? SUBNET : 'subnet-home',
            AvailableIpAddressCount: key === `ASIA${SPOKE_A}` ? 3 : 200,
            CidrBlock: '10.0.0.0/24',
            Tags: [{ Key: 'karpenter.sh/discovery', Value: tag }],
          },
        ],
      };
    });
    ec2.on(DescribeVpcsCommand).resolves({ Vpcs: [] });
    const clients = home();
    clients.ec2 = new EC2Client({
      region: HOME.region,
      credentials: { accessKeyId: 'AKIAHOME', secretAccessKey: 's' },
    });
    const enrichers = accountEnrichers(clients, { clusterSettings: settings, now: () => clock });
    const target = (findingId: string, account?: string) => ({
      findingId,
      rule: 'subnet-ip-exhaustion' as const,
      cluster: 'prod',
      ...(account ? { account } : {}),
      entities: {},
    });

    const contexts = await enrichers.enrich([target('home'), target('spoke', SPOKE_A)], 5_000, HOME);

    expect(contexts.get('spoke')?.subnets?.map((s) => [s.subnetId, s.availableIps])).toEqual([[SUBNET, 3]]);
    expect(contexts.get('home')?.subnets?.map((s) => [s.subnetId, s.availableIps])).toEqual([['subnet-home', 200]]);
    // Each account's discovery tag is its own cluster entry's.
    expect(ec2).toHaveReceivedCommandWith(DescribeSubnetsCommand, {
      Filters: [{ Name: 'tag:karpenter.sh/discovery', Values: ['spoke-prod'] }],
    });
    expect(ec2).toHaveReceivedCommandWith(DescribeSubnetsCommand, {
      Filters: [{ Name: 'tag:karpenter.sh/discovery', Values: ['home-prod'] }],
    });
  });

  it('degrades the findings of an account whose role cannot be assumed, and enriches the others', async () => {
    sts.on(AssumeRoleCommand).rejects(denied());
    ec2
      .on(DescribeSubnetsCommand)
      .resolves({ Subnets: [{ SubnetId: 'subnet-home', AvailableIpAddressCount: 200, CidrBlock: '10.0.0.0/24' }] });
    ec2.on(DescribeVpcsCommand).resolves({ Vpcs: [] });
    const enrichers = accountEnrichers(home(), { clusterSettings: settings, now: () => clock });

    const contexts = await enrichers.enrich(
      [
        { findingId: 'a1', rule: 'subnet-ip-exhaustion', cluster: 'prod', account: SPOKE_A, entities: {} },
        { findingId: 'a2', rule: 'ec2-quota-exceeded', cluster: 'prod', account: SPOKE_A, entities: {} },
        { findingId: 'h', rule: 'subnet-ip-exhaustion', cluster: 'prod', entities: {} },
      ],
      5_000,
      HOME,
    );

    for (const id of ['a1', 'a2']) {
      expect(contexts.get(id)?.enrichmentErrors).toEqual([
        { source: 'sts:AssumeRole', message: expect.stringContaining('access denied') },
      ]);
    }
    expect(contexts.get('h')).toMatchObject({ enrichmentErrors: [], subnets: [{ subnetId: 'subnet-home' }] });
    expect(sts).toHaveReceivedCommandTimes(AssumeRoleCommand, 1);
  });
});
