import { Duration, Stack } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { PolicyStatement, Role, ServicePrincipal, type IRole } from 'aws-cdk-lib/aws-iam';
import { Stream, StreamEncryption, StreamMode, type IStream } from 'aws-cdk-lib/aws-kinesis';
import { Key, type IKey } from 'aws-cdk-lib/aws-kms';
import { StartingPosition, type IFunction } from 'aws-cdk-lib/aws-lambda';
import { KinesisEventSource, SqsDlq } from 'aws-cdk-lib/aws-lambda-event-sources';
import { CfnDestination } from 'aws-cdk-lib/aws-logs';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { NagSuppressions } from 'cdk-nag';
import { Construct } from 'constructs';
import { accountsSchema, parallelizationFactorSchema, shardsSchema } from '../../contracts/config';
import { DESTINATION_NAME } from '../../contracts/organization';
import { deadLetterQueue, suppressOnRole } from './lambda-function';
import { requireValid } from './validate';

/** Who may subscribe log groups to the destination: the whole organisation, or listed accounts. */
export type DestinationAudience =
  | { readonly organizationId: string; readonly accounts?: undefined }
  | { readonly accounts: readonly string[]; readonly organizationId?: undefined };

export interface OrganizationStreamProps {
  /** The analyzer, which consumes the stream. */
  readonly analyzer: IFunction;
  /** Concurrent executions reserved for the analyzer: shards × parallelisation factor must fit in it. */
  readonly analyzerConcurrency: number;
  readonly audience: DestinationAudience;
  /**
   * Shards of a provisioned stream (each takes 1 MB/s or 1,000 records/s in, 2 MB/s out).
   * @default - on-demand: the stream scales its shards with the traffic
   */
  readonly shards?: number;
  /** @default Duration.hours(24) */
  readonly retention?: Duration;
  /**
   * Records per invocation (each record is one CloudWatch Logs delivery of up to about 1 MB of log data).
   * @default 100
   */
  readonly batchSize?: number;
  /**
   * Concurrent batches per shard (1–10); the analyzer runs shards × this many at a time.
   * @default 1
   */
  readonly parallelizationFactor?: number;
  /**
   * Retries of a failed batch (bisected on each) before its position goes to the failure queue.
   * @default 3
   */
  readonly retryAttempts?: number;
  /** Records older than this are sent to the failure queue instead of processed. @default Duration.hours(6) */
  readonly maxRecordAge?: Duration;
  /** How long the mapping gathers records before it invokes. @default Duration.seconds(5) */
  readonly maxBatchingWindow?: Duration;
}

/**
 * The organisation's way in: a CloudWatch Logs destination on an encrypted Kinesis stream, and the
 * analyzer's mapping from it (docs/architecture.md, The organisation stream).
 */
export class OrganizationStream extends Construct {
  public readonly stream: IStream;
  public readonly key: IKey;
  public readonly deliveryRole: IRole;
  public readonly destination: CfnDestination;
  /** Where the mapping sends the shard and sequence numbers of batches it gave up on. */
  public readonly failureQueue: IQueue;
  /** The destination's ARN, which the spokes' subscriptions name. */
  public readonly destinationArn: string;
  private readonly analyzer: IFunction;

