import { ArnFormat, Duration, Stack } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { Rule, type IEventBus } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import type { NagPackSuppression } from 'cdk-nag';
import { Construct } from 'constructs';
import { DETAIL_TYPES } from '../../contracts/events';
import { ENV, OPT_IN_TAG } from '../../contracts/names';
import { ACTION_IDS, type ActionKey } from '../../contracts/remediation';
import { RAISABLE_QUOTA_CODES } from '../../contracts/quota-codes';
import type { FunctionSettings } from '../../contracts/settings';
import { bundledFunction, deadLetterQueue, grantPublishing, onFailureQueue, suppressOnRole } from './lambda-function';
import { requireSettings } from './validate';

export interface RemediationProps {
  readonly table: ITable;
  readonly topic: ITopic;
  readonly topicKey: IKey;
  readonly eventBus: IEventBus;
  /** The `source` of the analyzer's events. */
  readonly eventSource: string;
  /** Clusters and the mode and caps per action (`remediation`), as the function reads them. */
  readonly settings: FunctionSettings;
  /** @default RetentionDays.ONE_MONTH */
  readonly logRetention?: RetentionDays;
}

/**
 * The remediator: an EventBridge rule on `Karpenter Finding` events (never on its own `Karpenter
 * Remediation` events) whose remediation names an action that is turned on, a function with its own
 * role, and a retry policy with an encrypted dead-letter queue. The role holds only what the turned-on
 * actions need: read-only calls for dry-run; for apply, changes conditioned on the opt-in tag. No
 * statement anywhere may associate a VPC CIDR: subnet capacity is only planned.
 */
export class Remediation extends Construct {
  public readonly function: IFunction;
  public readonly rule: Rule;
  /** Events EventBridge could not deliver to the function. */
  public readonly deadLetterQueue: IQueue;
  /** Events the function failed on every retry, with their error (its on-failure destination). */
  public readonly failureQueue: IQueue;

