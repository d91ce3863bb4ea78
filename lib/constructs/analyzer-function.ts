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
import { ENV } from '../../contracts/names';
import type { FunctionSettings } from '../../contracts/settings';
import { bundledFunction, grantPublishing, onFailureQueue, suppressOnRole } from './lambda-function';
import { requireInteger, requireSettings } from './validate';

export interface AnalyzerFunctionProps {
  readonly table: ITable;
  readonly topic: ITopic;
  /** The topic's key: publishing to an encrypted topic needs GenerateDataKey and Decrypt on it. */
  readonly topicKey: IKey;
  readonly eventBus: IEventBus;
  /** Clusters, windows, limits and sources, as the function reads them. */
  readonly settings: FunctionSettings;
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
}

/**
 * The analyzer's AWS half (and the SDK) loads on the first batch with an incident, its stream half
 * (and Powertools batch) on the first Kinesis batch: never on a cold start.
 */
export const ANALYZER_LAZY_MODULES = ['analyzer-aws', 'stream-analyzer'];

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

    const lambda = bundledFunction(this, {
      handlerFile: 'analyzer.ts',
      lazyModules: ANALYZER_LAZY_MODULES,
      description: 'karpenter-doctor analyzer: Karpenter logs and Kubernetes events in, findings out',
      environment: {
        [ENV.tableName]: props.table.tableName,
        [ENV.topicArn]: props.topic.topicArn,
        [ENV.eventBusName]: props.eventBus.eventBusName,
        POWERTOOLS_SERVICE_NAME: 'analyzer',
      },
      settings: props.settings,
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
    const clusters = props.settings.clusters;
    const clusterArns = clusters.map((c) =>
      stack.formatArn({ service: 'eks', resource: 'cluster', resourceName: c.name }),
    );
    const nodegroupArns = clusters.map((c) =>
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
  requireSettings(name, props.settings);
  if (props.reservedConcurrency !== undefined) {
    requireInteger(name, 'reservedConcurrency', props.reservedConcurrency, 0, 1000);
  }
}