  constructor(scope: Construct, id: string, props: OrganizationStreamProps) {
    super(scope, id);
    validateOrganizationStreamProps(props);
    this.analyzer = props.analyzer;

    this.key = new Key(this, 'Key', {
      enableKeyRotation: true,
      description: 'karpenter-doctor: encrypts the organisation log stream',
    });
    this.stream = new Stream(this, 'Stream', {
      streamMode: props.shards === undefined ? StreamMode.ON_DEMAND : StreamMode.PROVISIONED,
      ...(props.shards === undefined ? {} : { shardCount: props.shards }),
      encryption: StreamEncryption.KMS,
      encryptionKey: this.key,
      retentionPeriod: props.retention ?? Duration.hours(24),
    });
    NagSuppressions.addResourceSuppressions(this.stream, [
      {
        id: 'AwsSolutions-KDS3',
        reason:
          "The stream carries the log data of every account of the organisation: it is encrypted with a customer managed key whose policy this stack controls, which rotates, and whose use CloudTrail records. Its cost per producer and consumer request is accepted; the AWS managed aws/kinesis key's policy cannot be narrowed.",
      },
    ]);

    this.deliveryRole = this.deliveryRoleFor(props.audience);
    const stack = Stack.of(this);
    this.destinationArn = `arn:${stack.partition}:logs:${stack.region}:${stack.account}:destination:${DESTINATION_NAME}`;
    this.destination = this.destinationFor(props.audience);
    this.failureQueue = deadLetterQueue(
      this,
      'FailureQueue',
      'the organisation stream (the event source mapping sends the shard and sequence numbers of every batch it gave up on)',
    );
    this.feedAnalyzer(props);
  }

  /**
   * The role CloudWatch Logs assumes to put what a subscription delivers into the stream: for log data
   * of this region from the audience's accounts (and this one), only PutRecord(s) and the key.
   */
  private deliveryRoleFor(audience: DestinationAudience): IRole {
    const stack = Stack.of(this);
    const sources = audience.accounts
      ? [...new Set([...audience.accounts, stack.account])].map((account) =>
          stack.formatArn({ service: 'logs', account, resource: '*' }),
        )
      : [stack.formatArn({ service: 'logs', account: '*', resource: '*' })];
    const role = new Role(this, 'DeliveryRole', {
      assumedBy: new ServicePrincipal('logs.amazonaws.com').withConditions({
        StringLike: { 'aws:SourceArn': sources },
      }),
      description: 'CloudWatch Logs puts the deliveries of the organisation destination into its stream',
    });
    role.addToPrincipalPolicy(
      new PolicyStatement({
        sid: 'PutRecords',
        actions: ['kinesis:PutRecord', 'kinesis:PutRecords'],
        resources: [this.stream.streamArn],
      }),
    );
    role.addToPrincipalPolicy(
      new PolicyStatement({ sid: 'EncryptRecords', actions: ['kms:GenerateDataKey'], resources: [this.key.keyArn] }),
    );
    return role;
  }

  /** The destination on the stream, whose policy lets only the audience subscribe to it. */
  private destinationFor(audience: DestinationAudience): CfnDestination {
    const statement = {
      Sid: audience.organizationId ? 'OrganizationSubscribes' : 'AccountsSubscribe',
      Effect: 'Allow',
      Principal: audience.organizationId ? '*' : { AWS: [...audience.accounts!] },
      Action: ['logs:PutSubscriptionFilter', 'logs:PutAccountPolicy'],
      Resource: this.destinationArn,
      ...(audience.organizationId
        ? { Condition: { StringEquals: { 'aws:PrincipalOrgID': [audience.organizationId] } } }
        : {}),
    };
    const destination = new CfnDestination(this, 'Destination', {
      destinationName: DESTINATION_NAME,
      roleArn: this.deliveryRole.roleArn,
      targetArn: this.stream.streamArn,
      destinationPolicy: Stack.of(this).toJsonString({ Version: '2012-10-17', Statement: [statement] }),
    });
    // CloudWatch Logs checks that it can put into the stream when the destination is created.
    destination.node.addDependency(this.deliveryRole);
    return destination;
  }

  /** The event source mapping through which the analyzer reads the stream. */
  private feedAnalyzer(props: OrganizationStreamProps): void {
    props.analyzer.addEventSource(
      new KinesisEventSource(this.stream, {
        startingPosition: StartingPosition.TRIM_HORIZON,
        batchSize: props.batchSize ?? 100,
        maxBatchingWindow: props.maxBatchingWindow ?? Duration.seconds(5),
        parallelizationFactor: props.parallelizationFactor ?? 1,
        bisectBatchOnError: true,
        reportBatchItemFailures: true,
        retryAttempts: props.retryAttempts ?? 3,
        maxRecordAge: props.maxRecordAge ?? Duration.hours(6),
        onFailure: new SqsDlq(this.failureQueue),
      }),
    );
  }

