import { DescribeAutoScalingGroupsCommand, UpdateAutoScalingGroupCommand } from '@aws-sdk/client-auto-scaling';
import { DescribeSubnetsCommand, DescribeVpcsCommand } from '@aws-sdk/client-ec2';
import { DescribeNodegroupCommand, UpdateNodegroupConfigCommand } from '@aws-sdk/client-eks';
import {
  GetServiceQuotaCommand,
  ListRequestedServiceQuotaChangeHistoryByQuotaCommand,
  RequestServiceQuotaIncreaseCommand,
} from '@aws-sdk/client-service-quotas';
import { PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { PublishCommand } from '@aws-sdk/client-sns';
import 'aws-sdk-client-mock-jest';
import { createHash } from 'node:crypto';
import { IncidentStore } from '../../lambdas/adapters/incident-store';
import type { RemediationSettings } from '../../lambdas/adapters/remediator';
import type { FindingContext } from '../../lambdas/core/findings/context';
import { buildFinding } from '../../lambdas/core/findings/finding';
import { DEFAULT_POLICY } from '../../lambdas/core/incidents/lifecycle';
import type { RemediationReport } from '../../lambdas/core/plans/remediation-plan';
import type { RuleId } from '../../lambdas/core/recognise/rules';
import type { Entities } from '../../lambdas/core/model';
import { remediate, type RemediatorDeps } from '../../lambdas/handlers/remediator';
import type { ClusterEntry } from '../../lambdas/shared/settings';
import { ACCOUNT, autoScalingGroup, REGION, testSettings } from '../support/aws';
import { useHandlerHarness } from '../support/handler-harness';
import { findingDelivery, REMEDIATOR_CONTEXT as CONTEXT, useRemediationMocks } from '../support/remediation';

const aws = useHandlerHarness();
const { ec2, sns, events } = aws;
const { eks, autoScaling, serviceQuotas } = useRemediationMocks();

let clock: number;

beforeEach(() => {
  // EC2 answers only what a test asks of it here.
  ec2.reset();
  clock = Date.parse('2026-11-28T03:00:00Z');
});

const OFF: RemediationSettings = {
  raiseSystemNodegroup: { mode: 'off', maxMinSize: 3 },
  requestQuotaIncrease: { mode: 'off', maxValue: 512, windowHours: 24 },
  planSubnetCapacity: { mode: 'off' },
};

const PROD: ClusterEntry = { name: 'prod', systemNodegroup: 'system' };

function deps(remediation: Partial<RemediationSettings>, clusters: ClusterEntry[] = [PROD]): RemediatorDeps {
  const settings = { ...testSettings(aws.tableName), clusters, remediation: { ...OFF, ...remediation } };
  return aws.deps(settings, () => clock);
}

/** A finding id as the analyzer makes them (24 hex characters), from a label. */
const idOf = (label: string): string => createHash('sha256').update(label).digest('hex').slice(0, 24);

/**
 * The EventBridge event the analyzer puts for a finding (the rule's target input), after recording
 * its incident in the table as the analyzer would. `stored: false` leaves the table alone (a forgery).
 */
async function findingEvent(
  rule: RuleId,
  entities: Entities,
  context: Partial<FindingContext> = {},
  label: string = rule,
  { stored = true, cluster = 'prod' } = {},
) {
  const findingId = idOf(label);
  const incident = { findingId, cluster, rule, occurrences: 3, entities, evidence: [] };
  if (stored) {
    await new IncidentStore(aws.dynamo.doc, aws.tableName).record(
      [{ incident, severity: 'high' }],
      'b1',
      clock,
      DEFAULT_POLICY,
    );
  }
  const finding = buildFinding(incident, {
    region: REGION,
    account: ACCOUNT,
    context: { enrichmentErrors: [], ...context },
  });
  return findingDelivery(finding, {
    time: '2026-11-28T03:00:00Z',
    resources: [`arn:aws:eks:${REGION}:${ACCOUNT}:cluster/${cluster}`],
  });
}

const unschedulable = (context: Partial<FindingContext> = {}, options: { stored?: boolean } = {}) =>
  findingEvent(
    'karpenter-controller-unschedulable',
    { pods: ['karpenter/karpenter-5d7b9c8f4-x2x9k'] },
    context,
    'karpenter-controller-unschedulable',
    options,
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

    const result = await remediate(await unschedulable(), CONTEXT, deps({}));

    expect(result.reports).toEqual([]);
    expect(eks).not.toHaveReceivedCommand(DescribeNodegroupCommand);
    expect(sns).not.toHaveReceivedCommand(PublishCommand);
  });

  it('publishes the exact plan in dry-run and changes nothing', async () => {
    nodegroup(1, 1, 3);

    await remediate(await unschedulable(), CONTEXT, deps({ raiseSystemNodegroup: { mode: 'dry-run', maxMinSize: 3 } }));

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

    await remediate(await unschedulable(), CONTEXT, deps({ raiseSystemNodegroup: { mode: 'apply', maxMinSize: 3 } }));

    expect(eks).toHaveReceivedCommandWith(UpdateNodegroupConfigCommand, {
      clusterName: 'prod',
      nodegroupName: 'system',
      scalingConfig: { minSize: 2, maxSize: 3, desiredSize: 2 },
      clientRequestToken: `${idOf('karpenter-controller-unschedulable')}-raise`,
    });
    expect(autoScaling).not.toHaveReceivedCommand(UpdateAutoScalingGroupCommand);
    expect(reportsPublished()[0]).toMatchObject({
      outcome: 'applied',
      verify: [
        'aws eks describe-update --name prod --nodegroup-name system --update-id upd-1 --region eu-west-1',
        'aws eks describe-nodegroup --cluster-name prod --nodegroup-name system --query nodegroup.scalingConfig --region eu-west-1',
      ],
      undo: [
        'aws eks update-nodegroup-config --cluster-name prod --nodegroup-name system --scaling-config minSize=1,maxSize=3 --region eu-west-1',
      ],
    });
    // The applied command is told as done, never offered to run again.
    const email = JSON.parse(sns.commandCalls(PublishCommand)[0]!.args[0].input.Message!).email as string;
    expect(email).not.toContain(
      '$ aws eks update-nodegroup-config --cluster-name prod --nodegroup-name system --scaling-config minSize=2',
    );
    expect(email).toContain(
      '$ aws eks update-nodegroup-config --cluster-name prod --nodegroup-name system --scaling-config minSize=1,maxSize=3',
    );
    expect(email).toMatch(/verify +\$ aws eks describe-update/);
  });

  it('completes, never repeats, a raise whose update applied but timed out (the EventBridge retry)', async () => {
    const shared = deps({ raiseSystemNodegroup: { mode: 'apply', maxMinSize: 3 } });
    nodegroup(1, 1, 3, { 'karpenter-doctor/remediate': 'true' });
    // The update is applied, then its response is lost.
    eks.on(UpdateNodegroupConfigCommand).callsFake(() => {
      nodegroup(2, 2, 3, { 'karpenter-doctor/remediate': 'true' });
      throw Object.assign(new Error('socket hang up'), { name: 'TimeoutError' });
    });
    const event = await unschedulable();

    await expect(remediate(event, CONTEXT, shared)).rejects.toThrow(/socket hang up/);
    const retry = await remediate(event, CONTEXT, shared);

    expect(eks).toHaveReceivedCommandTimes(UpdateNodegroupConfigCommand, 1);
    expect(eks).toHaveReceivedCommandWith(UpdateNodegroupConfigCommand, {
      scalingConfig: { minSize: 2, maxSize: 3, desiredSize: 2 },
      clientRequestToken: `${idOf('karpenter-controller-unschedulable')}-raise`,
    });
    expect(retry.reports).toEqual([expect.objectContaining({ outcome: 'applied' })]);
    expect(reportsPublished()).toHaveLength(1);
  });

  it('re-sends the recorded target, not a new one, when the failed update did not apply', async () => {
    const shared = deps({ raiseSystemNodegroup: { mode: 'apply', maxMinSize: 3 } });
    nodegroup(1, 1, 3, { 'karpenter-doctor/remediate': 'true' });
    eks
      .on(UpdateNodegroupConfigCommand)
      .rejectsOnce(Object.assign(new Error('timeout'), { name: 'TimeoutError' }))
      .resolves({ update: { id: 'upd-2', status: 'InProgress' } });
    const event = await unschedulable();

    await expect(remediate(event, CONTEXT, shared)).rejects.toThrow(/timeout/);
    await remediate(event, CONTEXT, shared);

    const calls = eks.commandCalls(UpdateNodegroupConfigCommand).map((c) => c.args[0].input);
    expect(calls).toHaveLength(2);
    expect(calls[1]).toEqual(calls[0]);
  });

  it('raises a self-managed group past a lost response only once', async () => {
    const shared = deps({ raiseSystemNodegroup: { mode: 'apply', maxMinSize: 3 } }, [
      { name: 'prod', systemAutoScalingGroup: 'prod-system-asg' },
    ]);
    let minSize = 1;
    autoScaling.on(DescribeAutoScalingGroupsCommand).callsFake(() => ({
      AutoScalingGroups: [
        {
          AutoScalingGroupName: 'prod-system-asg',
          MinSize: minSize,
          DesiredCapacity: minSize,
          MaxSize: 3,
          Tags: [{ Key: 'karpenter-doctor/remediate', Value: 'true' }],
        },
      ],
    }));
    autoScaling.on(UpdateAutoScalingGroupCommand).callsFake((input: { MinSize: number }) => {
      minSize = input.MinSize;
      throw Object.assign(new Error('timeout'), { name: 'TimeoutError' });
    });
    const event = await unschedulable();

    await expect(remediate(event, CONTEXT, shared)).rejects.toThrow(/timeout/);
    await remediate(event, CONTEXT, shared);

    expect(autoScaling).toHaveReceivedCommandTimes(UpdateAutoScalingGroupCommand, 1);
    expect(minSize).toBe(2);
  });

  it('reports once when the same event is delivered twice at the same time', async () => {
    const shared = deps({ raiseSystemNodegroup: { mode: 'apply', maxMinSize: 3 } });
    nodegroup(1, 1, 3, { 'karpenter-doctor/remediate': 'true' });
    eks.on(UpdateNodegroupConfigCommand).resolves({ update: { id: 'upd-1', status: 'InProgress' } });
    const event = await unschedulable();
    // The duplicate arrives after the first kept its report and while it publishes.
    let duplicate: Promise<unknown> | undefined;
    sns.on(PublishCommand).callsFake(async () => {
      if (duplicate === undefined) {
        duplicate = remediate(event, CONTEXT, shared);
        await duplicate;
      }
      return { MessageId: 'm-1' };
    });

    await remediate(event, CONTEXT, shared);

    expect(eks).toHaveReceivedCommandTimes(UpdateNodegroupConfigCommand, 1);
    expect(reportsPublished()).toHaveLength(1);
    expect(events.commandCalls(PutEventsCommand)).toHaveLength(1);
  });

  it('never changes a group without the opt-in tag', async () => {
    nodegroup(1, 1, 3);

    await remediate(await unschedulable(), CONTEXT, deps({ raiseSystemNodegroup: { mode: 'apply', maxMinSize: 3 } }));

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

    await remediate(await unschedulable(), CONTEXT, deps({ raiseSystemNodegroup: { mode: 'apply', maxMinSize: cap } }));

    expect(eks).not.toHaveReceivedCommand(UpdateNodegroupConfigCommand);
    expect(reportsPublished()[0]?.summary).toMatch(reason);
  });

  it('raises up to the cap, never past it', async () => {
    nodegroup(2, 4, 10, { 'karpenter-doctor/remediate': 'true' });
    eks.on(UpdateNodegroupConfigCommand).resolves({ update: { id: 'upd-2' } });

    await remediate(await unschedulable(), CONTEXT, deps({ raiseSystemNodegroup: { mode: 'apply', maxMinSize: 3 } }));

    expect(eks).toHaveReceivedCommandWith(UpdateNodegroupConfigCommand, { scalingConfig: { minSize: 3, maxSize: 10 } });
  });

  it('leaves desiredSize to the Cluster Autoscaler when it manages the group', async () => {
    nodegroup(1, 1, 3, { 'karpenter-doctor/remediate': 'true' });
    autoScaling.on(DescribeAutoScalingGroupsCommand).resolves({
      AutoScalingGroups: [
        autoScalingGroup(
          'eks-system-1',
          { min: 1, desired: 1, max: 3 },
          { Tags: [{ Key: 'k8s.io/cluster-autoscaler/enabled', Value: 'true' }] },
        ),
      ],
    });
    eks.on(UpdateNodegroupConfigCommand).resolves({ update: { id: 'upd-3' } });

    await remediate(await unschedulable(), CONTEXT, deps({ raiseSystemNodegroup: { mode: 'apply', maxMinSize: 3 } }));

    const call = eks.commandCalls(UpdateNodegroupConfigCommand)[0]!.args[0].input;
    expect(call.scalingConfig).toEqual({ minSize: 2, maxSize: 3, desiredSize: undefined });
    expect(reportsPublished()[0]?.summary).toContain('left to the Cluster Autoscaler');
  });

  it('raises a self-managed group with UpdateAutoScalingGroup only', async () => {
    autoScaling.on(DescribeAutoScalingGroupsCommand).resolves({
      AutoScalingGroups: [
        autoScalingGroup(
          'prod-system-asg',
          { min: 1, desired: 1, max: 4 },
          { Tags: [{ Key: 'karpenter-doctor/remediate', Value: 'true' }] },
        ),
      ],
    });
    autoScaling.on(UpdateAutoScalingGroupCommand).resolves({});

    await remediate(
      await unschedulable(),
      CONTEXT,
      deps({ raiseSystemNodegroup: { mode: 'apply', maxMinSize: 3 } }, [
        { name: 'prod', systemAutoScalingGroup: 'prod-system-asg' },
      ]),
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

    await remediate(await unschedulable(), CONTEXT, shared);
    clock += 60_000;
    await remediate(await unschedulable(), CONTEXT, shared);

    expect(eks).toHaveReceivedCommandTimes(UpdateNodegroupConfigCommand, 1);
    expect(sns).toHaveReceivedCommandTimes(PublishCommand, 1);
  });

  it('publishes the kept report on the retry of a failed publish, without acting again', async () => {
    nodegroup(1, 1, 3, { 'karpenter-doctor/remediate': 'true' });
    eks.on(UpdateNodegroupConfigCommand).resolves({ update: { id: 'upd-5' } });
    sns.on(PublishCommand).rejectsOnce(new Error('throttled')).resolves({ MessageId: 'm-2' });
    const shared = deps({ raiseSystemNodegroup: { mode: 'apply', maxMinSize: 3 } });

    await expect(remediate(await unschedulable(), CONTEXT, shared)).rejects.toThrow(
      'could not publish 1 remediation report',
    );
    await remediate(await unschedulable(), CONTEXT, shared);
    await remediate(await unschedulable(), CONTEXT, shared);

    expect(eks).toHaveReceivedCommandTimes(UpdateNodegroupConfigCommand, 1);
    expect(sns).toHaveReceivedCommandTimes(PublishCommand, 2);
    // The failed attempt and its retry carry the same report.
    expect(reportsPublished().map((r) => r.outcome)).toEqual(['applied', 'applied']);
  });

  it.each([
    ['its own remediation events', { 'detail-type': 'Karpenter Remediation' }],
    ['another source', { source: 'com.example.other' }],
    ['a resolved finding', { detail: { findingId: idOf('karpenter-controller-unschedulable'), status: 'resolved' } }],
    ['a detail that is not a finding', { detail: { findingId: 42 } }],
  ])('ignores %s', async (_name, override) => {
    nodegroup(1, 1, 3, { 'karpenter-doctor/remediate': 'true' });

    const result = await remediate(
      { ...(await unschedulable()), ...override },
      CONTEXT,
      deps({ raiseSystemNodegroup: { mode: 'apply', maxMinSize: 3 } }),
    );

    expect(result.outcome).toBe('ignored');
    expect(eks.calls()).toHaveLength(0);
    expect(sns).not.toHaveReceivedCommand(PublishCommand);
  });
});

