import {
  AutoScalingClient,
  DescribeAutoScalingGroupsCommand,
  UpdateAutoScalingGroupCommand,
} from '@aws-sdk/client-auto-scaling';
import { DescribeSubnetsCommand, DescribeVpcsCommand, EC2Client } from '@aws-sdk/client-ec2';
import {
  DescribeClusterCommand,
  DescribeNodegroupCommand,
  EKSClient,
  UpdateNodegroupConfigCommand,
} from '@aws-sdk/client-eks';
import { EventBridgeClient, PutEventsCommand, type PutEventsRequestEntry } from '@aws-sdk/client-eventbridge';
import {
  GetServiceQuotaCommand,
  ListRequestedServiceQuotaChangeHistoryByQuotaCommand,
  RequestServiceQuotaIncreaseCommand,
  ServiceQuotasClient,
} from '@aws-sdk/client-service-quotas';
import { PublishCommand, SNSClient } from '@aws-sdk/client-sns';
import { mockClient } from 'aws-sdk-client-mock';
import 'aws-sdk-client-mock-jest';
import type { RemediationSettings } from '../../lambdas/adapters/remediator';
import type { FindingContext } from '../../lambdas/core/context';
import { buildFinding } from '../../lambdas/core/finding';
import type { RemediationReport } from '../../lambdas/core/remediation';
import type { RuleId } from '../../lambdas/core/rules';
import type { Entities } from '../../lambdas/core/model';
import { remediate, type RemediatorDeps } from '../../lambdas/handlers/remediator';
import { testClients, testObservability, testSettings } from '../support/aws';
import { startDynalite, type LocalDynamo } from '../support/dynalite';

const ec2 = mockClient(EC2Client);
const eks = mockClient(EKSClient);
const autoScaling = mockClient(AutoScalingClient);
const serviceQuotas = mockClient(ServiceQuotasClient);
const sns = mockClient(SNSClient);
const events = mockClient(EventBridgeClient);

let dynamo: LocalDynamo;
let tableName: string;
let clock: number;

beforeAll(async () => {
  dynamo = await startDynalite();
});
afterAll(async () => {
  await dynamo.stop();
});
beforeEach(async () => {
  for (const mock of [ec2, eks, autoScaling, serviceQuotas, sns, events]) mock.reset();
  tableName = await dynamo.createTable();
  clock = Date.parse('2026-11-28T03:00:00Z');
  sns.on(PublishCommand).resolves({ MessageId: 'm-1' });
  events.on(PutEventsCommand).callsFake((input: { Entries: PutEventsRequestEntry[] }) => ({
    FailedEntryCount: 0,
    Entries: input.Entries.map((_, i) => ({ EventId: `e${i}` })),
  }));
  autoScaling.on(DescribeAutoScalingGroupsCommand).resolves({ AutoScalingGroups: [] });
  eks
    .on(DescribeClusterCommand)
    .resolves({ cluster: { name: 'prod', resourcesVpcConfig: { clusterSecurityGroupId: 'sg-0cluster' } } });
});

const OFF: RemediationSettings = {
  raiseSystemNodegroup: { mode: 'off', maxMinSize: 3 },
  requestQuotaIncrease: { mode: 'off', maxValue: 512, windowHours: 24 },
  planSubnetCapacity: { mode: 'off' },
};

function deps(remediation: Partial<RemediationSettings>): RemediatorDeps {
  return {
    settings: { ...testSettings(tableName), remediation: { ...OFF, ...remediation } },
    clients: testClients(dynamo.doc),
    ...testObservability(),
    now: () => clock,
    sleep: async () => undefined,
  };
}

