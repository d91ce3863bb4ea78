import { Match, Template } from 'aws-cdk-lib/assertions';
import { Remediation } from '../../../lib/constructs/remediation';
import type { ClusterConfig } from '../../../contracts/config';
import { actionsOf, constructStack, nagFindings, resourcesOf, settingsFor, statement, statementsOf } from './support';

type Props = ConstructorParameters<typeof Remediation>[2];
type Actions = Props['settings']['remediation'];

const SETTINGS = settingsFor({
  clusters: [
    { name: 'prod', systemNodegroup: 'system' },
    { name: 'legacy', systemAutoScalingGroup: 'legacy-system' },
    { name: 'dev' },
  ],
});

const DRY_RUN: Actions = {
  raiseSystemNodegroup: { mode: 'dry-run', maxMinSize: 3 },
  requestQuotaIncrease: { mode: 'dry-run', maxValue: 512, windowHours: 24 },
  planSubnetCapacity: { mode: 'dry-run' },
};
const APPLY: Actions = {
  raiseSystemNodegroup: { mode: 'apply', maxMinSize: 3 },
  requestQuotaIncrease: { mode: 'apply', maxValue: 512, windowHours: 24 },
  planSubnetCapacity: { mode: 'dry-run' },
};
const OFF: Actions = {
  raiseSystemNodegroup: { mode: 'off', maxMinSize: 3 },
  requestQuotaIncrease: { mode: 'off', maxValue: 512, windowHours: 24 },
  planSubnetCapacity: { mode: 'off' },
};

function synth(actions: Actions, extra: Partial<Props> & { clusters?: ClusterConfig[] } = {}) {
  const { stack, outputs } = constructStack();
  const { clusters = SETTINGS.clusters, ...rest } = extra;
  const remediation = new Remediation(stack, 'Remediation', {
    ...outputs,
    eventSource: 'io.karpenter-doctor',
    settings: { ...SETTINGS, clusters, remediation: actions },
    ...rest,
  });
  return { stack, remediation, template: Template.fromStack(stack) };
}

/** The actions that change something in the account, as opposed to reading it. */
const CHANGES = /^(eks|autoscaling|servicequotas|ec2):(Update|Request|Associate|Create|Delete|Set|Put|Modify)/;