describe('remediator: a forged Finding event', () => {
  const apply = () => deps({ raiseSystemNodegroup: { mode: 'apply', maxMinSize: 3 } });
  beforeEach(() => {
    nodegroup(0, 0, 3, { 'karpenter-doctor/remediate': 'true' });
    eks.on(UpdateNodegroupConfigCommand).resolves({ update: { id: 'upd-f' } });
  });

  it.each([
    ['an invented finding id', async () => unschedulable({}, { stored: false }), /no such incident/],
    ['another account', async () => ({ ...(await unschedulable()), account: '999999999999' }), /account/],
    ['another region', async () => ({ ...(await unschedulable()), region: 'us-east-1' }), /region/],
    [
      'a cluster that is not configured',
      () => findingEvent('karpenter-controller-unschedulable', {}, {}, 'other', { cluster: 'other' }),
      /not configured/,
    ],
    ['a rule without an action', () => findingEvent('oom-killed', { workloads: ['shop/web'] }), /maps to no action/],
  ])('changes nothing and is refused when it names %s', async (_name, forge, reason) => {
    const result = await remediate(await forge(), CONTEXT, apply());

    expect(result).toMatchObject({ outcome: 'refused', reason: expect.stringMatching(reason) });
    expect(eks).not.toHaveReceivedCommand(UpdateNodegroupConfigCommand);
    expect(autoScaling).not.toHaveReceivedCommand(UpdateAutoScalingGroupCommand);
    expect(sns).not.toHaveReceivedCommand(PublishCommand);
  });

  it('refuses a finding whose incident was resolved', async () => {
    const event = await unschedulable();
    const store = new IncidentStore(aws.dynamo.doc, aws.tableName);
    const state = (await store.get(event.detail.findingId))!;
    await store.putIfVersion({ ...state, status: 'resolved', version: state.version + 1 }, state.version);

    const result = await remediate(event, CONTEXT, apply());

    expect(result).toMatchObject({ outcome: 'refused', reason: 'the incident is not open' });
  });

  it('raises only the configured system node group, whatever node group the event names', async () => {
    const event = await unschedulable({
      nodegroups: [{ name: 'gpu-workers', kind: 'managed', autoScalingGroups: ['eks-gpu'], remediationOptIn: true }],
    });

    const result = await remediate(event, CONTEXT, apply());

    expect(result.outcome).toBe('done');
    expect(eks).toHaveReceivedCommandTimes(UpdateNodegroupConfigCommand, 1);
    expect(eks).toHaveReceivedCommandWith(UpdateNodegroupConfigCommand, {
      nodegroupName: 'system',
      scalingConfig: { minSize: 2, maxSize: 3, desiredSize: 2 },
    });
    expect(eks).toHaveReceivedCommandWith(DescribeNodegroupCommand, { nodegroupName: 'system' });
  });

  it('skips the raise when the cluster has no configured system node group', async () => {
    const result = await remediate(
      await unschedulable({ nodegroups: [{ name: 'gpu-workers', kind: 'managed', autoScalingGroups: [] }] }),
      CONTEXT,
      deps({ raiseSystemNodegroup: { mode: 'apply', maxMinSize: 3 } }, [{ name: 'prod' }]),
    );

    expect(result.reports[0]).toMatchObject({
      outcome: 'skipped',
      summary: expect.stringContaining('no system node group'),
    });
    expect(eks).not.toHaveReceivedCommand(DescribeNodegroupCommand);
    expect(eks).not.toHaveReceivedCommand(UpdateNodegroupConfigCommand);
  });
});