/** The EventBridge event the analyzer puts for a finding (the rule's target input). */
function findingEvent(rule: RuleId, entities: Entities, context: Partial<FindingContext>, findingId = `f-${rule}`) {
  const finding = buildFinding(
    { findingId, cluster: 'prod', rule, occurrences: 3, entities, evidence: [] },
    { region: 'eu-west-1', account: '111122223333', context: { enrichmentErrors: [], ...context } },
  );
  return {
    version: '0',
    id: 'e1d1b5c2-0000-4000-8000-000000000000',
    'detail-type': 'Karpenter Finding',
    source: 'io.karpenter-doctor',
    account: '111122223333',
    time: '2026-11-28T03:00:00Z',
    region: 'eu-west-1',
    resources: ['arn:aws:eks:eu-west-1:111122223333:cluster/prod'],
    detail: finding,
  };
}

const unschedulable = (kind: 'managed' | 'self-managed' = 'managed') =>
  findingEvent(
    'karpenter-controller-unschedulable',
    { pods: ['karpenter/karpenter-5d7b9c8f4-x2x9k'] },
    {
      nodegroups: [
        { name: kind === 'managed' ? 'system' : 'prod-system-asg', kind, autoScalingGroups: ['eks-system-1'] },
      ],
    },
  );

/** DescribeNodegroup response shape (EKS API reference, Nodegroup). */
function nodegroup(min: number, desired: number, max: number, tags: Record<string, string> = {}) {
  eks.on(DescribeNodegroupCommand).resolves({
    nodegroup: {
      nodegroupName: 'system',
      clusterName: 'prod',
      scalingConfig: { minSize: min, desiredSize: desired, maxSize: max },
      resources: { autoScalingGroups: [{ name: 'eks-system-1' }] },
      tags,
    },
  });
}

const reportsPublished = (): RemediationReport[] =>
  sns.commandCalls(PublishCommand).map((c) => JSON.parse(JSON.parse(c.args[0].input.Message!).default));