  /** Alarms on the stream's consumer, to `topic`: records waiting too long, batches given up on. */
  alarmTo(topic: ITopic, maxIteratorAge = Duration.minutes(10)): void {
    const action = new SnsAction(topic);
    new Alarm(this, 'IteratorAgeAlarm', {
      alarmDescription: `The analyzer is more than ${maxIteratorAge.toMinutes()} minutes behind the organisation stream.`,
      metric: this.analyzer.metric('IteratorAge', { statistic: 'Maximum', period: Duration.minutes(5) }),
      threshold: maxIteratorAge.toMilliseconds(),
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    }).addAlarmAction(action);
    new Alarm(this, 'FailureQueueAlarm', {
      alarmDescription: 'The organisation stream gave up on records; their positions wait in its failure queue.',
      metric: this.failureQueue.metricApproximateNumberOfMessagesVisible({
        statistic: 'Maximum',
        period: Duration.minutes(5),
      }),
      threshold: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    }).addAlarmAction(action);
  }
}

/**
 * Fails the synth on props the stream cannot run with: shards and parallelisation factor by the
 * configuration schema; and, what the schema cannot know, that the analyzer may run as many batches
 * at a time as the mapping hands it (a provisioned stream's shards × the factor; an on-demand stream
 * scales its shards itself, and Lambda throttles what does not fit).
 */
function validateOrganizationStreamProps(props: OrganizationStreamProps): void {
  const name = 'OrganizationStream';
  const factor = props.parallelizationFactor ?? 1;
  requireValid(name, 'parallelizationFactor', parallelizationFactorSchema, factor);
  if (props.shards !== undefined) requireValid(name, 'shards', shardsSchema, props.shards);
  if (props.shards !== undefined && props.shards * factor > props.analyzerConcurrency) {
    throw new Error(
      `${name}: ${props.shards} shards × parallelizationFactor ${factor} = ${props.shards * factor} concurrent batches, ` +
        `more than the analyzer's reserved concurrency of ${props.analyzerConcurrency}: raise reservedConcurrency or lower one of them`,
    );
  }
  if (props.audience.accounts !== undefined) {
    requireValid(name, 'audience.accounts', accountsSchema, props.audience.accounts);
  }
}

/**
 * Lets `fn` assume `roleName` in the organisation's accounts: the listed accounts' roles by ARN, or
 * that role name in any account of the organisation (`aws:ResourceOrgID`). The spoke's trust policy
 * adds its own conditions (the central account, the external id).
 */
export function allowAssumingSpokeRole(fn: IFunction, roleName: string, audience: DestinationAudience): void {
  const stack = Stack.of(fn);
  const arnIn = (account: string) =>
    stack.formatArn({ service: 'iam', region: '', account, resource: 'role', resourceName: roleName });
  fn.addToRolePolicy(
    new PolicyStatement({
      sid: `Assume${roleName.replace(/[^A-Za-z0-9]/g, '')}`,
      actions: ['sts:AssumeRole'],
      resources: audience.accounts ? audience.accounts.map(arnIn) : [arnIn('*')],
      ...(audience.organizationId
        ? { conditions: { StringEquals: { 'aws:ResourceOrgID': audience.organizationId } } }
        : {}),
    }),
  );
  if (audience.organizationId && fn.role) {
    suppressOnRole(fn.role, [
      {
        id: 'AwsSolutions-IAM5',
        reason: `The spoke role ${roleName} exists in every account of the organisation, which the stack does not list: sts:AssumeRole names the role and allows any account only inside the organisation (aws:ResourceOrgID).`,
        // A pattern, not the text: with an explicit env the partition is written out, not a token.
        appliesTo: [{ regex: `/^Resource::arn:(?:<AWS::Partition>|aws[a-z-]*):iam::\\*:role\\/${roleName}$/` }],
      },
    ]);
  }
}
