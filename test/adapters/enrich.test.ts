import { AutoScalingClient, DescribeAutoScalingGroupsCommand } from '@aws-sdk/client-auto-scaling';
import { DescribeSubnetsCommand, DescribeVpcsCommand, EC2Client } from '@aws-sdk/client-ec2';
import {
  DescribeClusterCommand,
  DescribeNodegroupCommand,
  EKSClient,
  EKSServiceException,
  ListNodegroupsCommand,
} from '@aws-sdk/client-eks';
import { GetServiceQuotaCommand, ServiceQuotasClient } from '@aws-sdk/client-service-quotas';
import { mockClient } from 'aws-sdk-client-mock';
import 'aws-sdk-client-mock-jest';
import type { ClusterSettings } from '../../lambdas/core/decode/cluster';
import { describeFailure, Enricher, type EnrichTarget } from '../../lambdas/adapters/enrich';
import { buildFinding } from '../../lambdas/core/findings/finding';
import { autoScalingGroup } from '../support/aws';

const ec2 = mockClient(EC2Client);
const eks = mockClient(EKSClient);
const autoScaling = mockClient(AutoScalingClient);
const serviceQuotas = mockClient(ServiceQuotasClient);

const region = 'eu-west-1';
const clients = {
  ec2: new EC2Client({ region }),
  eks: new EKSClient({ region }),
  autoScaling: new AutoScalingClient({ region }),
  serviceQuotas: new ServiceQuotasClient({ region }),
};

let now: number;
const settings =
  (overrides: Partial<ClusterSettings> = {}) =>
  (cluster: string) => ({
    discoveryTagKey: 'karpenter.sh/discovery',
    discoveryTagValue: cluster,
    ...overrides,
  });
const enricher = (overrides: Partial<ClusterSettings> = {}) =>
  new Enricher(clients, { clusterSettings: settings(overrides), now: () => now, cacheTtlMs: 60_000 });

const target = (
  rule: EnrichTarget['rule'],
  entities: EnrichTarget['entities'] = {},
  findingId: string = rule,
): EnrichTarget => ({
  findingId,
  rule,
  cluster: 'prod',
  entities,
});

beforeEach(() => {
  for (const mock of [ec2, eks, autoScaling, serviceQuotas]) mock.reset();
  now = Date.parse('2026-11-28T02:00:00Z');
});