describe('remediator: raise-system-nodegroup', () => {
  it('does nothing while the action is off', async () => {
    nodegroup(1, 1, 3, { 'karpenter-doctor/remediate': 'true' });

    const result = await remediate(unschedulable(), {}, deps({}));

    expect(result.reports).toEqual([]);
    expect(eks).not.toHaveReceivedCommand(DescribeNodegroupCommand);
    expect(sns).not.toHaveReceivedCommand(PublishCommand);
  });

  it('publishes the exact plan in dry-run and changes nothing', async () => {
    nodegroup(1, 1, 3);

    await remediate(unschedulable(), {}, deps({ raiseSystemNodegroup: { mode: 'dry-run', maxMinSize: 3 } }));

    expect(eks).not.toHaveReceivedCommand(UpdateNodegroupConfigCommand);
    const [report] = reportsPublished();
    expect(report).toMatchObject({
      action: 'raise-system-nodegroup',
      mode: 'dry-run',
      outcome: 'planned',
      before: { minSize: 1 },
      after: { minSize: 2, desiredSize: 2 },
    });
    expect(report?.commands).toEqual([
      'aws eks update-nodegroup-config --cluster-name prod --nodegroup-name system --scaling-config minSize=2,maxSize=3,desiredSize=2 --region eu-west-1',
    ]);
    const entry = events.commandCalls(PutEventsCommand)[0]!.args[0].input.Entries![0]!;
    expect(entry.DetailType).toBe('Karpenter Remediation');
  });

  it('raises a managed node group through EKS, with a client request token, when it opted in', async () => {
    nodegroup(1, 1, 3, { 'karpenter-doctor/remediate': 'true' });
    eks
      .on(UpdateNodegroupConfigCommand)
      .resolves({ update: { id: 'upd-1', status: 'InProgress', type: 'ConfigUpdate' } });

    await remediate(unschedulable(), {}, deps({ raiseSystemNodegroup: { mode: 'apply', maxMinSize: 3 } }));

    expect(eks).toHaveReceivedCommandWith(UpdateNodegroupConfigCommand, {
      clusterName: 'prod',
      nodegroupName: 'system',
      scalingConfig: { minSize: 2, maxSize: 3, desiredSize: 2 },
      clientRequestToken: 'f-karpenter-controller-unschedulable-min2',
    });
    expect(autoScaling).not.toHaveReceivedCommand(UpdateAutoScalingGroupCommand);
    expect(reportsPublished()[0]).toMatchObject({ outcome: 'applied' });
  });

  it('never changes a group without the opt-in tag', async () => {
    nodegroup(1, 1, 3);

    await remediate(unschedulable(), {}, deps({ raiseSystemNodegroup: { mode: 'apply', maxMinSize: 3 } }));

    expect(eks).not.toHaveReceivedCommand(UpdateNodegroupConfigCommand);
    expect(reportsPublished()[0]).toMatchObject({
      outcome: 'skipped',
      summary: expect.stringContaining('karpenter-doctor/remediate=true'),
    });
  });

  it.each([
    ['the configured cap', 2, 2, 10, 2, /already at the configured cap \(2\)/],
    ["the group's maximum", 2, 2, 2, 5, /already its maximum \(2\)/],
  ])('stops at %s', async (_name, min, desired, max, cap, reason) => {
    nodegroup(min, desired, max, { 'karpenter-doctor/remediate': 'true' });

    await remediate(unschedulable(), {}, deps({ raiseSystemNodegroup: { mode: 'apply', maxMinSize: cap } }));

    expect(eks).not.toHaveReceivedCommand(UpdateNodegroupConfigCommand);
    expect(reportsPublished()[0]?.summary).toMatch(reason);
  });

  it('raises up to the cap, never past it', async () => {
    nodegroup(2, 4, 10, { 'karpenter-doctor/remediate': 'true' });
    eks.on(UpdateNodegroupConfigCommand).resolves({ update: { id: 'upd-2' } });

    await remediate(unschedulable(), {}, deps({ raiseSystemNodegroup: { mode: 'apply', maxMinSize: 3 } }));

    expect(eks).toHaveReceivedCommandWith(UpdateNodegroupConfigCommand, { scalingConfig: { minSize: 3, maxSize: 10 } });
  });

  it('leaves desiredSize to the Cluster Autoscaler when it manages the group', async () => {
    nodegroup(1, 1, 3, { 'karpenter-doctor/remediate': 'true' });
    autoScaling.on(DescribeAutoScalingGroupsCommand).resolves({
      AutoScalingGroups: [
        {
          AutoScalingGroupName: 'eks-system-1',
          MinSize: 1,
          MaxSize: 3,
          DesiredCapacity: 1,
          DefaultCooldown: 300,
          AvailabilityZones: ['eu-west-1a'],
          HealthCheckType: 'EC2',
          CreatedTime: new Date('2026-01-01T00:00:00Z'),
          Tags: [{ Key: 'k8s.io/cluster-autoscaler/enabled', Value: 'true' }],
        },
      ],
    });
    eks.on(UpdateNodegroupConfigCommand).resolves({ update: { id: 'upd-3' } });

    await remediate(unschedulable(), {}, deps({ raiseSystemNodegroup: { mode: 'apply', maxMinSize: 3 } }));

    const call = eks.commandCalls(UpdateNodegroupConfigCommand)[0]!.args[0].input;
    expect(call.scalingConfig).toEqual({ minSize: 2, maxSize: 3, desiredSize: undefined });
    expect(reportsPublished()[0]?.summary).toContain('left to the Cluster Autoscaler');
  });

  it('raises a self-managed group with UpdateAutoScalingGroup only', async () => {
    autoScaling.on(DescribeAutoScalingGroupsCommand).resolves({
      AutoScalingGroups: [
        {
          AutoScalingGroupName: 'prod-system-asg',
          MinSize: 1,
          MaxSize: 4,
          DesiredCapacity: 1,
          DefaultCooldown: 300,
          AvailabilityZones: ['eu-west-1a'],
          HealthCheckType: 'EC2',
          CreatedTime: new Date('2026-01-01T00:00:00Z'),
          Tags: [{ Key: 'karpenter-doctor/remediate', Value: 'true' }],
        },
      ],
    });
    autoScaling.on(UpdateAutoScalingGroupCommand).resolves({});

    await remediate(
      unschedulable('self-managed'),
      {},
      deps({ raiseSystemNodegroup: { mode: 'apply', maxMinSize: 3 } }),
    );

    expect(autoScaling).toHaveReceivedCommandWith(UpdateAutoScalingGroupCommand, {
      AutoScalingGroupName: 'prod-system-asg',
      MinSize: 2,
      DesiredCapacity: 2,
    });
    expect(eks).not.toHaveReceivedCommand(UpdateNodegroupConfigCommand);
  });

  it('acts once on a repeated event', async () => {
    nodegroup(1, 1, 3, { 'karpenter-doctor/remediate': 'true' });
    eks.on(UpdateNodegroupConfigCommand).resolves({ update: { id: 'upd-4' } });
    const shared = deps({ raiseSystemNodegroup: { mode: 'apply', maxMinSize: 3 } });

    await remediate(unschedulable(), {}, shared);
    clock += 60_000;
    await remediate(unschedulable(), {}, shared);

    expect(eks).toHaveReceivedCommandTimes(UpdateNodegroupConfigCommand, 1);
    expect(sns).toHaveReceivedCommandTimes(PublishCommand, 1);
  });

  it('publishes the kept report on the retry of a failed publish, without acting again', async () => {
    nodegroup(1, 1, 3, { 'karpenter-doctor/remediate': 'true' });
    eks.on(UpdateNodegroupConfigCommand).resolves({ update: { id: 'upd-5' } });
    sns.on(PublishCommand).rejectsOnce(new Error('throttled')).resolves({ MessageId: 'm-2' });
    const shared = deps({ raiseSystemNodegroup: { mode: 'apply', maxMinSize: 3 } });

    await expect(remediate(unschedulable(), {}, shared)).rejects.toThrow('could not publish 1 remediation report');
    await remediate(unschedulable(), {}, shared);
    await remediate(unschedulable(), {}, shared);

    expect(eks).toHaveReceivedCommandTimes(UpdateNodegroupConfigCommand, 1);
    expect(sns).toHaveReceivedCommandTimes(PublishCommand, 2);
    // The failed attempt and its retry carry the same report.
    expect(reportsPublished().map((r) => r.outcome)).toEqual(['applied', 'applied']);
  });

  it.each([
    ['its own remediation events', { 'detail-type': 'Karpenter Remediation' }],
    ['another source', { source: 'com.example.other' }],
    ['a resolved finding', { detail: { ...unschedulable().detail, status: 'resolved' } }],
    ['a detail that is not a finding', { detail: { findingId: 42 } }],
  ])('ignores %s', async (_name, override) => {
    nodegroup(1, 1, 3, { 'karpenter-doctor/remediate': 'true' });

    const result = await remediate(
      { ...unschedulable(), ...override },
      {},
      deps({ raiseSystemNodegroup: { mode: 'apply', maxMinSize: 3 } }),
    );

    expect(result.outcome).toBe('ignored');
    expect(eks.calls()).toHaveLength(0);
    expect(sns).not.toHaveReceivedCommand(PublishCommand);
  });
});

