import { Duration } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { Code, Function as LambdaFunction, Runtime } from 'aws-cdk-lib/aws-lambda';
import { Queue } from 'aws-cdk-lib/aws-sqs';
import { Operations } from '../../../lib/constructs/operations';
import { constructStack, nagFindings, resourceOf } from './support';

type Props = ConstructorParameters<typeof Operations>[2];

/** Operations alone, watching plain functions and queues of a minimal stack (`Analyzer`, `Headroom`, …). */
function synth(options: { headroom?: boolean; remediator?: boolean; extra?: Partial<Props> } = {}) {
  const { stack, outputs } = constructStack();
  const fn = (id: string) =>
    new LambdaFunction(stack, id, {
      runtime: Runtime.NODEJS_24_X,
      handler: 'index.handler',
      code: Code.fromInline('exports.handler = async () => {};'),
    });
  const operations = new Operations(stack, 'Operations', {
    analyzer: fn('Analyzer'),
    failureQueue: new Queue(stack, 'AnalyzerFailures'),
    findingsTopic: outputs.topic,
    ...(options.headroom
      ? { headroom: fn('Headroom'), headroomFailureQueue: new Queue(stack, 'HeadroomFailures') }
      : {}),
    ...(options.remediator
      ? { remediator: fn('Remediator'), remediatorFailureQueue: new Queue(stack, 'RemediatorFailures') }
      : {}),
    ...options.extra,
  });
  return { stack, operations, template: Template.fromStack(stack) };
}

type AlarmResource = {
  Properties: {
    AlarmActions: unknown[];
    Threshold: number;
    ComparisonOperator: string;
    TreatMissingData: string;
    Period?: number;
    Namespace?: string;
    MetricName?: string;
    Dimensions?: Array<{ Name: string; Value: unknown }>;
    Metrics?: Array<{ Expression?: string }>;
  };
};

/** The alarms by construct id (the logical id without `Operations` and the hash). */
function alarmsOf(template: Template): Record<string, AlarmResource> {
  return Object.fromEntries(
    Object.entries(template.findResources('AWS::CloudWatch::Alarm')).map(([id, alarm]) => [
      id.replace(/^Operations/, '').replace(/[0-9A-F]{8}$/, ''),
      alarm as AlarmResource,
    ]),
  );
}

type KeyOrTopicStatement = { Sid?: string; Effect: string; Principal?: unknown; Condition?: unknown };

const ALARMS_OF_THIS_ACCOUNT = {
  StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } },
  ArnLike: {
    'aws:SourceArn': {
      'Fn::Join': [
        '',
        [
          'arn:',
          { Ref: 'AWS::Partition' },
          ':cloudwatch:',
          { Ref: 'AWS::Region' },
          ':',
          { Ref: 'AWS::AccountId' },
          ':alarm:*',
        ],
      ],
    },
  },
};