describe('Enricher: subnets', () => {
  it('reads the discovered subnets by tag and sums free IPs per zone', async () => {
    ec2.on(DescribeSubnetsCommand).resolves({
      Subnets: [
        {
          SubnetId: 'subnet-1',
          AvailabilityZone: 'eu-west-1a',
          VpcId: 'vpc-1',
          CidrBlock: '10.0.0.0/24',
          AvailableIpAddressCount: 0,
        },
        {
          SubnetId: 'subnet-2',
          AvailabilityZone: 'eu-west-1a',
          VpcId: 'vpc-1',
          CidrBlock: '10.0.1.0/26',
          AvailableIpAddressCount: 7,
        },
      ],
    });
    ec2.on(DescribeVpcsCommand).resolves({
      Vpcs: [
        {
          VpcId: 'vpc-1',
          CidrBlockAssociationSet: [
            { CidrBlock: '10.0.0.0/16', CidrBlockState: { State: 'associated' } },
            { CidrBlock: '100.64.0.0/16', CidrBlockState: { State: 'associated' } },
            { CidrBlock: '198.19.0.0/16', CidrBlockState: { State: 'disassociated' } },
          ],
        },
      ],
    });

    const contexts = await enricher().enrich([target('subnet-ip-exhaustion', { subnets: ['subnet-1'] })], 5_000);

    expect(ec2).toHaveReceivedCommandWith(DescribeSubnetsCommand, {
      Filters: [{ Name: 'tag:karpenter.sh/discovery', Values: ['prod'] }],
    });
    const context = contexts.get('subnet-ip-exhaustion')!;
    expect(context.zones).toEqual([
      { availabilityZone: 'eu-west-1a', subnets: 2, availableIps: 7, totalIps: 251 + 59 },
    ]);
    expect(context.vpcs).toEqual([{ vpcId: 'vpc-1', cidrBlocks: ['10.0.0.0/16', '100.64.0.0/16'], cidrSlotsLeft: 3 }]);
    expect(context.enrichmentErrors).toEqual([]);
  });

  it('looks up by id, in one call, the named subnets that the discovery tag does not cover', async () => {
    ec2
      .on(DescribeSubnetsCommand, { Filters: [{ Name: 'tag:karpenter.sh/discovery', Values: ['prod'] }] })
      .resolves({
        Subnets: [
          {
            SubnetId: 'subnet-1',
            AvailabilityZone: 'eu-west-1a',
            VpcId: 'vpc-1',
            CidrBlock: '10.0.0.0/24',
            AvailableIpAddressCount: 4,
          },
        ],
      })
      .on(DescribeSubnetsCommand, { SubnetIds: ['subnet-8', 'subnet-9'] })
      .resolves({
        Subnets: [
          {
            SubnetId: 'subnet-8',
            AvailabilityZone: 'eu-west-1b',
            VpcId: 'vpc-1',
            CidrBlock: '10.0.8.0/24',
            AvailableIpAddressCount: 0,
          },
          {
            SubnetId: 'subnet-9',
            AvailabilityZone: 'eu-west-1c',
            VpcId: 'vpc-1',
            CidrBlock: '10.0.9.0/24',
            AvailableIpAddressCount: 1,
          },
        ],
      });
    ec2.on(DescribeVpcsCommand).resolves({ Vpcs: [] });

    const contexts = await enricher().enrich(
      [
        target('subnet-ip-exhaustion', { subnets: ['subnet-9', 'subnet-1'] }, 'a'),
        target('prefix-delegation-fragmentation', { subnets: ['subnet-8'] }, 'b'),
      ],
      5_000,
    );

    expect(ec2).toHaveReceivedCommandTimes(DescribeSubnetsCommand, 2);
    expect(contexts.get('a')!.subnets?.map((s) => [s.subnetId, s.discovered])).toEqual([
      ['subnet-1', true],
      ['subnet-9', false],
    ]);
    expect(contexts.get('b')!.subnets?.map((s) => s.subnetId)).toEqual(['subnet-1', 'subnet-8']);
  });

  it("falls back to the EKS cluster's subnets when no subnet carries the discovery tag", async () => {
    ec2
      .on(DescribeSubnetsCommand, { Filters: [{ Name: 'tag:karpenter.sh/discovery', Values: ['prod'] }] })
      .resolves({ Subnets: [] })
      .on(DescribeSubnetsCommand, { SubnetIds: ['subnet-c1', 'subnet-c2'] })
      .resolves({
        Subnets: [
          {
            SubnetId: 'subnet-c1',
            AvailabilityZone: 'eu-west-1a',
            CidrBlock: '10.1.0.0/24',
            AvailableIpAddressCount: 9,
          },
          {
            SubnetId: 'subnet-c2',
            AvailabilityZone: 'eu-west-1b',
            CidrBlock: '10.1.1.0/24',
            AvailableIpAddressCount: 2,
          },
        ],
      });
    eks.on(DescribeClusterCommand).resolves({
      cluster: { name: 'prod', resourcesVpcConfig: { subnetIds: ['subnet-c1', 'subnet-c2'], vpcId: 'vpc-1' } },
    });

    const contexts = await enricher().enrich([target('subnet-ip-headroom-low')], 5_000);

    expect(eks).toHaveReceivedCommandWith(DescribeClusterCommand, { name: 'prod' });
    expect(contexts.get('subnet-ip-headroom-low')!.subnets?.map((s) => s.subnetId)).toEqual(['subnet-c1', 'subnet-c2']);
  });

  it('reuses results across warm invocations within the cache TTL, and calls again after it', async () => {
    ec2.on(DescribeSubnetsCommand).resolves({
      Subnets: [
        {
          SubnetId: 'subnet-1',
          AvailabilityZone: 'eu-west-1a',
          CidrBlock: '10.0.0.0/24',
          AvailableIpAddressCount: 1,
        },
      ],
    });
    const shared = enricher();

    await shared.enrich([target('subnet-ip-exhaustion', { subnets: ['subnet-1'] })], 5_000);
    now += 30_000;
    await shared.enrich([target('subnet-ip-exhaustion', { subnets: ['subnet-1'] })], 5_000);
    expect(ec2).toHaveReceivedCommandTimes(DescribeSubnetsCommand, 1);

    now += 60_000;
    await shared.enrich([target('subnet-ip-exhaustion', { subnets: ['subnet-1'] })], 5_000);
    expect(ec2).toHaveReceivedCommandTimes(DescribeSubnetsCommand, 2);
  });

  it('reports a call that outlives the time budget instead of waiting for it', async () => {
    ec2.on(DescribeSubnetsCommand).callsFake(() => new Promise(() => undefined));

    const contexts = await enricher().enrich([target('subnet-ip-exhaustion', { subnets: ['subnet-1'] })], 50);

    expect(contexts.get('subnet-ip-exhaustion')!.enrichmentErrors).toEqual([
      { source: 'ec2:DescribeSubnets', message: 'the enrichment time budget ran out; not checked' },
    ]);
  });

  it('makes no call for a rule that live facts would not change', async () => {
    const contexts = await enricher().enrich([target('oom-killed')], 5_000);

    expect(ec2.calls()).toHaveLength(0);
    expect(contexts.get('oom-killed')).toEqual({ enrichmentErrors: [] });
  });
});

