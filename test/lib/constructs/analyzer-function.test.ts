import { Duration } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { AnalyzerFunction, ANALYZER_LAZY_MODULES } from '../../../lib/constructs/analyzer-function';
import { actionsOf, constructStack, nagFindings, resourcesOf, settingsFor, statement, statementsOf } from './support';

type Props = ConstructorParameters<typeof AnalyzerFunction>[2];

const SETTINGS = settingsFor({ clusters: [{ name: 'prod', systemNodegroup: 'system' }, { name: 'staging' }] });

function synth(extra: Partial<Props> = {}) {
  const { stack, outputs } = constructStack();
  const analyzer = new AnalyzerFunction(stack, 'Analyzer', {
    ...outputs,
    settings: SETTINGS,
    ...extra,
  });
  return { stack, analyzer, template: Template.fromStack(stack) };
}

describe('AnalyzerFunction', () => {
  let template: Template;
  beforeAll(() => ({ template } = synth()));

  it('grants exactly the actions it uses, none of them a wildcard', () => {
    expect(actionsOf(statementsOf(template, 'AnalyzerRole'))).toEqual([
      'autoscaling:DescribeAutoScalingGroups',
      'dynamodb:BatchGetItem',
      'dynamodb:GetItem',
      'dynamodb:PutItem',
      'dynamodb:UpdateItem',
      'ec2:DescribeSubnets',
      'ec2:DescribeVpcs',
      'eks:DescribeCluster',
      'eks:DescribeNodegroup',
      'eks:ListNodegroups',
      'events:PutEvents',
      'kms:Decrypt',
      'kms:GenerateDataKey',
      'logs:CreateLogStream',
      'logs:PutLogEvents',
      'servicequotas:GetServiceQuota',
      'sns:Publish',
      'sqs:GetQueueAttributes',
      'sqs:GetQueueUrl',
      'sqs:SendMessage',
    ]);
  });

  it('writes only its own table, and never deletes or scans it', () => {
    const statements = statementsOf(template, 'AnalyzerRole');
    const table = statements.find((s) => actionsOf([s]).includes('dynamodb:PutItem'))!;
    expect(resourcesOf(table)).toEqual([JSON.stringify({ 'Fn::GetAtt': ['TableCD117FA1', 'Arn'] })]);
  });

  it('describes subnets, VPCs and Auto Scaling groups on "*" (they have no resource-level permissions), by name', () => {
    expect(statement(statementsOf(template, 'AnalyzerRole'), 'DescribeNetworkAndGroups')).toMatchObject({
      Action: ['ec2:DescribeSubnets', 'ec2:DescribeVpcs', 'autoscaling:DescribeAutoScalingGroups'],
      Resource: '*',
    });
  });

  it('scopes the EKS actions to the configured clusters and their node groups', () => {
    const statements = statementsOf(template, 'AnalyzerRole');
    const clusters = resourcesOf(statement(statements, 'DescribeClusters'));
    expect(clusters).toHaveLength(2);
    expect(clusters[0]).toMatch(/:cluster\/prod"\]\]\}$/);
    expect(clusters[1]).toMatch(/:cluster\/staging"\]\]\}$/);
    const nodegroups = resourcesOf(statement(statements, 'DescribeNodegroups'));
    expect(nodegroups).toHaveLength(2);
    expect(nodegroups[0]).toMatch(/:nodegroup\/prod\/\*\/\*"\]\]\}$/);
    expect(nodegroups[1]).toMatch(/:nodegroup\/staging\/\*\/\*"\]\]\}$/);
  });

  it('reads only EC2 quotas of its own account and region', () => {
    const quotas = statement(statementsOf(template, 'AnalyzerRole'), 'ReadEc2Quotas');
    expect(quotas.Action).toBe('servicequotas:GetServiceQuota');
    expect(resourcesOf(quotas)).toEqual([
      JSON.stringify({
        'Fn::Join': [
          '',
          [
            'arn:',
            { Ref: 'AWS::Partition' },
            ':servicequotas:',
            { Ref: 'AWS::Region' },
            ':',
            { Ref: 'AWS::AccountId' },
            ':ec2/*',
          ],
        ],
      }),
    ]);
  });

  it('sets each environment variable together with the grant it needs', () => {
    template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: {
        Variables: Match.objectLike({
          INCIDENT_TABLE_NAME: { Ref: 'TableCD117FA1' },
          FINDINGS_TOPIC_ARN: { Ref: Match.stringLikeRegexp('^Topic') },
          EVENT_BUS_NAME: { Ref: Match.stringLikeRegexp('^Bus') },
          SETTINGS_FILE: 'settings.json',
          POWERTOOLS_SERVICE_NAME: 'analyzer',
        }),
      },
    });
  });

  it('reserves 5 concurrent executions, retries a failed delivery twice within 6 hours, then keeps it', () => {
    template.hasResourceProperties('AWS::Lambda::Function', { ReservedConcurrentExecutions: 5, Timeout: 60 });
    template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
      MaximumRetryAttempts: 2,
      MaximumEventAgeInSeconds: 21_600,
      DestinationConfig: {
        OnFailure: { Destination: { 'Fn::GetAtt': [Match.stringLikeRegexp('^AnalyzerFailureQueue'), 'Arn'] } },
      },
    });
    template.hasResourceProperties('AWS::SQS::Queue', { SqsManagedSseEnabled: true });
  });

  it('takes its concurrency, retries and event age from props', () => {
    const { template } = synth({ reservedConcurrency: 0, retryAttempts: 0, maxEventAge: Duration.hours(1) });
    template.hasResourceProperties('AWS::Lambda::Function', { ReservedConcurrentExecutions: 0 });
    template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
      MaximumRetryAttempts: 0,
      MaximumEventAgeInSeconds: 3600,
    });
  });

  it('loads its classifier half, its AWS half and its stream half lazily', () => {
    expect(ANALYZER_LAZY_MODULES).toEqual(['analyzer-core', 'analyzer-aws', 'stream-analyzer']);
  });

  it('exposes its function, role, log group and failure queue', () => {
    const { analyzer, stack } = synth();
    expect(stack.resolve(analyzer.function.functionArn)).toEqual({
      'Fn::GetAtt': [expect.stringMatching(/^AnalyzerFunction/), 'Arn'],
    });
    expect(stack.resolve(analyzer.role.roleArn)).toEqual({
      'Fn::GetAtt': [expect.stringMatching(/^AnalyzerRole/), 'Arn'],
    });
    expect(stack.resolve(analyzer.logGroup.logGroupName)).toEqual({ Ref: expect.stringMatching(/^AnalyzerLogGroup/) });
    expect(stack.resolve(analyzer.failureQueue.queueArn)).toEqual({
      'Fn::GetAtt': [expect.stringMatching(/^AnalyzerFailureQueue/), 'Arn'],
    });
  });

  it('has no unsuppressed cdk-nag AwsSolutions finding', () => {
    expect(nagFindings(synth().stack, 'Analyzer')).toEqual([]);
  });

  describe('refuses at synth', () => {
    it('no cluster: the EKS permissions name each one', () => {
      expect(() => synth({ settings: { ...SETTINGS, clusters: [] } })).toThrow(
        'AnalyzerFunction: invalid settings:\n  settings.clusters = []: expected at least one cluster',
      );
    });

    it('a cluster named twice', () => {
      expect(() =>
        synth({ settings: { ...SETTINGS, clusters: [SETTINGS.clusters[0]!, SETTINGS.clusters[0]!] } }),
      ).toThrow('expected each cluster name once');
    });

    it.each([
      [
        { reservedConcurrency: -1 },
        'AnalyzerFunction: invalid reservedConcurrency:\n  reservedConcurrency = -1: expected 0 (the kill switch) to 100',
      ],
      [
        { settings: { ...SETTINGS, notifications: { maxNoticesPerDelivery: 0, maxIncidentsPerDelivery: 50 } } },
        'settings.notifications.maxNoticesPerDelivery = 0',
      ],
      [
        { settings: { ...SETTINGS, windows: { ...SETTINGS.windows, retentionDays: 0 } } },
        'settings.windows.retentionDays = 0',
      ],
    ])('invalid %j', (props, message) => {
      expect(() => synth(props as Partial<Props>)).toThrow(message);
    });
  });
});
