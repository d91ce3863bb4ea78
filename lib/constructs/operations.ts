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
  type IWidget,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Key, type IKey } from 'aws-cdk-lib/aws-kms';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { Topic, type ITopic } from 'aws-cdk-lib/aws-sns';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { METRIC, METRICS_NAMESPACE, SUBSCRIPTION_NAME } from '../../contracts/names';
import { alertEmailsSchema } from '../../contracts/config';
import { subscribeEmails } from './findings-topic';
import { requireValid } from './validate';

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
  /**
   * The dead-letter queues of the remediation rule's target and of the headroom schedule's target:
   * events EventBridge or the Scheduler could not hand to the function wait there.
   * @default - none
   */
  readonly remediationRuleDeadLetterQueue?: IQueue;
  readonly headroomScheduleDeadLetterQueue?: IQueue;
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
 * The alarms that say karpenter-doctor itself is not working, on a topic and key of their own, and a
 * dashboard of what it sees (docs/architecture.md, The operator's alarms).
 */
export class Operations extends Construct {
  public readonly alarms: IAlarm[] = [];
  public readonly dashboard: Dashboard;
  /** Where every alarm goes. */
  public readonly topic: ITopic;
  public readonly key: IKey;

  constructor(scope: Construct, id: string, props: OperationsProps) {
    super(scope, id);
    requireValid('Operations', 'alertEmails', alertEmailsSchema, props.alertEmails ?? []);
    this.key = this.alarmKey();
    this.topic = this.alarmTopic(this.key, props.alertEmails ?? []);
    const period = props.period ?? Duration.minutes(5);
    const action = new SnsAction(this.topic);
    for (const [alarmId, metric, description] of signalsOf(props, period)) {
      const alarm = new Alarm(this, alarmId, {
        metric,
        threshold: 1,
        evaluationPeriods: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: TreatMissingData.NOT_BREACHING,
        alarmDescription: description,
      });
      alarm.addAlarmAction(action);
      this.alarms.push(alarm);
    }
    this.dashboard = new Dashboard(this, 'Dashboard', {
      defaultInterval: Duration.days(1),
      widgets: dashboardRowsOf(props, period),
    });
  }

  /** The alarm topic's key: CloudWatch alarms of this account and region may use it, no other service. */
  private alarmKey(): IKey {
    const key = new Key(this, 'AlarmKey', {
      description: 'karpenter-doctor alarm topic encryption',
      enableKeyRotation: true,
    });
    key.addToResourcePolicy(
      new PolicyStatement({
        sid: 'AllowCloudWatchAlarmsOfThisAccountToUseTheKey',
        principals: [new ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['kms:GenerateDataKey*', 'kms:Decrypt'],
        resources: ['*'],
        conditions: this.alarmsOfThisAccount(),
      }),
    );
    return key;
  }

  /** The topic every alarm goes to, encrypted with `key`; only CloudWatch alarms of this account publish. */
  private alarmTopic(key: IKey, alertEmails: readonly string[]): ITopic {
    const topic = new Topic(this, 'AlarmTopic', {
      displayName: 'karpenter-doctor alarms',
      masterKey: key,
      enforceSSL: true,
    });
    topic.addToResourcePolicy(
      new PolicyStatement({
        sid: 'AllowCloudWatchAlarmsOfThisAccountToPublish',
        principals: [new ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['sns:Publish'],
        resources: [topic.topicArn],
        conditions: this.alarmsOfThisAccount(),
      }),
    );
    subscribeEmails(topic, alertEmails);
    return topic;
  }

  /** The condition that names CloudWatch alarms of this account and region, and nothing else. */
  private alarmsOfThisAccount() {
    const stack = Stack.of(this);
    return {
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
  }
}

/** One alarm: its construct id, the metric whose sum (or maximum) of 1 or more fires it, and what it means. */
type Signal = readonly [id: string, metric: IMetric, description: string];

/** The signals alarmed on, one alarm each: the analyzer's and, when they exist, the other functions'. */
function signalsOf(props: OperationsProps, period: Duration): Signal[] {
  const sum = { period, statistic: 'Sum' };
  const max = { period, statistic: 'Maximum' };
  const lambdaMetric = (metricName: string) =>
    new Metric({
      namespace: 'AWS/Lambda',
      metricName,
      dimensionsMap: { FunctionName: props.analyzer.functionName },
      ...sum,
    });
  const {
    headroom,
    headroomFailureQueue,
    headroomScheduleDeadLetterQueue,
    remediator,
    remediatorFailureQueue,
    remediationRuleDeadLetterQueue,
  } = props;
  return [
    [
      'AnalyzerErrors',
      props.analyzer.metricErrors(sum),
      'The analyzer failed invocations; Lambda retries them, then sends them to the failure queue.',
    ],
    [
      'AnalyzerThrottles',
      props.analyzer.metricThrottles(sum),
      'The analyzer hit its reserved concurrency; deliveries wait and may age out.',
    ],
    [
      'AsyncEventsDropped',
      lambdaMetric('AsyncEventsDropped'),
      'Lambda dropped subscription deliveries (retries exhausted or too old).',
    ],
    [
      'DestinationDeliveryFailures',
      lambdaMetric('DestinationDeliveryFailures'),
      'Lambda could not write a failed delivery to the failure queue.',
    ],
    [
      'FailureQueueDepth',
      props.failureQueue.metricApproximateNumberOfMessagesVisible(max),
      'Deliveries failed every retry; their errors wait in the failure queue.',
    ],
    [
      'PublishFailures',
      analyzerMetric(METRIC.publishFailures, 'publish failures', period),
      'Findings could not be published to SNS or EventBridge.',
    ],
    [
      'NotificationsFailed',
      props.findingsTopic.metricNumberOfNotificationsFailed(sum),
      'SNS could not deliver notifications to a subscriber.',
    ],
    ...(headroom
      ? [
          [
            'HeadroomErrors',
            headroom.metricErrors(sum),
            'The headroom check failed; subnet headroom is not watched and quiet incidents are not resolved.',
          ] as const,
        ]
      : []),
    ...(headroomFailureQueue
      ? [
          [
            'HeadroomFailureQueueDepth',
            headroomFailureQueue.metricApproximateNumberOfMessagesVisible(max),
            'Headroom runs failed every retry; their errors wait in the headroom failure queue.',
          ] as const,
        ]
      : []),
    ...(headroomScheduleDeadLetterQueue
      ? [
          [
            'HeadroomScheduleDeadLetterQueueDepth',
            headroomScheduleDeadLetterQueue.metricApproximateNumberOfMessagesVisible(max),
            'The Scheduler could not start the headroom check (throttled, denied); the runs wait in its dead-letter queue.',
          ] as const,
        ]
      : []),
    ...(remediationRuleDeadLetterQueue
      ? [
          [
            'RemediationRuleDeadLetterQueueDepth',
            remediationRuleDeadLetterQueue.metricApproximateNumberOfMessagesVisible(max),
            'EventBridge could not hand findings to the remediator (throttled, denied); they wait in the rule target dead-letter queue.',
          ] as const,
        ]
      : []),
    ...(remediator
      ? [
          [
            'RemediatorErrors',
            remediator.metricErrors(sum),
            'The remediator failed; Lambda retries it, then keeps the event and its error in the failure queue.',
          ] as const,
        ]
      : []),
    ...(remediatorFailureQueue
      ? [
          [
            'RemediatorFailureQueueDepth',
            remediatorFailureQueue.metricApproximateNumberOfMessagesVisible(max),
            'Findings the remediator failed on every retry wait in its failure queue, with the error.',
          ] as const,
        ]
      : []),
    // One alarm for every subscription, whatever the number of log groups and clusters: a Metrics
    // Insights query sums CloudWatch Logs' DeliveryErrors over every metric of the subscription name
    // (each per-group filter's, and the account policy's), which metric math, at ten metrics per
    // alarm, could only do with one alarm per ten log groups.
    [
      'SubscriptionDeliveryErrors',
      subscriptionMetric('DeliveryErrors', period, 'delivery errors'),
      'CloudWatch Logs could not deliver to the analyzer (access denied, missing function): the subscription is disabled for up to 10 minutes and its logs are skipped. The dashboard shows the log groups.',
    ],
  ];
}

/** The analyzer's own metric (Powertools EMF, `service: analyzer`), summed. */
function analyzerMetric(metricName: string, label: string, period: Duration): Metric {
  return new Metric({
    namespace: METRICS_NAMESPACE,
    metricName,
    dimensionsMap: { service: 'analyzer' },
    statistic: 'Sum',
    period,
    label,
  });
}

/** The dashboard, row by row: findings, input, degradation, headroom (when it runs), subscriptions, the analyzer. */
function dashboardRowsOf(props: OperationsProps, period: Duration): IWidget[][] {
  const own = (metricName: string, label: string) => analyzerMetric(metricName, label, period);
  const byRule = (metricName: string) =>
    new MathExpression({
      expression: `SEARCH('{${METRICS_NAMESPACE},rule,service} MetricName="${metricName}"', 'Sum', ${period.toSeconds()})`,
      label: '',
      period,
    });
  return [
    [
      new GraphWidget({ title: 'Findings published by rule', left: [byRule(METRIC.findingsPublished)], width: 12 }),
      new GraphWidget({ title: 'Signals by rule', left: [byRule(METRIC.signals)], width: 12 }),
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
    ...(props.headroom ? [headroomRow(period)] : []),
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
  ];
}

/** Free IPs per subnet and per zone, and the forecast hours until a subnet runs out. */
function headroomRow(period: Duration): IWidget[] {
  return [
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
  ];
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
