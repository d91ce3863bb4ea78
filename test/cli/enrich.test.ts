import { AutoScalingClient, DescribeAutoScalingGroupsCommand } from '@aws-sdk/client-auto-scaling';
import { DescribeSubnetsCommand, DescribeVpcsCommand, EC2Client } from '@aws-sdk/client-ec2';
import { DescribeNodegroupCommand, EKSClient, ListNodegroupsCommand } from '@aws-sdk/client-eks';
import { GetServiceQuotaCommand, ServiceQuotasClient } from '@aws-sdk/client-service-quotas';
import { mockClient } from 'aws-sdk-client-mock';
import 'aws-sdk-client-mock-jest';
import { runCli } from '../support/cli';
import type { Finding } from '../../lambdas/core/findings/finding';

const ec2 = mockClient(EC2Client);
const eks = mockClient(EKSClient);
const autoScaling = mockClient(AutoScalingClient);
const serviceQuotas = mockClient(ServiceQuotasClient);

const run = (argv: string[], env: NodeJS.ProcessEnv = {}) => runCli(argv, { env });

beforeEach(() => {
  for (const mock of [ec2, eks, autoScaling, serviceQuotas]) mock.reset();
  ec2.on(DescribeSubnetsCommand).resolves({
    Subnets: [
      {
        SubnetId: 'subnet-0a1b2c3d4e5f60718',
        AvailabilityZone: 'eu-west-1a',
        VpcId: 'vpc-1',
        CidrBlock: '10.0.32.0/24',
        AvailableIpAddressCount: 0,
      },
    ],
  });
  ec2.on(DescribeVpcsCommand).resolves({ Vpcs: [{ VpcId: 'vpc-1', CidrBlock: '10.0.0.0/16' }] });
  eks.on(ListNodegroupsCommand).resolves({ nodegroups: [] });
  autoScaling.on(DescribeAutoScalingGroupsCommand).resolves({ AutoScalingGroups: [] });
  serviceQuotas.on(GetServiceQuotaCommand).resolves({ Quota: { QuotaCode: 'L-1216C47A', Value: 256 } });
});

describe('karpenter-doctor analyze --enrich', () => {
  it('adds the live subnet facts to the findings with the given region', async () => {
    const { code, stdout } = await run([
      'analyze',
      '--enrich',
      '--region',
      'eu-west-1',
      '--cluster',
      'demo',
      '--format',
      'json',
      'examples/karpenter-controller.log',
      'examples/kubernetes-events.jsonl',
    ]);

    expect(code).toBe(0);
    const finding = (JSON.parse(stdout).findings as Finding[]).find((f) => f.rule === 'subnet-ip-exhaustion');
    expect(finding?.context.subnets).toContainEqual(
      expect.objectContaining({ subnetId: 'subnet-0a1b2c3d4e5f60718', availableIps: 0, totalIps: 251 }),
    );
    expect(finding?.region).toBe('eu-west-1');
    expect(ec2).toHaveReceivedCommandWith(DescribeSubnetsCommand, {
      Filters: [{ Name: 'tag:karpenter.sh/discovery', Values: ['demo'] }],
    });
    expect(eks).toHaveReceivedCommandWith(ListNodegroupsCommand, { clusterName: 'demo' });
  });

  it('shows the live facts and what could not be checked in the text report', async () => {
    ec2.on(DescribeVpcsCommand).rejects(Object.assign(new Error('denied'), { name: 'UnauthorizedOperation' }));

    const { stdout } = await run(['analyze', '--enrich', '--cluster', 'demo', 'examples/karpenter-controller.log'], {
      AWS_REGION: 'eu-west-1',
    });

    expect(stdout).toContain('subnet-0a1b2c3d4e5f60718 (eu-west-1a): 0 of 251 IPs free');
    expect(stdout).toContain('ec2:DescribeVpcs: access denied (UnauthorizedOperation)');
  });

  it('uses the given discovery tag and system node group', async () => {
    await run([
      'analyze',
      '--enrich',
      '--region',
      'eu-west-1',
      '--cluster',
      'demo',
      '--discovery-tag',
      'example.com/karpenter-subnets',
      '--system-nodegroup',
      'system',
      'examples/karpenter-controller.log',
      'examples/kubernetes-events.jsonl',
    ]);

    expect(ec2).toHaveReceivedCommandWith(DescribeSubnetsCommand, {
      Filters: [{ Name: 'tag:example.com/karpenter-subnets', Values: ['demo'] }],
    });
    expect(eks).toHaveReceivedCommandWith(DescribeNodegroupCommand, { clusterName: 'demo', nodegroupName: 'system' });
    expect(eks).not.toHaveReceivedCommand(ListNodegroupsCommand);
  });

  it('asks for a region instead of guessing one', async () => {
    const { code, stderr } = await run(['analyze', '--enrich', 'examples/karpenter-controller.log']);

    expect(code).toBe(2);
    expect(stderr).toContain('--enrich needs a region');
  });
});
