import { ArnFormat, Duration, Stack } from 'aws-cdk-lib';
import {
  Alarm,
  ComparisonOperator,
  Dashboard,
  GraphWidget,
  MathExpression,
  Metric,
  TreatMissingData,
  type IAlarm,
  type IMetric,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Key, type IKey } from 'aws-cdk-lib/aws-kms';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { Topic, type ITopic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { NagSuppressions } from 'cdk-nag';
import { Construct } from 'constructs';
import { METRIC, METRICS_NAMESPACE, SUBSCRIPTION_NAME } from '../../contracts/names';

export interface OperationsProps {
  readonly analyzer: IFunction;
  /**
   * The headroom check, for its alarm and its free-IP graphs.
   * @default - no headroom alarm or graphs
   */
  readonly headroom?: IFunction;
  /**
   * The remediator, for its alarm.
   * @default - no remediator alarm
   */
  readonly remediator?: IFunction;
  /** The analyzer's on-failure queue. */
  readonly failureQueue: IQueue;
  /**
   * The remediator's and the headroom check's on-failure queues, alarmed on like the analyzer's.
   * @default - none
   */
  readonly remediatorFailureQueue?: IQueue;
  readonly headroomFailureQueue?: IQueue;
  /** The findings topic, for its delivery-failure alarm; the alarms themselves go to their own topic. */
  readonly findingsTopic: ITopic;
  /**
   * Addresses subscribed to the alarm topic.
   * @default - none
   */
  readonly alertEmails?: readonly string[];
  /**
   * Period of every alarm and graph.
   * @default Duration.minutes(5)
   */
  readonly period?: Duration;
}

/**
 * The alarms that tell the operator when karpenter-doctor itself is not working, and a dashboard of
 * what it sees. The alarms go to a topic of their own, encrypted with a key of its own that only
 * CloudWatch alarms of this account and region may use: a broken findings topic or key (disabled,
 * scheduled for deletion, policy edited) cannot also silence the alarms about it. A subscription that fails with a
 * non-retryable error silently skips logs for up to ten minutes, so delivery errors are alarmed on
 * (https://docs.aws.amazon.com/AmazonCloudWatch/latest/logs/Subscriptions.html). One alarm per signal:
 * the number of alarms does not grow with the number of clusters or log groups.
 */
export class Operations extends Construct {
  public readonly alarms: IAlarm[] = [];
  public readonly dashboard: Dashboard;
  /** Where every alarm goes. */
  public readonly topic: ITopic;
  public readonly key: IKey;

  constructor(scope: Construct, id: string, props: OperationsProps) {
    super(scope, id);
    const stack = Stack.of(this);
    const alarmsOfThisAccount = {
      StringEquals: { 'aws:SourceAccount': stack.account },
      ArnLike: {
        'aws:SourceArn': stack.formatArn({
          service: 'cloudwatch',
          resource: 'alarm',
          resourceName: '*',
          arnFormat: ArnFormat.COLON_RESOURCE_NAME,
        }),
      },
    };
    this.key = new Key(this, 'AlarmKey', {
      description: 'karpenter-doctor alarm topic encryption',
      enableKeyRotation: true,
    });
    this.key.addToResourcePolicy(
      new PolicyStatement({
        sid: 'AllowCloudWatchAlarmsOfThisAccountToUseTheKey',
        principals: [new ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['kms:GenerateDataKey*', 'kms:Decrypt'],
        resources: ['*'],
        conditions: alarmsOfThisAccount,
      }),
    );
    const topic = new Topic(this, 'AlarmTopic', {
      displayName: 'karpenter-doctor alarms',
      masterKey: this.key,
      enforceSSL: true,
    });
    topic.addToResourcePolicy(
      new PolicyStatement({
        sid: 'AllowCloudWatchAlarmsOfThisAccountToPublish',
        principals: [new ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['sns:Publish'],
        resources: [topic.topicArn],
        conditions: alarmsOfThisAccount,
      }),
    );
    for (const email of props.alertEmails ?? []) topic.addSubscription(new EmailSubscription(email));
    NagSuppressions.addResourceSuppressions(
      topic,
      [
        {
          id: 'Serverless-SNSRedrivePolicy',
          reason:
            'Email subscriptions: a message SNS cannot deliver is counted (NumberOfNotificationsFailed, alarmed on), and a queue of undelivered emails would be read by nobody.',
        },
      ],
      true,
    );
    this.topic = topic;
    const period = props.period ?? Duration.minutes(5);
    const functionName = props.analyzer.functionName;
    const lambdaMetric = (metricName: string) =>
      new Metric({
        namespace: 'AWS/Lambda',
        metricName,
        dimensionsMap: { FunctionName: functionName },
        statistic: 'Sum',
        period,
      });
    const own = (metricName: string, label: string) =>
      new Metric({
        namespace: METRICS_NAMESPACE,
        metricName,
        dimensionsMap: { service: 'analyzer' },
        statistic: 'Sum',
        period,
        label,
      });

    const alarm = (alarmId: string, metric: IMetric, description: string) => {
      const created = new Alarm(this, alarmId, {
        metric,
        threshold: 1,
        evaluationPeriods: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: TreatMissingData.NOT_BREACHING,
        alarmDescription: description,
      });
      created.addAlarmAction(new SnsAction(topic));
      this.alarms.push(created);
      return created;
    };

    alarm(
      'AnalyzerErrors',
      props.analyzer.metricErrors({ period, statistic: 'Sum' }),
      'The analyzer failed invocations; Lambda retries them, then sends them to the failure queue.',
    );
    alarm(
      'AnalyzerThrottles',
      props.analyzer.metricThrottles({ period, statistic: 'Sum' }),
      'The analyzer hit its reserved concurrency; deliveries wait and may age out.',
    );
    alarm(
      'AsyncEventsDropped',
      lambdaMetric('AsyncEventsDropped'),
      'Lambda dropped subscription deliveries (retries exhausted or too old).',
    );
    alarm(
      'DestinationDeliveryFailures',
      lambdaMetric('DestinationDeliveryFailures'),
      'Lambda could not write a failed delivery to the failure queue.',
    );
    alarm(
      'FailureQueueDepth',
      props.failureQueue.metricApproximateNumberOfMessagesVisible({ period, statistic: 'Maximum' }),
      'Deliveries failed every retry; their errors wait in the failure queue.',
    );
    alarm(
      'PublishFailures',
      own(METRIC.publishFailures, 'publish failures'),
      'Findings could not be published to SNS or EventBridge.',
    );
    alarm(
      'NotificationsFailed',
      props.findingsTopic.metricNumberOfNotificationsFailed({ period, statistic: 'Sum' }),
      'SNS could not deliver notifications to a subscriber.',
    );

    if (props.headroom) {
      alarm(
        'HeadroomErrors',
        props.headroom.metricErrors({ period, statistic: 'Sum' }),
        'The headroom check failed; subnet headroom is not watched and quiet incidents are not resolved.',
      );
    }

    if (props.headroomFailureQueue) {
      alarm(
        'HeadroomFailureQueueDepth',
        props.headroomFailureQueue.metricApproximateNumberOfMessagesVisible({ period, statistic: 'Maximum' }),
        'Headroom runs failed every retry; their errors wait in the headroom failure queue.',
      );
    }

    if (props.remediator) {
      alarm(
        'RemediatorErrors',
        props.remediator.metricErrors({ period, statistic: 'Sum' }),
        'The remediator failed; Lambda retries it, then keeps the event and its error in the failure queue.',
      );
    }
    if (props.remediatorFailureQueue) {
      alarm(
        'RemediatorFailureQueueDepth',
        props.remediatorFailureQueue.metricApproximateNumberOfMessagesVisible({ period, statistic: 'Maximum' }),
        'Findings the remediator failed on every retry wait in its failure queue, with the error.',
      );
    }

    // One alarm for every subscription, whatever the number of log groups and clusters: a Metrics
    // Insights query sums CloudWatch Logs' DeliveryErrors over every metric of the subscription name
    // (each per-group filter's, and the account policy's), which metric math, at ten metrics per
    // alarm, could only do with one alarm per ten log groups.
    alarm(
      'SubscriptionDeliveryErrors',
      subscriptionMetric('DeliveryErrors', period, 'delivery errors'),
      'CloudWatch Logs could not deliver to the analyzer (access denied, missing function): the subscription is disabled for up to 10 minutes and its logs are skipped. The dashboard shows the log groups.',
    );

    const signalsByRule = new MathExpression({
      expression: `SEARCH('{${METRICS_NAMESPACE},rule,service} MetricName="${METRIC.signals}"', 'Sum', ${period.toSeconds()})`,
      label: '',
      period,
    });
    const findingsByRule = new MathExpression({
      expression: `SEARCH('{${METRICS_NAMESPACE},rule,service} MetricName="${METRIC.findingsPublished}"', 'Sum', ${period.toSeconds()})`,
      label: '',
      period,
    });
    this.dashboard = new Dashboard(this, 'Dashboard', {
      defaultInterval: Duration.days(1),
      widgets: [
        [
          new GraphWidget({ title: 'Findings published by rule', left: [findingsByRule], width: 12 }),
          new GraphWidget({ title: 'Signals by rule', left: [signalsByRule], width: 12 }),
        ],
        [
          new GraphWidget({
            title: 'Findings',
            left: [
              own(METRIC.findingsPublished, 'published'),
              own(METRIC.notificationsSuppressed, 'counted, not re-notified'),
              own(METRIC.duplicateBatches, 'duplicate deliveries'),
            ],
            width: 12,
          }),
        ],
        [
          new GraphWidget({
            title: 'Input',
            left: [own(METRIC.recordsProcessed, 'records')],
            right: [own(METRIC.malformedRecords, 'malformed records')],
            width: 12,
          }),
          new GraphWidget({
            title: 'Degraded',
            left: [own(METRIC.enrichmentErrors, 'enrichment errors'), own(METRIC.publishFailures, 'publish failures')],
            width: 12,
          }),
        ],
        ...(props.headroom
          ? [
              [
                new GraphWidget({
                  title: 'Free IPs per Karpenter subnet',
                  left: [search(METRIC.subnetFreeIps, 'cluster,subnet', 'Minimum', period, 'headroom')],
                  width: 8,
                }),
                new GraphWidget({
                  title: 'Free IPs per zone',
                  left: [search(METRIC.zoneFreeIps, 'cluster,zone', 'Minimum', period, 'headroom')],
                  width: 8,
                }),
                new GraphWidget({
                  title: 'Forecast: hours until a subnet runs out',
                  left: [search(METRIC.subnetHoursToExhaustion, 'cluster,subnet', 'Minimum', period, 'headroom')],
                  width: 8,
                }),
              ],
            ]
          : []),
        [
          new GraphWidget({
            title: 'Subscription delivery errors (left) and throttling (right) by log group',
            left: [subscriptionMetric('DeliveryErrors', period, '', 'LogGroupName')],
            right: [subscriptionMetric('DeliveryThrottling', period, '', 'LogGroupName')],
            width: 24,
          }),
        ],
        [
          new GraphWidget({
            title: 'Analyzer',
            left: [
              props.analyzer.metricInvocations({ period }),
              props.analyzer.metricErrors({ period }),
              props.analyzer.metricThrottles({ period }),
            ],
            right: [props.analyzer.metricDuration({ period, statistic: 'p99' })],
            width: 24,
          }),
        ],
      ],
    });
  }
}

/**
 * A CloudWatch Logs forwarding metric of every subscription named SUBSCRIPTION_NAME, summed, or one
 * series per value of `groupBy`: Metrics Insights selects by the FilterName dimension whatever other
 * dimensions the metric carries (a filter's are LogGroupName and DestinationType).
 */
function subscriptionMetric(metricName: string, period: Duration, label: string, groupBy?: string): MathExpression {
  const query = `SELECT SUM(${metricName}) FROM "AWS/Logs" WHERE FilterName = '${SUBSCRIPTION_NAME}'${groupBy ? ` GROUP BY ${groupBy}` : ''}`;
  return new MathExpression({ expression: query, usingMetrics: {}, label, period });
}

/** All metrics of one name across the values of `dimensions`, e.g. free IPs of every subnet. */
function search(
  metricName: string,
  dimensions: string,
  statistic: string,
  period: Duration,
  service: string,
): MathExpression {
  return new MathExpression({
    expression: `SEARCH('{${METRICS_NAMESPACE},${dimensions},service} MetricName="${metricName}" service="${service}"', '${statistic}', ${period.toSeconds()})`,
    label: '',
    period,
  });
}
