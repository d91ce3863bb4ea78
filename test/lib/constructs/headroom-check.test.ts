import { Match, Template } from 'aws-cdk-lib/assertions';
import { HeadroomCheck } from '../../../lib/constructs/headroom-check';
import { actionsOf, constructStack, nagFindings, resourcesOf, settingsFor, statement, statementsOf } from './support';

type Props = ConstructorParameters<typeof HeadroomCheck>[2];

const SETTINGS = settingsFor({
  clusters: [{ name: 'prod' }, { name: 'staging', discoveryTag: { key: 'team', value: 'staging' } }],
});

function synth(extra: Partial<Props> = {}) {
  const { stack, outputs } = constructStack();
  const headroom = new HeadroomCheck(stack, 'Headroom', {
    ...outputs,
    settings: SETTINGS,
    ...extra,
  });
  return { stack, headroom, template: Template.fromStack(stack) };
}

describe('HeadroomCheck', () => {
  let template: Template;
  beforeAll(() => ({ template } = synth()));

  it('grants only what it reads and writes: the table (with Scan, for the sweep), publishing, subnets and clusters', () => {
    expect(actionsOf(statementsOf(template, 'HeadroomRole'))).toEqual([
      'dynamodb:BatchGetItem',
      'dynamodb:GetItem',
      'dynamodb:PutItem',
      'dynamodb:Scan',
      'dynamodb:UpdateItem',
      'ec2:DescribeSubnets',
      'ec2:DescribeVpcs',
      'eks:DescribeCluster',
      'events:PutEvents',
      'kms:Decrypt',
      'kms:GenerateDataKey',
      'logs:CreateLogStream',
      'logs:PutLogEvents',
      'sns:Publish',
      'sqs:GetQueueAttributes',
      'sqs:GetQueueUrl',
      'sqs:SendMessage',
    ]);
    const statements = statementsOf(template, 'HeadroomRole');
    expect(statement(statements, 'DescribeSubnets')).toMatchObject({
      Action: ['ec2:DescribeSubnets', 'ec2:DescribeVpcs'],
      Resource: '*',
    });
    const clusters = resourcesOf(statement(statements, 'DescribeClusters'));
    expect(clusters).toHaveLength(2);
    expect(clusters[0]).toMatch(/:cluster\/prod"\]\]\}$/);
    expect(clusters[1]).toMatch(/:cluster\/staging"\]\]\}$/);
  });

  it('runs on its schedule with the scheduled time as input, retries twice within an hour, then dead-letters', () => {
    template.hasResourceProperties('AWS::Scheduler::Schedule', {
      ScheduleExpression: 'rate(5 minutes)',
      State: 'ENABLED',
      Target: {
        Arn: { 'Fn::GetAtt': [Match.stringLikeRegexp('^HeadroomFunction'), 'Arn'] },
        RoleArn: { 'Fn::GetAtt': [Match.stringLikeRegexp('^HeadroomSchedulerRole'), 'Arn'] },
        Input: JSON.stringify({ scheduledTime: '<aws.scheduler.scheduled-time>' }),
        RetryPolicy: { MaximumRetryAttempts: 2, MaximumEventAgeInSeconds: 3600 },
        DeadLetterConfig: { Arn: { 'Fn::GetAtt': [Match.stringLikeRegexp('^HeadroomDeadLetterQueue'), 'Arn'] } },
      },
    });
  });

  it('lets the Scheduler of this account only invoke the function and write its dead-letter queue', () => {
    template.hasResourceProperties('AWS::IAM::Role', {
      AssumeRolePolicyDocument: {
        Statement: [
          {
            Action: 'sts:AssumeRole',
            Effect: 'Allow',
            Principal: { Service: 'scheduler.amazonaws.com' },
            Condition: { StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } } },
          },
        ],
      },
    });
    expect(actionsOf(statementsOf(template, 'HeadroomSchedulerRole'))).toEqual([
      'lambda:InvokeFunction',
      'sqs:SendMessage',
    ]);
  });

  it('runs one check at a time, and keeps a run that failed every retry with its error', () => {
    template.hasResourceProperties('AWS::Lambda::Function', { ReservedConcurrentExecutions: 1, Timeout: 120 });
    template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
      MaximumRetryAttempts: 2,
      MaximumEventAgeInSeconds: 3600,
      DestinationConfig: {
        OnFailure: { Destination: { 'Fn::GetAtt': [Match.stringLikeRegexp('^HeadroomFailureQueue'), 'Arn'] } },
      },
    });
    template.resourcePropertiesCountIs('AWS::SQS::Queue', { SqsManagedSseEnabled: true }, 2);
  });

  it('names its settings file in the environment, with the table, topic and bus it is granted', () => {
    template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: {
        Variables: Match.objectLike({
          INCIDENT_TABLE_NAME: { Ref: Match.stringLikeRegexp('^Table') },
          FINDINGS_TOPIC_ARN: { Ref: Match.stringLikeRegexp('^Topic') },
          EVENT_BUS_NAME: { Ref: Match.stringLikeRegexp('^Bus') },
          SETTINGS_FILE: 'settings.json',
          POWERTOOLS_SERVICE_NAME: 'headroom',
        }),
      },
    });
  });

  it('exposes its function, schedule and queues', () => {
    const { headroom, stack } = synth();
    expect(stack.resolve(headroom.function.functionArn)).toEqual({
      'Fn::GetAtt': [expect.stringMatching(/^HeadroomFunction/), 'Arn'],
    });
    expect(stack.resolve(headroom.schedule.scheduleArn)).toEqual({
      'Fn::GetAtt': [expect.stringMatching(/^HeadroomSchedule/), 'Arn'],
    });
    expect(stack.resolve(headroom.deadLetterQueue.queueArn)).toEqual({
      'Fn::GetAtt': [expect.stringMatching(/^HeadroomDeadLetterQueue/), 'Arn'],
    });
    expect(stack.resolve(headroom.failureQueue.queueArn)).toEqual({
      'Fn::GetAtt': [expect.stringMatching(/^HeadroomFailureQueue/), 'Arn'],
    });
  });

  it('has no unsuppressed cdk-nag AwsSolutions finding', () => {
    expect(nagFindings(synth().stack, 'Headroom')).toEqual([]);
  });

  describe('refuses at synth', () => {
    const headroom = SETTINGS.headroom;
    it.each([
      [{ ...SETTINGS, clusters: [] }, 'settings.clusters = []: expected at least one cluster'],
      [
        { ...SETTINGS, headroom: { ...headroom, schedule: 'every 5 minutes' } },
        'settings.headroom.schedule = "every 5 minutes"',
      ],
      [{ ...SETTINGS, headroom: { ...headroom, minFreeIps: -1 } }, 'settings.headroom.minFreeIps = -1'],
      [{ ...SETTINGS, headroom: { ...headroom, minFreePercent: 120 } }, 'settings.headroom.minFreePercent = 120'],
      [{ ...SETTINGS, headroom: { ...headroom, horizonHours: 0 } }, 'settings.headroom.horizonHours = 0'],
      [{ ...SETTINGS, windows: { ...SETTINGS.windows, resolveMinutes: 0 } }, 'settings.windows.resolveMinutes = 0'],
    ])('%j', (settings, message) => {
      expect(() => synth({ settings })).toThrow(`HeadroomCheck: invalid settings:\n  ${message}`);
    });
  });
});