describe('Enricher: node groups', () => {
  const nodegroup = (name: string, min: number, desired: number, max: number) => ({
    nodegroup: {
      nodegroupName: name,
      nodegroupArn: `arn:aws:eks:eu-west-1:111122223333:nodegroup/prod/${name}/4ec6b3c5-1a2b-3c4d-5e6f-7a8b9c0d1e2f`,
      clusterName: 'prod',
      scalingConfig: { minSize: min, desiredSize: desired, maxSize: max },
      resources: { autoScalingGroups: [{ name: `eks-${name}-4ec6b3c5` }] },
      health: { issues: [{ code: 'AsgInstanceLaunchFailures' as const, message: 'Instance launch failed' }] },
      tags: { 'karpenter-doctor/remediate': 'true' },
    },
  });

  it('lists the managed node groups, reads their scaling config and counts ASG instances', async () => {
    eks.on(ListNodegroupsCommand).resolves({ nodegroups: ['system'] });
    eks.on(DescribeNodegroupCommand).resolves(nodegroup('system', 1, 1, 3));
    autoScaling.on(DescribeAutoScalingGroupsCommand).resolves({
      AutoScalingGroups: [
        autoScalingGroup(
          'eks-system-4ec6b3c5',
          { min: 1, desired: 1, max: 3 },
          {
            Instances: [
              {
                InstanceId: 'i-0123456789abcdef0',
                AvailabilityZone: 'eu-west-1a',
                LifecycleState: 'InService',
                HealthStatus: 'Healthy',
                ProtectedFromScaleIn: false,
              },
            ],
          },
        ),
      ],
    });

    const contexts = await enricher().enrich([target('karpenter-controller-unschedulable')], 5_000);

    const [group] = contexts.get('karpenter-controller-unschedulable')!.nodegroups!;
    expect(group).toEqual({
      name: 'system',
      arn: expect.stringContaining(':nodegroup/prod/system/'),
      kind: 'managed',
      autoScalingGroups: ['eks-system-4ec6b3c5'],
      minSize: 1,
      desiredSize: 1,
      maxSize: 3,
      instances: 1,
      healthIssues: ['AsgInstanceLaunchFailures: Instance launch failed'],
      remediationOptIn: true,
    });
  });

  it('gives the exact update-nodegroup-config command for the real node group', async () => {
    eks.on(ListNodegroupsCommand).resolves({ nodegroups: ['system'] });
    eks.on(DescribeNodegroupCommand).resolves(nodegroup('system', 1, 1, 3));
    autoScaling.on(DescribeAutoScalingGroupsCommand).resolves({ AutoScalingGroups: [] });

    const contexts = await enricher().enrich([target('karpenter-controller-unschedulable')], 5_000);
    const finding = buildFinding(
      {
        findingId: 'x',
        cluster: 'prod',
        rule: 'karpenter-controller-unschedulable',
        occurrences: 1,
        entities: {},
        evidence: [],
      },
      { context: contexts.get('karpenter-controller-unschedulable'), region },
    );

    expect(finding.remediation[0]?.commands).toEqual([
      'aws eks update-nodegroup-config --cluster-name prod --nodegroup-name system --scaling-config minSize=2,maxSize=3,desiredSize=2 --region eu-west-1',
    ]);
  });

  it('describes only the configured self-managed Auto Scaling group', async () => {
    autoScaling.on(DescribeAutoScalingGroupsCommand).resolves({
      AutoScalingGroups: [
        autoScalingGroup(
          'prod-system-asg',
          { min: 1, desired: 1, max: 4 },
          {
            AutoScalingGroupARN:
              'arn:aws:autoscaling:eu-west-1:111122223333:autoScalingGroup:uuid:autoScalingGroupName/prod-system-asg',
            Instances: [],
            Tags: [],
          },
        ),
      ],
    });

    const contexts = await enricher({ systemAutoScalingGroup: 'prod-system-asg' }).enrich(
      [target('karpenter-controller-unschedulable')],
      5_000,
    );

    expect(eks.calls()).toHaveLength(0);
    expect(contexts.get('karpenter-controller-unschedulable')!.nodegroups).toEqual([
      expect.objectContaining({
        name: 'prod-system-asg',
        kind: 'self-managed',
        minSize: 1,
        maxSize: 4,
        remediationOptIn: false,
      }),
    ]);
  });

  it('reports access denied on ListNodegroups as an enrichment error', async () => {
    eks.on(ListNodegroupsCommand).rejects(
      new EKSServiceException({
        name: 'AccessDeniedException',
        $fault: 'client',
        $metadata: {},
        message: 'not authorized',
      }),
    );

    const contexts = await enricher().enrich([target('karpenter-controller-unschedulable')], 5_000);

    expect(contexts.get('karpenter-controller-unschedulable')!.enrichmentErrors).toEqual([
      {
        source: 'eks:ListNodegroups',
        message: 'access denied (AccessDeniedException); the analyzer role may lack this permission',
      },
    ]);
  });
});

