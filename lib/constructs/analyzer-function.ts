import { Duration, Stack } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { IEventBus } from 'aws-cdk-lib/aws-events';
import { PolicyStatement, type IRole } from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { ILogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { EVENT_SOURCE } from '../../contracts/events';
import { ENV } from '../../contracts/names';
import { bundledFunction, grantPublishing, onFailureQueue, suppressOnRole } from './lambda-function';
import { requireClusters, requireInteger, requireLimits, requireWindows } from './validate';

/** One cluster as the functions need it; the log groups are subscribed by `LogSubscriptions`. */
export interface AnalyzerCluster {
  readonly name: string;
  readonly discoveryTagKey?: string;
  readonly discoveryTagValue?: string;
  readonly systemNodegroup?: string;
  readonly systemAutoScalingGroup?: string;
}

export interface AnalyzerFunctionProps {
  readonly table: ITable;
  readonly topic: ITopic;
  /** The topic's key: publishing to an encrypted topic needs GenerateDataKey and Decrypt on it. */
  readonly topicKey: IKey;
  readonly eventBus: IEventBus;
  readonly clusters: readonly AnalyzerCluster[];
  /** Lifecycle windows. */
  readonly suppressMinutes: number;
  readonly renotifyMinutes: number;
  readonly retentionDays: number;
  /**
   * Retention of the function's own log group.
   * @default RetentionDays.ONE_MONTH
   */
  readonly logRetention?: RetentionDays;
  /**
   * Concurrent executions reserved for (and capped at) the analyzer; 0 stops it.
   * @default 5
   */
  readonly reservedConcurrency?: number;
  /**
   * Retries of a failed asynchronous invocation before it goes to the failure queue.
   * @default 2
   */
  readonly retryAttempts?: number;
  /**
   * How long a subscription delivery may wait for a successful run.
   * @default Duration.hours(6)
   */
  readonly maxEventAge?: Duration;
  /**
   * Notices per cluster and incidents recorded per delivery.
   * @default - 5 notices and 50 incidents (DEFAULT_LIMITS)
   */
  readonly limits?: { readonly maxNoticesPerCluster: number; readonly maxIncidentsPerDelivery: number };
  /**
   * Which records of a shared application log group are Karpenter's.
   * @default - namespaces karpenter and kube-system, containers controller and karpenter
   */
  readonly sources?: { readonly namespaces: readonly string[]; readonly containers: readonly string[] };
}

/**
 * The analyzer's AWS half (and the SDK) loads on the first batch with an incident, its stream half
 * (and Powertools batch) on the first Kinesis batch: never on a cold start.
 */
export const ANALYZER_LAZY_MODULES = ['analyzer-aws', 'stream-analyzer'];

/** Lambda's limit on all environment variables of a function together. */
const MAX_ENVIRONMENT_BYTES = 4 * 1024;

/**
 * The analyzer Lambda: Node.js 24 on arm64, bundled by the local esbuild (no Docker) with the AWS
 * SDK inside, so what runs is what the tests ran. Its own log group with retention, reserved
 * concurrency, explicit asynchronous retry settings and an encrypted SQS on-failure destination that
 * keeps the error of every dropped delivery. Its role can describe what the enrichment reads, write
 * its own table, publish to its own topic and bus, and nothing else.
 */
export class AnalyzerFunction extends Construct {
  public readonly function: IFunction;
  public readonly role: IRole;
  public readonly logGroup: ILogGroup;
  public readonly failureQueue: IQueue;

  constructor(scope: Construct, id: string, props: AnalyzerFunctionProps) {
    super(scope, id);
    validateAnalyzerProps(props);
    const stack = Stack.of(this);

    const environment: Record<string, string> = {
      [ENV.tableName]: props.table.tableName,
      [ENV.topicArn]: props.topic.topicArn,
      [ENV.eventBusName]: props.eventBus.eventBusName,
      [ENV.eventSource]: EVENT_SOURCE,
      [ENV.clusters]: JSON.stringify(props.clusters.map(compactCluster)),
      [ENV.suppressMinutes]: String(props.suppressMinutes),
      [ENV.renotifyAfterMinutes]: String(props.renotifyMinutes),
      [ENV.retentionDays]: String(props.retentionDays),
      ...(props.limits ? { [ENV.limits]: JSON.stringify(props.limits) } : {}),
      ...(props.sources ? { [ENV.sources]: JSON.stringify(props.sources) } : {}),
      POWERTOOLS_SERVICE_NAME: 'analyzer',
    };
    const clustersBytes = Buffer.byteLength(environment[ENV.clusters]!);
    if (clustersBytes > MAX_ENVIRONMENT_BYTES / 2) {
      throw new Error(
        `The cluster settings take ${clustersBytes} bytes of the analyzer's 4 KB environment; configure fewer clusters per stack`,
      );
    }

    const lambda = bundledFunction(this, {
      handlerFile: 'analyzer.ts',
      lazyModules: ANALYZER_LAZY_MODULES,
      description: 'karpenter-doctor analyzer: Karpenter logs and Kubernetes events in, findings out',
      environment,
      timeout: Duration.seconds(60),
      reservedConcurrency: props.reservedConcurrency ?? 5,
      logRetention: props.logRetention,
    });
    const fn = lambda.function;
    const role = lambda.role;
    this.function = fn;
    this.role = role;
    this.logGroup = lambda.logGroup;

    this.failureQueue = onFailureQueue(this, fn, {
      retryAttempts: props.retryAttempts ?? 2,
      maxEventAge: props.maxEventAge ?? Duration.hours(6),
      of: "the analyzer's asynchronous invocations, with the error of every delivery that failed all retries",
    });

    props.table.grant(role, 'dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem');
    grantPublishing(role, props);
    role.addToPrincipalPolicy(
      new PolicyStatement({
        sid: 'DescribeNetworkAndGroups',
        actions: ['ec2:DescribeSubnets', 'ec2:DescribeVpcs', 'autoscaling:DescribeAutoScalingGroups'],
        resources: ['*'],
      }),
    );
    const clusterArns = props.clusters.map((c) =>
      stack.formatArn({ service: 'eks', resource: 'cluster', resourceName: c.name }),
    );
    const nodegroupArns = props.clusters.map((c) =>
      stack.formatArn({ service: 'eks', resource: 'nodegroup', resourceName: `${c.name}/*/*` }),
    );
    role.addToPrincipalPolicy(
      new PolicyStatement({
        sid: 'DescribeClusters',
        actions: ['eks:DescribeCluster', 'eks:ListNodegroups'],
        resources: clusterArns,
      }),
    );
    role.addToPrincipalPolicy(
      new PolicyStatement({ sid: 'DescribeNodegroups', actions: ['eks:DescribeNodegroup'], resources: nodegroupArns }),
    );
    const quotaArn = stack.formatArn({
      service: 'servicequotas',
      resource: 'ec2',
      resourceName: '*',
      arnFormat: undefined,
    });
    role.addToPrincipalPolicy(
      new PolicyStatement({ sid: 'ReadEc2Quotas', actions: ['servicequotas:GetServiceQuota'], resources: [quotaArn] }),
    );

    suppressOnRole(role, [
      {
        id: 'AwsSolutions-IAM5',
        reason:
          'ec2:DescribeSubnets, ec2:DescribeVpcs and autoscaling:DescribeAutoScalingGroups support no resource-level permissions and need Resource "*" (Service Authorization Reference: https://docs.aws.amazon.com/service-authorization/latest/reference/list_amazonec2.html and list_amazonec2autoscaling.html). They are read-only and listed by name, no Describe* wildcard.',
        appliesTo: ['Resource::*'],
      },
      {
        id: 'AwsSolutions-IAM5',
        reason:
          'Node group ARNs end in a generated id (nodegroup/<cluster>/<name>/<uuid>), so eks:DescribeNodegroup is scoped to the configured clusters with wildcards only for name and id.',
        appliesTo: [
          {
            regex: '/^Resource::arn:<AWS::Partition>:eks:<AWS::Region>:<AWS::AccountId>:nodegroup\\/.*\\/\\*\\/\\*$/',
          },
        ],
      },
      {
        id: 'AwsSolutions-IAM5',
        reason:
          'The EC2 quota to read is chosen at run time from the instance family in the failure (standard, G/VT, P, spot); servicequotas:GetServiceQuota is scoped to EC2 quotas of this account and region.',
        appliesTo: [
          { regex: '/^Resource::arn:<AWS::Partition>:servicequotas:<AWS::Region>:<AWS::AccountId>:ec2\\/\\*$/' },
        ],
      },
    ]);
  }
}

/** Fails the synth on props the analyzer cannot run with, naming the prop and what is allowed. */
function validateAnalyzerProps(props: AnalyzerFunctionProps): void {
  const name = 'AnalyzerFunction';
  requireClusters(name, props.clusters);
  requireWindows(name, props);
  requireLimits(name, props.limits);
  if (props.reservedConcurrency !== undefined) {
    requireInteger(name, 'reservedConcurrency', props.reservedConcurrency, 0, 1000);
  }
}

/** The cluster entry as the analyzer's CLUSTERS variable carries it: only the keys that are set. */
function compactCluster(cluster: AnalyzerCluster): Record<string, string> {
  const entry: Record<string, string> = { name: cluster.name };
  if (cluster.discoveryTagKey) entry.discoveryTagKey = cluster.discoveryTagKey;
  if (cluster.discoveryTagValue) entry.discoveryTagValue = cluster.discoveryTagValue;
  if (cluster.systemNodegroup) entry.systemNodegroup = cluster.systemNodegroup;
  if (cluster.systemAutoScalingGroup) entry.systemAutoScalingGroup = cluster.systemAutoScalingGroup;
  return entry;
}