describe('remediator: request-quota-increase', () => {
  const quotaEvent = (findingId: string) =>
    findingEvent('ec2-quota-exceeded', { quotas: ['VcpuLimitExceeded'], instanceTypes: ['g5.xlarge'] }, {}, findingId);

  beforeEach(() => {
    serviceQuotas.on(GetServiceQuotaCommand).resolves({
      Quota: {
        ServiceCode: 'ec2',
        QuotaCode: 'L-DB2E81BA',
        QuotaName: 'Running On-Demand G and VT instances',
        Value: 64,
      },
    });
    serviceQuotas.on(ListRequestedServiceQuotaChangeHistoryByQuotaCommand).resolves({ RequestedQuotas: [] });
    serviceQuotas
      .on(RequestServiceQuotaIncreaseCommand)
      .resolves({ RequestedQuota: { Id: 'req-1', Status: 'PENDING' } });
  });

  it('plans the request in dry-run', async () => {
    await remediate(
      quotaEvent('f1'),
      {},
      deps({ requestQuotaIncrease: { mode: 'dry-run', maxValue: 512, windowHours: 24 } }),
    );

    expect(serviceQuotas).not.toHaveReceivedCommand(RequestServiceQuotaIncreaseCommand);
    expect(reportsPublished()[0]?.commands).toEqual([
      'aws service-quotas request-service-quota-increase --service-code ec2 --quota-code L-DB2E81BA --desired-value 128 --region eu-west-1',
    ]);
  });

  it('asks for at most the cap, once per quota per window', async () => {
    const shared = deps({ requestQuotaIncrease: { mode: 'apply', maxValue: 100, windowHours: 24 } });

    await remediate(quotaEvent('f1'), {}, shared);
    await remediate(quotaEvent('f2'), {}, shared);

    expect(serviceQuotas).toHaveReceivedCommandTimes(RequestServiceQuotaIncreaseCommand, 1);
    expect(serviceQuotas).toHaveReceivedCommandWith(RequestServiceQuotaIncreaseCommand, {
      ServiceCode: 'ec2',
      QuotaCode: 'L-DB2E81BA',
      DesiredValue: 100,
    });
  });

  it('does not ask again while a request is open', async () => {
    serviceQuotas
      .on(ListRequestedServiceQuotaChangeHistoryByQuotaCommand)
      .resolves({ RequestedQuotas: [{ Id: 'req-0', Status: 'CASE_OPENED', DesiredValue: 96 }] });

    await remediate(
      quotaEvent('f1'),
      {},
      deps({ requestQuotaIncrease: { mode: 'apply', maxValue: 512, windowHours: 24 } }),
    );

    expect(serviceQuotas).not.toHaveReceivedCommand(RequestServiceQuotaIncreaseCommand);
    expect(reportsPublished()[0]?.summary).toContain('already CASE_OPENED');
  });
});