  constructor(scope: Construct, id: string, props: RemediationProps) {
    super(scope, id);
    const stack = Stack.of(this);
    const { clusters, remediation: actions } = props.settings;
    const enabled = (Object.keys(ACTION_IDS) as ActionKey[]).filter((k) => actions[k].mode !== 'off');
    if (enabled.length === 0) {
      throw new Error('Remediation: every action is "off"; turn one on, or leave the construct out');
    }
    validateRemediationProps(props);

    const { function: fn, role } = bundledFunction(this, {
      handlerFile: 'remediator.ts',
      description: 'karpenter-doctor remediator: guarded actions on Karpenter findings',
      environment: {
        [ENV.tableName]: props.table.tableName,
        [ENV.topicArn]: props.topic.topicArn,
        [ENV.eventBusName]: props.eventBus.eventBusName,
        POWERTOOLS_SERVICE_NAME: 'remediator',
      },
      settings: props.settings,
      timeout: Duration.seconds(60),
      reservedConcurrency: 2,
      logRetention: props.logRetention,
    });
    this.function = fn;

    props.table.grant(role, 'dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem');
    grantPublishing(role, props);

    const clusterArns = clusters.map((c) =>
      stack.formatArn({ service: 'eks', resource: 'cluster', resourceName: c.name }),
    );
    const nodegroupArns = clusters.map((c) =>
      stack.formatArn({ service: 'eks', resource: 'nodegroup', resourceName: `${c.name}/*/*` }),
    );
    // Only the quotas the quota rule may raise, never every EC2 quota.
    const ec2Quotas = RAISABLE_QUOTA_CODES.map((code) =>
      stack.formatArn({ service: 'servicequotas', resource: 'ec2', resourceName: code }),
    );
    const suppressions: NagPackSuppression[] = [];

    if (actions.raiseSystemNodegroup.mode !== 'off') {
      role.addToPrincipalPolicy(
        new PolicyStatement({ sid: 'ReadNodegroups', actions: ['eks:DescribeNodegroup'], resources: nodegroupArns }),
      );
      role.addToPrincipalPolicy(
        new PolicyStatement({
          sid: 'ReadAutoScalingGroups',
          actions: ['autoscaling:DescribeAutoScalingGroups'],
          resources: ['*'],
        }),
      );
      suppressions.push(nodegroupSuppression);
      if (actions.raiseSystemNodegroup.mode === 'apply') {
        // Only the configured system groups may change, and only while they carry the opt-in tag.
        const managed = clusters.filter((c) => c.systemNodegroup);
        if (managed.length > 0) {
          role.addToPrincipalPolicy(
            new PolicyStatement({
              sid: 'RaiseOptedInManagedNodegroups',
              actions: ['eks:UpdateNodegroupConfig'],
              resources: managed.map((c) =>
                stack.formatArn({
                  service: 'eks',
                  resource: 'nodegroup',
                  resourceName: `${c.name}/${c.systemNodegroup}/*`,
                }),
              ),
              conditions: { StringEquals: { [`aws:ResourceTag/${OPT_IN_TAG}`]: 'true' } },
            }),
          );
          suppressions.push({
            id: 'AwsSolutions-IAM5',
            reason:
              'A node group ARN ends in an id EKS generates (nodegroup/<cluster>/<name>/<uuid>): eks:UpdateNodegroupConfig names each configured system node group and wildcards only that id; it is also conditioned on the opt-in tag.',
            appliesTo: [
              {
                regex:
                  '/^Resource::arn:<AWS::Partition>:eks:<AWS::Region>:<AWS::AccountId>:nodegroup\\/[^*]+\\/[^*]+\\/\\*$/',
              },
            ],
          });
        }
        const selfManaged = clusters.filter((c) => c.systemAutoScalingGroup);
        if (selfManaged.length > 0) {
          role.addToPrincipalPolicy(
            new PolicyStatement({
              sid: 'RaiseOptedInSelfManagedGroups',
              actions: ['autoscaling:UpdateAutoScalingGroup'],
              resources: selfManaged.map((c) =>
                stack.formatArn({
                  service: 'autoscaling',
                  resource: 'autoScalingGroup',
                  resourceName: `*:autoScalingGroupName/${c.systemAutoScalingGroup}`,
                  arnFormat: ArnFormat.COLON_RESOURCE_NAME,
                }),
              ),
              conditions: { StringEquals: { [`autoscaling:ResourceTag/${OPT_IN_TAG}`]: 'true' } },
            }),
          );
          suppressions.push({
            id: 'AwsSolutions-IAM5',
            reason:
              'An Auto Scaling group ARN holds an id AWS generates (autoScalingGroup:<uuid>:autoScalingGroupName/<name>): autoscaling:UpdateAutoScalingGroup names each configured self-managed system group and wildcards only that id; it is also conditioned on the opt-in tag.',
            appliesTo: [
              {
                regex:
                  '/^Resource::arn:<AWS::Partition>:autoscaling:<AWS::Region>:<AWS::AccountId>:autoScalingGroup:\\*:autoScalingGroupName\\/[^*]+$/',
              },
            ],
          });
        }
      }
    }
    if (actions.requestQuotaIncrease.mode !== 'off') {
      role.addToPrincipalPolicy(
        new PolicyStatement({
          sid: 'ReadEc2Quotas',
          actions: ['servicequotas:GetServiceQuota'],
          resources: ec2Quotas,
        }),
      );
      role.addToPrincipalPolicy(
        new PolicyStatement({
          sid: 'ReadQuotaRequests',
          actions: ['servicequotas:ListRequestedServiceQuotaChangeHistoryByQuota'],
          resources: ['*'],
        }),
      );
      if (actions.requestQuotaIncrease.mode === 'apply') {
        role.addToPrincipalPolicy(
          new PolicyStatement({
            sid: 'RequestEc2QuotaIncreases',
            actions: ['servicequotas:RequestServiceQuotaIncrease'],
            resources: ec2Quotas,
          }),
        );
      }
    }
    if (actions.planSubnetCapacity.mode !== 'off') {
      role.addToPrincipalPolicy(
        new PolicyStatement({
          sid: 'ReadNetwork',
          actions: ['ec2:DescribeSubnets', 'ec2:DescribeVpcs'],
          resources: ['*'],
        }),
      );
      role.addToPrincipalPolicy(
        new PolicyStatement({ sid: 'ReadClusters', actions: ['eks:DescribeCluster'], resources: clusterArns }),
      );
    }
    if (
      actions.raiseSystemNodegroup.mode !== 'off' ||
      actions.requestQuotaIncrease.mode !== 'off' ||
      actions.planSubnetCapacity.mode !== 'off'
    ) {
      suppressions.push({
        id: 'AwsSolutions-IAM5',
        reason:
          'Read-only calls that support no resource-level permissions need Resource "*": ec2:DescribeSubnets, ec2:DescribeVpcs, autoscaling:DescribeAutoScalingGroups, servicequotas:ListRequestedServiceQuotaChangeHistoryByQuota (Service Authorization Reference). Listed by name, no wildcard action.',
        appliesTo: ['Resource::*'],
      });
    }
    suppressOnRole(role, suppressions);

    this.deadLetterQueue = deadLetterQueue(this, 'DeadLetterQueue', "the remediation rule's target");
    // EventBridge invokes the function asynchronously: its dead-letter queue only sees events it could
    // not hand over. An event the function fails on is retried by Lambda, then kept here with its error.
    this.failureQueue = onFailureQueue(this, fn, {
      retryAttempts: 2,
      maxEventAge: Duration.hours(2),
      of: 'the remediator function',
    });

    this.rule = new Rule(this, 'Rule', {
      eventBus: props.eventBus,
      description: 'karpenter-doctor: findings whose remediation names an action that is turned on',
      eventPattern: {
        // Only events of this account: the remediator checks again, and trusts nothing else in them.
        account: [stack.account],
        source: [props.eventSource],
        detailType: [DETAIL_TYPES.finding],
        detail: {
          status: ['open', 'ongoing'],
          remediation: { action: enabled.map((k) => ACTION_IDS[k]) },
        },
      },
      targets: [
        new LambdaFunction(fn, {
          retryAttempts: 2,
          maxEventAge: Duration.hours(2),
          deadLetterQueue: this.deadLetterQueue,
        }),
      ],
    });
  }
}

/** Fails the synth on props the remediator cannot run with, naming the prop and what is allowed. */
function validateRemediationProps(props: RemediationProps): void {
  const name = 'Remediation';
  requireSettings(name, props.settings);
  if (props.eventSource.startsWith('aws.') || props.eventSource.length === 0 || props.eventSource.length > 256) {
    throw new Error(
      `${name}: eventSource is "${props.eventSource}"; EventBridge reserves the "aws." prefix for AWS services and takes 1 to 256 characters`,
    );
  }
}

const nodegroupSuppression: NagPackSuppression = {
  id: 'AwsSolutions-IAM5',
  reason:
    'Node group ARNs end in a generated id (nodegroup/<cluster>/<name>/<uuid>): the read-only eks:DescribeNodegroup is scoped to the configured clusters with wildcards only for name and id.',
  appliesTo: [
    { regex: '/^Resource::arn:<AWS::Partition>:eks:<AWS::Region>:<AWS::AccountId>:nodegroup\\/.*\\/\\*\\/\\*$/' },
  ],
};