describe('remediator: request-quota-increase', () => {
  const quotaEvent = (label: string, context: Partial<FindingContext> = {}) =>
    findingEvent('ec2-quota-exceeded', { quotas: ['VcpuLimitExceeded'], instanceTypes: ['g5.xlarge'] }, context, label);

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
      await quotaEvent('f1'),
      CONTEXT,
      deps({ requestQuotaIncrease: { mode: 'dry-run', maxValue: 512, windowHours: 24 } }),
    );

    expect(serviceQuotas).not.toHaveReceivedCommand(RequestServiceQuotaIncreaseCommand);
    expect(reportsPublished()[0]?.commands).toEqual([
      'aws service-quotas request-service-quota-increase --service-code ec2 --quota-code L-DB2E81BA --desired-value 128 --region eu-west-1',
    ]);
  });

  it('asks for at most the cap, once per quota per window', async () => {
    const shared = deps({ requestQuotaIncrease: { mode: 'apply', maxValue: 100, windowHours: 24 } });

    await remediate(await quotaEvent('f1'), CONTEXT, shared);
    await remediate(await quotaEvent('f2'), CONTEXT, shared);

    expect(serviceQuotas).toHaveReceivedCommandTimes(RequestServiceQuotaIncreaseCommand, 1);
    expect(serviceQuotas).toHaveReceivedCommandWith(RequestServiceQuotaIncreaseCommand, {
      ServiceCode: 'ec2',
      QuotaCode: 'L-DB2E81BA',
      DesiredValue: 100,
    });
  });

  it('asks for the quota the stored incident points to, whatever quota code the event names', async () => {
    await remediate(
      await quotaEvent('f1', { quotas: [{ quotaCode: 'L-0263D0A3', quotaName: 'EC2-VPC Elastic IPs' }] as never }),
      CONTEXT,
      deps({ requestQuotaIncrease: { mode: 'apply', maxValue: 512, windowHours: 24 } }),
    );

    expect(serviceQuotas).toHaveReceivedCommandTimes(RequestServiceQuotaIncreaseCommand, 1);
    expect(serviceQuotas).toHaveReceivedCommandWith(RequestServiceQuotaIncreaseCommand, { QuotaCode: 'L-DB2E81BA' });
    expect(serviceQuotas).not.toHaveReceivedCommandWith(GetServiceQuotaCommand, { QuotaCode: 'L-0263D0A3' });
  });

  it('asks once per quota and window, whatever region string the events carry', async () => {
    const shared = deps({ requestQuotaIncrease: { mode: 'apply', maxValue: 512, windowHours: 24 } });

    const outcomes = [];
    for (const [label, region] of [
      ['f1', REGION],
      ['f2', 'us-east-1'],
      ['f3', 'EU-WEST-1'],
      ['f4', `${REGION} `],
    ] as const) {
      outcomes.push((await remediate({ ...(await quotaEvent(label)), region }, CONTEXT, shared)).outcome);
    }

    expect(outcomes).toEqual(['done', 'refused', 'refused', 'refused']);
    expect(serviceQuotas).toHaveReceivedCommandTimes(RequestServiceQuotaIncreaseCommand, 1);
  });

  it('files nothing when no instance type names the quota bucket (a GPU pool is not pointed at Standard)', async () => {
    await remediate(
      await findingEvent('ec2-quota-exceeded', { quotas: ['VcpuLimitExceeded'], nodepools: ['gpu'] }, {}, 'f1'),
      CONTEXT,
      deps({ requestQuotaIncrease: { mode: 'apply', maxValue: 512, windowHours: 24 } }),
    );

    expect(serviceQuotas).not.toHaveReceivedCommand(GetServiceQuotaCommand);
    expect(serviceQuotas).not.toHaveReceivedCommand(RequestServiceQuotaIncreaseCommand);
    expect(reportsPublished()[0]?.summary).toContain('EC2 quota bucket is unknown');
  });

  it('does not ask again while a request is open', async () => {
    serviceQuotas
      .on(ListRequestedServiceQuotaChangeHistoryByQuotaCommand)
      .resolves({ RequestedQuotas: [{ Id: 'req-0', Status: 'CASE_OPENED', DesiredValue: 96 }] });

    await remediate(
      await quotaEvent('f1'),
      CONTEXT,
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
      await findingEvent('subnet-ip-exhaustion', { subnets: ['subnet-a'] }),
      CONTEXT,
      deps({ planSubnetCapacity: { mode: 'dry-run' } }, [
        { name: 'prod', discoveryTag: { key: 'example.com/karpenter', value: 'prod-subnets' } },
      ]),
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
    // One route-table association per new subnet, from the node subnet of its zone; the discovery tag last.
    expect(report?.steps?.map((s) => `${s.changes ? 'change' : 'read'} ${s.command.split(' --')[0]}`)).toEqual([
      'change aws ec2 associate-vpc-cidr-block',
      'change aws ec2 create-subnet',
      'change aws ec2 create-subnet',
      'read aws ec2 describe-route-tables',
      'change aws ec2 associate-route-table',
      'read aws ec2 describe-route-tables',
      'change aws ec2 associate-route-table',
      'change aws ec2 create-tags',
      'change aws ec2 create-tags',
    ]);
    expect(report?.commands.filter((c) => c.includes('karpenter'))).toEqual([
      "aws ec2 create-tags --resources <subnet-id-of-100.65.0.0-17> --tags 'Key=example.com/karpenter,Value=prod-subnets' --region eu-west-1",
      "aws ec2 create-tags --resources <subnet-id-of-100.65.128.0-17> --tags 'Key=example.com/karpenter,Value=prod-subnets' --region eu-west-1",
    ]);
    expect(report?.commands[3]).toContain('Name=association.subnet-id,Values=subnet-a ');
    expect(report?.commands[5]).toContain('Name=association.subnet-id,Values=subnet-b ');
    // Custom networking is the alternative, never mixed into the node-subnet steps.
    expect(report?.commands.some((c) => c.includes('aws-node') || c.includes('eniconfig'))).toBe(false);
    expect(report?.alternative?.steps.map((s) => s.command)).toEqual(
      expect.arrayContaining(['kubectl apply -f eniconfigs.yaml']),
    );
    expect(report?.alternative?.steps.some((s) => s.command.includes('create-tags'))).toBe(false);
    expect(report?.plan?.eniConfigs).toContain('name: eu-west-1a');
    expect(report?.plan?.eniConfigs).toContain('- sg-0cluster');
    const published = JSON.parse(sns.commandCalls(PublishCommand)[0]!.args[0].input.Message!);
    const email = published.email as string;
    expect(email).toContain('kind: ENIConfig');
    expect(email.indexOf('Alternative, instead of the steps above')).toBeLessThan(email.indexOf('kind: ENIConfig'));
    expect(email).toContain('[read-only] Find the route table with the NAT route of eu-west-1a (that of subnet-a)');
    // Every step in chat, none cut.
    const chat = JSON.parse(published.https);
    expect(chat.content.nextSteps).toHaveLength(9);
  });
});
