import { createHash } from 'node:crypto';
import { CfnOutput, Duration, Stack, type StackProps } from 'aws-cdk-lib';
import { EventBus, type IEventBus } from 'aws-cdk-lib/aws-events';
import { CfnSubscriptionFilter, LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import type { KarpenterDoctorConfig, OrganizationConfig } from '../contracts/config';
import { functionSettingsOf } from '../contracts/settings';
import { AnalyzerFunction } from './constructs/analyzer-function';
import { AutoModeLogDelivery } from './constructs/auto-mode-log-delivery';
import { FindingsTopic } from './constructs/findings-topic';
import { ClusterPoller } from './constructs/cluster-poller';
import { HeadroomCheck } from './constructs/headroom-check';
import { IncidentTable } from './constructs/incident-table';
import type { FunctionWiring } from './constructs/lambda-function';
import { LogSubscriptions, subscriptionModeOf } from './constructs/log-subscriptions';
import { Operations } from './constructs/operations';
import { allowAssumingSpokeRole, OrganizationStream, type DestinationAudience } from './constructs/organization-stream';
import { Remediation } from './constructs/remediation';
import { EVENT_SOURCE } from '../contracts/events';
import { autoModeLogGroupOf, createsAutoModeLogs, subscribedLogGroupsOf } from '../contracts/auto-mode-logs';
import { ENRICHMENT_ROLE_NAME, REMEDIATION_ROLE_NAME } from '../contracts/organization';

export interface KarpenterDoctorStackProps extends StackProps {
  /** The validated configuration (see contracts/config.ts). */
  readonly config: KarpenterDoctorConfig;
}

/**
 * The deployable product: subscription filters on the configured log groups feed the analyzer,
 * which keeps incidents in its table and publishes findings to the topic and the event bus; alarms
 * and a dashboard watch the analyzer itself.
 */
export class KarpenterDoctorStack extends Stack {
  public readonly incidents: IncidentTable;
  public readonly findings: FindingsTopic;
  public readonly eventBus: IEventBus;
  public readonly analyzer: AnalyzerFunction;
  public readonly subscriptions: LogSubscriptions;
  public readonly operations: Operations;
  /** Undefined when `headroom.enabled` is false. */
  public readonly headroom?: HeadroomCheck;
  /** One poller per cluster whose `poll` block is enabled, by cluster name. */
  public readonly pollers = new Map<string, ClusterPoller>();
  /** The Auto Mode compute log delivery of each cluster with `autoModeLogs`, by cluster name. */
  public readonly autoModeLogs = new Map<string, AutoModeLogDelivery>();
  /** Undefined while every remediation action is off. */
  public readonly remediation?: Remediation;
  /** The organisation's destination and stream; undefined without an `organization` section. */
  public readonly organization?: OrganizationStream;

  constructor(scope: Construct, id: string, props: KarpenterDoctorStackProps) {
    super(scope, id, props);
    const { config } = props;

    this.incidents = new IncidentTable(this, 'Incidents', { retain: config.retainTable });
    this.findings = new FindingsTopic(this, 'Findings', { alertEmails: config.alertEmails });
    this.eventBus =
      config.eventBusName === 'default'
        ? EventBus.fromEventBusName(this, 'EventBus', 'default')
        : new EventBus(this, 'EventBus', { eventBusName: config.eventBusName });

    // What every function is wired to, and the settings it reads.
    const wiring: FunctionWiring = {
      table: this.incidents.table,
      topic: this.findings.topic,
      topicKey: this.findings.key,
      eventBus: this.eventBus,
      logRetention: config.logRetentionDays as RetentionDays,
    };
    const settings = functionSettingsOf(config);
    this.analyzer = new AnalyzerFunction(this, 'Analyzer', {
      ...wiring,
      settings,
      reservedConcurrency: config.reservedConcurrency,
    });
    if (config.headroom.enabled) {
      this.headroom = new HeadroomCheck(this, 'Headroom', { ...wiring, settings });
    }
    for (const cluster of config.clusters) {
      if (!cluster.poll?.enabled) continue;
      // The id follows the cluster name: reordering the clusters replaces no poller.
      const id = `Poller${constructIdOf(cluster.name)}`;
      this.pollers.set(cluster.name, new ClusterPoller(this, id, { ...wiring, settings, cluster }));
    }
    if (Object.values(config.remediation).some((action) => action.mode !== 'off')) {
      this.remediation = new Remediation(this, 'Remediation', { ...wiring, eventSource: EVENT_SOURCE, settings });
    }

    for (const cluster of config.clusters) {
      if (!createsAutoModeLogs(cluster)) continue;
      this.autoModeLogs.set(
        cluster.name,
        new AutoModeLogDelivery(this, `AutoModeLogs${constructIdOf(cluster.name)}`, {
          clusterName: cluster.name,
          logGroupName: autoModeLogGroupOf(cluster),
          retention: config.logRetentionDays as RetentionDays,
        }),
      );
    }
    this.subscriptions = this.subscribeClustersOfThisAccount(config);
    this.operations = new Operations(this, 'Operations', {
      analyzer: this.analyzer.function,
      headroom: this.headroom?.function,
      remediator: this.remediation?.function,
      failureQueue: this.analyzer.failureQueue,
      headroomFailureQueue: this.headroom?.failureQueue,
      remediatorFailureQueue: this.remediation?.failureQueue,
      headroomScheduleDeadLetterQueue: this.headroom?.deadLetterQueue,
      remediationRuleDeadLetterQueue: this.remediation?.deadLetterQueue,
      findingsTopic: this.findings.topic,
      alertEmails: config.alertEmails,
    });

    if (config.organization) {
      this.organization = this.receiveFromOrganization(config.organization, config.reservedConcurrency);
    }
    this.addOutputs();
  }

  /**
   * Subscribes the clusters of this account (those of other accounts are subscribed by their spoke
   * stacks). Called once the functions exist, so that the account policy can exclude every log group
   * the stack creates: they are the functions' own, and a function subscribed to its own log feeds on itself.
   */
  private subscribeClustersOfThisAccount(config: KarpenterDoctorConfig): LogSubscriptions {
    const created = new Map([...this.autoModeLogs.values()].map((d) => [d.logGroup.node.path, d.logGroup]));
    const ownLogGroups = this.node
      .findAll()
      .filter((c): c is LogGroup => c instanceof LogGroup && !created.has(c.node.path))
      .map((group) => group.logGroupName);
    const local = config.clusters
      .filter((cluster) => cluster.account === undefined)
      .map((cluster) => ({ ...cluster, logGroups: subscribedLogGroupsOf(cluster) }));
    const subscriptions = new LogSubscriptions(this, 'Subscriptions', {
      target: { function: this.analyzer.function },
      clusters: local,
      mode: subscriptionModeOf(local, config.subscriptions),
      exclude: [...ownLogGroups, ...config.subscriptions.exclude],
      filterPattern: config.subscriptions.filterPattern,
    });
    // A group the stack creates is named, not referenced, by its filter: it must exist first.
    const byName = new Map([...this.autoModeLogs.values()].map((d) => [d.logGroupName, d.logGroup]));
    for (const filter of subscriptions.filters) {
      const group = byName.get((filter.node.defaultChild as CfnSubscriptionFilter).logGroupName);
      if (group) filter.node.addDependency(group);
    }
    return subscriptions;
  }

  /**
   * The organisation's destination and stream, feeding the analyzer and alarmed on like the rest; the
   * central functions read (and the remediator changes) other accounts through the spoke roles.
   */
  private receiveFromOrganization(org: OrganizationConfig, analyzerConcurrency: number): OrganizationStream {
    const audience: DestinationAudience = org.organizationId
      ? { organizationId: org.organizationId }
      : { accounts: org.accounts ?? [] };
    const organization = new OrganizationStream(this, 'Organization', {
      analyzer: this.analyzer.function,
      analyzerConcurrency,
      audience,
      shards: org.shards,
      retention: Duration.hours(org.retentionHours),
      batchSize: org.batchSize,
      parallelizationFactor: org.parallelizationFactor,
      retryAttempts: org.retryAttempts,
      maxRecordAge: Duration.hours(org.maxRecordAgeHours),
    });
    organization.alarmTo(this.operations.topic);
    allowAssumingSpokeRole(this.analyzer.function, ENRICHMENT_ROLE_NAME, audience);
    if (this.headroom) allowAssumingSpokeRole(this.headroom.function, ENRICHMENT_ROLE_NAME, audience);
    if (this.remediation) allowAssumingSpokeRole(this.remediation.function, REMEDIATION_ROLE_NAME, audience);
    new CfnOutput(this, 'DestinationArn', {
      value: organization.destinationArn,
      description: "The CloudWatch Logs destination the spoke accounts' subscriptions send to",
    });
    return organization;
  }

  /** What an operator or another stack needs: where findings and alarms go, and the names to look for. */
  private addOutputs(): void {
    new CfnOutput(this, 'FindingsTopicArn', {
      value: this.findings.topic.topicArn,
      description: 'Subscribe chat, SQS or Lambda here',
    });
    new CfnOutput(this, 'AlarmTopicArn', {
      value: this.operations.topic.topicArn,
      description: "karpenter-doctor's own alarms go to this topic",
    });
    new CfnOutput(this, 'EventBusName', {
      value: this.eventBus.eventBusName,
      description: 'Karpenter Finding events go to this bus',
    });
    new CfnOutput(this, 'IncidentTableName', { value: this.incidents.table.tableName });
    new CfnOutput(this, 'AnalyzerFunctionName', { value: this.analyzer.function.functionName });
    new CfnOutput(this, 'DashboardName', { value: this.operations.dashboard.dashboardName });
  }
}

/** A construct id that follows a cluster's name: reordering the clusters replaces nothing. */
const constructIdOf = (clusterName: string): string =>
  `${clusterName.replace(/[^A-Za-z0-9]/g, '')}${createHash('sha256').update(clusterName).digest('hex').slice(0, 6)}`;