describe('Operations', () => {
  describe('watching the analyzer alone', () => {
    let template: Template;
    beforeAll(() => ({ template } = synth({ extra: { alertEmails: ['oncall@example.com'] } })));

    it('alarms once per signal of the analyzer, the topic and the subscriptions', () => {
      expect(Object.keys(alarmsOf(template)).sort()).toEqual([
        'AnalyzerErrors',
        'AnalyzerThrottles',
        'AsyncEventsDropped',
        'DestinationDeliveryFailures',
        'FailureQueueDepth',
        'NotificationsFailed',
        'PublishFailures',
        'SubscriptionDeliveryErrors',
      ]);
    });

    it('fires each alarm on one occurrence in five minutes, treats missing data as fine, and sends it to its own topic', () => {
      for (const alarm of Object.values(alarmsOf(template))) {
        expect(alarm.Properties).toMatchObject({
          Threshold: 1,
          ComparisonOperator: 'GreaterThanOrEqualToThreshold',
          TreatMissingData: 'notBreaching',
          AlarmActions: [{ Ref: expect.stringMatching(/^OperationsAlarmTopic/) }],
        });
      }
      expect(alarmsOf(template).AnalyzerErrors!.Properties).toMatchObject({
        Namespace: 'AWS/Lambda',
        MetricName: 'Errors',
        Period: 300,
        Dimensions: [{ Name: 'FunctionName', Value: { Ref: expect.stringMatching(/^Analyzer/) } }],
      });
    });

    it("alarms on the analyzer's own publish failures and on the findings topic's failed notifications", () => {
      const alarms = alarmsOf(template);
      expect(alarms.PublishFailures!.Properties.Metrics).toEqual([
        expect.objectContaining({
          MetricStat: {
            Metric: {
              Namespace: 'KarpenterDoctor',
              MetricName: 'PublishFailures',
              Dimensions: [{ Name: 'service', Value: 'analyzer' }],
            },
            Period: 300,
            Stat: 'Sum',
          },
        }),
      ]);
      expect(alarms.NotificationsFailed!.Properties).toMatchObject({
        Namespace: 'AWS/SNS',
        MetricName: 'NumberOfNotificationsFailed',
        Dimensions: [{ Name: 'TopicName', Value: { 'Fn::GetAtt': [expect.stringMatching(/^Topic/), 'TopicName'] } }],
      });
      expect(alarms.FailureQueueDepth!.Properties).toMatchObject({
        MetricName: 'ApproximateNumberOfMessagesVisible',
        Dimensions: [
          { Name: 'QueueName', Value: { 'Fn::GetAtt': [expect.stringMatching(/^AnalyzerFailures/), 'QueueName'] } },
        ],
      });
    });

    it('alarms on the delivery errors of every subscription with one Metrics Insights query', () => {
      expect(alarmsOf(template).SubscriptionDeliveryErrors!.Properties.Metrics).toEqual([
        expect.objectContaining({
          Expression: `SELECT SUM(DeliveryErrors) FROM "AWS/Logs" WHERE FilterName = 'karpenter-doctor'`,
        }),
      ]);
    });

    it('encrypts the alarm topic with a rotated key of its own that only CloudWatch alarms of this account may use', () => {
      const key = resourceOf(template, 'AWS::KMS::Key', 'OperationsAlarmKey').Properties as {
        EnableKeyRotation: boolean;
        KeyPolicy: { Statement: KeyOrTopicStatement[] };
      };
      expect(key.EnableKeyRotation).toBe(true);
      const services = key.KeyPolicy.Statement.filter((s) => JSON.stringify(s.Principal).includes('amazonaws.com'));
      expect(services).toEqual([
        expect.objectContaining({
          Sid: 'AllowCloudWatchAlarmsOfThisAccountToUseTheKey',
          Principal: { Service: 'cloudwatch.amazonaws.com' },
          Action: ['kms:GenerateDataKey*', 'kms:Decrypt'],
          Condition: ALARMS_OF_THIS_ACCOUNT,
        }),
      ]);
      template.hasResourceProperties('AWS::SNS::Topic', {
        KmsMasterKeyId: { 'Fn::GetAtt': [Match.stringLikeRegexp('^OperationsAlarmKey'), 'Arn'] },
      });
    });

    it('lets only CloudWatch alarms of this account publish to the alarm topic, over TLS', () => {
      const policy = resourceOf(template, 'AWS::SNS::TopicPolicy', 'OperationsAlarmTopic').Properties
        .PolicyDocument as { Statement: KeyOrTopicStatement[] };
      expect(policy.Statement).toEqual([
        expect.objectContaining({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
        expect.objectContaining({
          Sid: 'AllowCloudWatchAlarmsOfThisAccountToPublish',
          Effect: 'Allow',
          Principal: { Service: 'cloudwatch.amazonaws.com' },
          Condition: ALARMS_OF_THIS_ACCOUNT,
        }),
      ]);
    });

    it('subscribes the alert emails to the alarm topic', () => {
      template.resourceCountIs('AWS::SNS::Subscription', 1);
      template.hasResourceProperties('AWS::SNS::Subscription', {
        Protocol: 'email',
        Endpoint: 'oncall@example.com',
        TopicArn: { Ref: Match.stringLikeRegexp('^OperationsAlarmTopic') },
      });
    });

    it('keeps the logical ids of the alarm topic and its key', () => {
      expect(Object.keys(template.findResources('AWS::KMS::Key'))).toContain('OperationsAlarmKey3BE721C2');
      expect(Object.keys(template.findResources('AWS::SNS::Topic'))).toContain('OperationsAlarmTopic909EF7A3');
    });

    it('graphs findings, signals and subscriptions by rule and log group, and no headroom without the check', () => {
      const body = JSON.stringify(resourceOf(template, 'AWS::CloudWatch::Dashboard', 'OperationsDashboard'));
      for (const title of ['Findings published by rule', 'Signals by rule', 'Degraded', 'Analyzer']) {
        expect(body).toContain(title);
      }
      expect(body).toContain(`GROUP BY LogGroupName`);
      expect(body).not.toContain('Free IPs');
    });

    it('has no unsuppressed cdk-nag AwsSolutions finding', () => {
      expect(nagFindings(synth().stack, 'Operations')).toEqual([]);
    });
  });

  describe('watching the headroom check and the remediator too', () => {
    let template: Template;
    beforeAll(() => ({ template } = synth({ headroom: true, remediator: true })));

    it('alarms on their errors and their failure queues as well', () => {
      const alarms = alarmsOf(template);
      expect(Object.keys(alarms)).toEqual(
        expect.arrayContaining([
          'HeadroomErrors',
          'HeadroomFailureQueueDepth',
          'RemediatorErrors',
          'RemediatorFailureQueueDepth',
        ]),
      );
      expect(Object.keys(alarms)).toHaveLength(12);
      expect(alarms.HeadroomErrors!.Properties.Dimensions).toEqual([
        { Name: 'FunctionName', Value: { Ref: expect.stringMatching(/^Headroom/) } },
      ]);
      expect(alarms.RemediatorFailureQueueDepth!.Properties.Dimensions).toEqual([
        { Name: 'QueueName', Value: { 'Fn::GetAtt': [expect.stringMatching(/^RemediatorFailures/), 'QueueName'] } },
      ]);
    });

    it('graphs the free IPs and the forecast of the headroom check', () => {
      const body = JSON.stringify(resourceOf(template, 'AWS::CloudWatch::Dashboard', 'OperationsDashboard'));
      expect(body).toContain('Free IPs per Karpenter subnet');
      expect(body).toContain('Forecast: hours until a subnet runs out');
      expect(body).toContain('MetricName=\\\\\\"SubnetFreeIps\\\\\\" service=\\\\\\"headroom\\\\\\"');
    });
  });

  it('takes the period of every alarm and graph from props', () => {
    const { template } = synth({ extra: { period: Duration.minutes(1) } });
    expect(alarmsOf(template).AnalyzerErrors!.Properties.Period).toBe(60);
  });
});