describe('remediator: plan-subnet-capacity', () => {
  it('plans non-overlapping secondary CIDRs, one subnet per zone, and the commands, and never applies them', async () => {
    ec2.on(DescribeSubnetsCommand).resolves({
      Subnets: [
        { SubnetId: 'subnet-a', AvailabilityZone: 'eu-west-1a', VpcId: 'vpc-1', CidrBlock: '10.0.32.0/24' },
        { SubnetId: 'subnet-b', AvailabilityZone: 'eu-west-1b', VpcId: 'vpc-1', CidrBlock: '10.0.33.0/24' },
      ],
    });
    ec2.on(DescribeVpcsCommand).resolves({
      Vpcs: [
        {
          VpcId: 'vpc-1',
          CidrBlock: '10.0.0.0/16',
          CidrBlockAssociationSet: [
            { CidrBlock: '10.0.0.0/16', CidrBlockState: { State: 'associated' } },
            { CidrBlock: '100.64.0.0/16', CidrBlockState: { State: 'associated' } },
          ],
        },
      ],
    });

    await remediate(
      findingEvent('subnet-ip-exhaustion', { subnets: ['subnet-a'] }, {}),
      {},
      deps({ planSubnetCapacity: { mode: 'dry-run' } }),
    );

    const [report] = reportsPublished();
    expect(report).toMatchObject({ action: 'plan-subnet-capacity', outcome: 'planned', mode: 'dry-run' });
    expect(report?.plan?.candidates[0]).toBe('100.65.0.0/16');
    expect(report?.plan?.subnets.map((s) => [s.availabilityZone, s.cidr])).toEqual([
      ['eu-west-1a', '100.65.0.0/17'],
      ['eu-west-1b', '100.65.128.0/17'],
    ]);
    expect(report?.commands[0]).toBe(
      'aws ec2 associate-vpc-cidr-block --vpc-id vpc-1 --cidr-block 100.65.0.0/16 --region eu-west-1',
    );
    expect(report?.plan?.eniConfigs).toContain('name: eu-west-1a');
    expect(report?.plan?.eniConfigs).toContain('- sg-0cluster');
    const email = JSON.parse(sns.commandCalls(PublishCommand)[0]!.args[0].input.Message!).email as string;
    expect(email).toContain('kind: ENIConfig');
  });
});