describe('Remediation', () => {
  describe('in dry-run', () => {
    let template: Template;
    beforeAll(() => ({ template } = synth(DRY_RUN)));

    it('may read what the plans need, and change nothing', () => {
      const actions = actionsOf(statementsOf(template, 'RemediationRole'));
      expect(actions).toEqual([
        'autoscaling:DescribeAutoScalingGroups',
        'dynamodb:DeleteItem',
        'dynamodb:GetItem',
        'dynamodb:PutItem',
        'dynamodb:UpdateItem',
        'ec2:DescribeSubnets',
        'ec2:DescribeVpcs',
        'eks:DescribeCluster',
        'eks:DescribeNodegroup',
        'events:PutEvents',
        'kms:Decrypt',
        'kms:GenerateDataKey',
        'logs:CreateLogStream',
        'logs:PutLogEvents',
        'servicequotas:GetServiceQuota',
        'servicequotas:ListRequestedServiceQuotaChangeHistoryByQuota',
        'sns:Publish',
        'sqs:GetQueueAttributes',
        'sqs:GetQueueUrl',
        'sqs:SendMessage',
      ]);
      expect(actions.filter((a) => CHANGES.test(a))).toEqual([]);
    });

    it('reads only the six EC2 quotas its rule may raise, never every quota', () => {
      const quotas = resourcesOf(statement(statementsOf(template, 'RemediationRole'), 'ReadEc2Quotas'));
      expect(quotas).toHaveLength(6);
      for (const quota of quotas) expect(quota).toMatch(/:ec2\/L-[0-9A-F]{8}"\]\]\}$/);
    });

    it('scopes the node group and cluster reads to the configured clusters', () => {
      const statements = statementsOf(template, 'RemediationRole');
      const nodegroups = resourcesOf(statement(statements, 'ReadNodegroups'));
      expect(nodegroups.map((r) => /nodegroup\/([^"]+)"/.exec(r)?.[1])).toEqual(['prod/*/*', 'legacy/*/*', 'dev/*/*']);
      const clusters = resourcesOf(statement(statements, 'ReadClusters'));
      expect(clusters.map((r) => /cluster\/([^"]+)"/.exec(r)?.[1])).toEqual(['prod', 'legacy', 'dev']);
    });

    it('is triggered by findings of this account that name a turned-on action, never by its own events', () => {
      template.hasResourceProperties('AWS::Events::Rule', {
        EventBusName: { Ref: Match.stringLikeRegexp('^Bus') },
        EventPattern: {
          account: [{ Ref: 'AWS::AccountId' }],
          source: ['io.karpenter-doctor'],
          'detail-type': ['Karpenter Finding'],
          detail: {
            status: ['open', 'ongoing'],
            remediation: {
              action: ['raise-system-nodegroup', 'request-quota-increase', 'plan-subnet-capacity'],
            },
          },
        },
        Targets: [
          Match.objectLike({
            Arn: { 'Fn::GetAtt': [Match.stringLikeRegexp('^RemediationFunction'), 'Arn'] },
            RetryPolicy: { MaximumRetryAttempts: 2, MaximumEventAgeInSeconds: 7200 },
            DeadLetterConfig: {
              Arn: { 'Fn::GetAtt': [Match.stringLikeRegexp('^RemediationDeadLetterQueue'), 'Arn'] },
            },
          }),
        ],
      });
    });

    it('keeps what it failed on, and what EventBridge could not deliver, in encrypted queues', () => {
      template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
        MaximumRetryAttempts: 2,
        MaximumEventAgeInSeconds: 7200,
        DestinationConfig: {
          OnFailure: { Destination: { 'Fn::GetAtt': [Match.stringLikeRegexp('^RemediationFailureQueue'), 'Arn'] } },
        },
      });
      template.resourcePropertiesCountIs('AWS::SQS::Queue', { SqsManagedSseEnabled: true }, 2);
      template.hasResourceProperties('AWS::Lambda::Function', { ReservedConcurrentExecutions: 2 });
    });

    it('names its settings file in the environment', () => {
      template.hasResourceProperties('AWS::Lambda::Function', {
        Environment: {
          Variables: Match.objectLike({
            INCIDENT_TABLE_NAME: { Ref: Match.stringLikeRegexp('^Table') },
            SETTINGS_FILE: 'settings.json',
            POWERTOOLS_SERVICE_NAME: 'remediator',
          }),
        },
      });
    });

    it('has no unsuppressed cdk-nag AwsSolutions finding', () => {
      expect(nagFindings(synth(DRY_RUN).stack, 'Remediation')).toEqual([]);
    });
  });

  describe('in apply', () => {
    let template: Template;
    beforeAll(() => ({ template } = synth(APPLY)));

    it('changes only the configured managed system node group, and only while it carries the opt-in tag', () => {
      const raise = statement(statementsOf(template, 'RemediationRole'), 'RaiseOptedInManagedNodegroups');
      expect(raise.Action).toBe('eks:UpdateNodegroupConfig');
      expect(resourcesOf(raise).map((r) => /nodegroup\/([^"]+)"/.exec(r)?.[1])).toEqual(['prod/system/*']);
      expect(raise.Condition).toEqual({ StringEquals: { 'aws:ResourceTag/karpenter-doctor/remediate': 'true' } });
    });

    it('changes only the configured self-managed system group, and only while it carries the opt-in tag', () => {
      const raise = statement(statementsOf(template, 'RemediationRole'), 'RaiseOptedInSelfManagedGroups');
      expect(raise.Action).toBe('autoscaling:UpdateAutoScalingGroup');
      expect(resourcesOf(raise)).toHaveLength(1);
      expect(resourcesOf(raise)[0]).toMatch(/:autoScalingGroup:\*:autoScalingGroupName\/legacy-system"\]\]\}$/);
      expect(raise.Condition).toEqual({
        StringEquals: { 'autoscaling:ResourceTag/karpenter-doctor/remediate': 'true' },
      });
    });

    it('requests increases of the six quotas its rule may raise, and no other', () => {
      const statements = statementsOf(template, 'RemediationRole');
      const request = statement(statements, 'RequestEc2QuotaIncreases');
      expect(request.Action).toBe('servicequotas:RequestServiceQuotaIncrease');
      expect(resourcesOf(request)).toEqual(resourcesOf(statement(statements, 'ReadEc2Quotas')));
    });

    it('never associates a VPC CIDR: subnet capacity is only planned', () => {
      expect(actionsOf(statementsOf(template, 'RemediationRole')).filter((a) => a.startsWith('ec2:'))).toEqual([
        'ec2:DescribeSubnets',
        'ec2:DescribeVpcs',
      ]);
    });

    it('grants no group change when no system group is configured', () => {
      const { template } = synth(APPLY, { clusters: [{ name: 'dev', logGroups: ['/eks/dev'] }] });
      const changes = actionsOf(statementsOf(template, 'RemediationRole')).filter((a) => CHANGES.test(a));
      expect(changes).toEqual(['servicequotas:RequestServiceQuotaIncrease']);
    });

    it('has no unsuppressed cdk-nag AwsSolutions finding', () => {
      expect(nagFindings(synth(APPLY).stack, 'Remediation')).toEqual([]);
    });
  });

  it('grants nothing for an action that is off, and its id is not in the rule', () => {
    const { template } = synth({ ...OFF, planSubnetCapacity: { mode: 'dry-run' } });
    const actions = actionsOf(statementsOf(template, 'RemediationRole'));
    expect(actions.filter((a) => a.startsWith('servicequotas:') || a.startsWith('autoscaling:'))).toEqual([]);
    expect(actions).not.toContain('eks:DescribeNodegroup');
    template.hasResourceProperties('AWS::Events::Rule', {
      EventPattern: Match.objectLike({
        detail: Match.objectLike({ remediation: { action: ['plan-subnet-capacity'] } }),
      }),
    });
  });

  describe('refuses at synth', () => {
    it.each([
      [{ actions: OFF }, 'Remediation: every action is "off"; turn one on, or leave the construct out'],
      [{ clusters: [] }, 'Remediation: invalid settings:\n  settings.clusters = []: expected at least one cluster'],
      [
        { eventSource: 'aws.karpenter' },
        'Remediation: eventSource is "aws.karpenter"; EventBridge reserves the "aws." prefix for AWS services',
      ],
      [
        { actions: { ...DRY_RUN, raiseSystemNodegroup: { mode: 'apply', maxMinSize: 0 } } },
        'settings.remediation.raiseSystemNodegroup.maxMinSize = 0',
      ],
      [
        { actions: { ...DRY_RUN, requestQuotaIncrease: { mode: 'apply', maxValue: 0, windowHours: 24 } } },
        'settings.remediation.requestQuotaIncrease.maxValue = 0',
      ],
      [
        { actions: { ...DRY_RUN, requestQuotaIncrease: { mode: 'apply', maxValue: 512, windowHours: 0.5 } } },
        'settings.remediation.requestQuotaIncrease.windowHours = 0.5',
      ],
    ])('%j', (props, message) => {
      const { actions, ...rest } = props as Partial<Props> & { actions?: Actions; clusters?: ClusterConfig[] };
      expect(() => synth(actions ?? DRY_RUN, rest)).toThrow(message);
    });
  });
});