describe('Enricher: quotas', () => {
  it('reads the current value of the quota the finding is about', async () => {
    serviceQuotas.on(GetServiceQuotaCommand).resolves({
      Quota: {
        ServiceCode: 'ec2',
        QuotaCode: 'L-DB2E81BA',
        QuotaName: 'Running On-Demand G and VT instances',
        Value: 64,
      },
    });

    const contexts = await enricher().enrich(
      [target('ec2-quota-exceeded', { quotas: ['VcpuLimitExceeded'], instanceTypes: ['g5.xlarge'] })],
      5_000,
    );

    expect(serviceQuotas).toHaveReceivedCommandWith(GetServiceQuotaCommand, {
      ServiceCode: 'ec2',
      QuotaCode: 'L-DB2E81BA',
    });
    expect(contexts.get('ec2-quota-exceeded')!.quotas).toEqual([
      { quotaCode: 'L-DB2E81BA', quotaName: 'Running On-Demand G and VT instances', value: 64 },
    ]);
  });

  it('reads no quota when no instance type names the bucket: the Standard quota is not a default', async () => {
    const contexts = await enricher().enrich(
      [target('ec2-quota-exceeded', { quotas: ['VcpuLimitExceeded'], nodepools: ['gpu'] })],
      5_000,
    );

    expect(serviceQuotas).not.toHaveReceivedCommand(GetServiceQuotaCommand);
    expect(contexts.get('ec2-quota-exceeded')!.quotas).toBeUndefined();
  });
});

describe('describeFailure', () => {
  it.each([
    [
      Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException' }),
      /throttled by AWS \(ThrottlingException\)/,
    ],
    [Object.assign(new Error('x'), { name: 'UnauthorizedOperation' }), /access denied/],
    [new Error('socket hang up'), /^Error: socket hang up$/],
  ])('says why a call failed (%s)', (error, expected) => {
    expect(describeFailure(error)).toMatch(expected);
  });
});
