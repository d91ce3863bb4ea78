import { Duration, Stack } from 'aws-cdk-lib';
import { CfnAccessEntry } from 'aws-cdk-lib/aws-eks';
import { type IRole, PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { type CfnFunction, type IFunction } from 'aws-cdk-lib/aws-lambda';
import { ContextAttribute, Schedule, ScheduleExpression, ScheduleTargetInput } from 'aws-cdk-lib/aws-scheduler';
import { LambdaInvoke } from 'aws-cdk-lib/aws-scheduler-targets';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { NagSuppressions } from 'cdk-nag';
import { Construct } from 'constructs';
import type { ClusterConfig } from '../../contracts/config';
import type { FunctionSettings } from '../../contracts/settings';
import { enrichmentAccess } from './aws-access';
import {
  bundledFunction,
  deadLetterQueue,
  grantWiring,
  onFailureQueue,
  suppressOnRole,
  wiringEnvironment,
  type FunctionWiring,
} from './lambda-function';
import { requireSettings } from './validate';

/** The EKS access policy the poller's access entry is associated with: view only, cluster-wide. */
export const POLLER_ACCESS_POLICY = 'AmazonEKSViewPolicy';
/**
 * The Kubernetes group of the access entry: AmazonEKSViewPolicy covers core kinds (pods, events),
 * not Karpenter's CRDs, so a ClusterRole granting get/list on them is bound to this group
 * (docs/cluster-state.md gives the manifest).
 */
export const POLLER_KUBERNETES_GROUP = 'karpenter-doctor-state-readers';

export interface ClusterPollerProps extends FunctionWiring {
  readonly settings: FunctionSettings;
  /** The polled cluster; its `poll` block says how often and from where. */
  readonly cluster: ClusterConfig;
}

/**
 * The scheduled poller of one cluster's own state: EventBridge Scheduler runs a function that
 * reads NodeClaims, NodePools, node classes, pending pods and events through the cluster's API
 * (with an EKS access entry of its role, view only) and records what they show in the analyzer's
 * incident table, with the analyzer's notices. A private endpoint puts the function in the VPC.
 */
export class ClusterPoller extends Construct {
  public readonly function: IFunction;
  public readonly schedule: Schedule;
  public readonly accessEntry: CfnAccessEntry;
  public readonly deadLetterQueue: IQueue;
  public readonly failureQueue: IQueue;

  constructor(scope: Construct, id: string, props: ClusterPollerProps) {
    super(scope, id);
    requireSettings('ClusterPoller', props.settings);
    const { cluster } = props;
    const poll = cluster.poll;
    if (!poll?.enabled) throw new Error(`ClusterPoller: cluster ${cluster.name} has no enabled poll block`);
    const stack = Stack.of(this);
    const { function: fn, role } = bundledFunction(this, {
      handlerFile: 'poller.ts',
      description: `karpenter-doctor poller: the state of cluster ${cluster.name} (NodeClaims, NodePools, pods, events)`,
      environment: wiringEnvironment(props, 'poller'),
      settings: props.settings,
      timeout: Duration.seconds(50),
      // One poll at a time: a slow API never has two polls race on the same incidents.
      reservedConcurrency: 1,
      logRetention: props.logRetention,
    });
    this.function = fn;
    if (poll.endpointAccess === 'private') this.placeInVpc(fn, role, poll.subnetIds!, poll.securityGroupIds!);

    grantWiring(role, props, ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem']);
    const access = enrichmentAccess(this, [cluster]);
    for (const statement of access.statements) role.addToPrincipalPolicy(statement);
    suppressOnRole(role, access.suppressions);
    const clusterArn = stack.formatArn({ service: 'eks', resource: 'cluster', resourceName: cluster.name });
    role.addToPrincipalPolicy(
      new PolicyStatement({ sid: 'DescribePolledCluster', actions: ['eks:DescribeCluster'], resources: [clusterArn] }),
    );

    this.accessEntry = new CfnAccessEntry(this, 'AccessEntry', {
      clusterName: cluster.name,
      principalArn: role.roleArn,
      type: 'STANDARD',
      kubernetesGroups: [POLLER_KUBERNETES_GROUP],
      accessPolicies: [
        {
          policyArn: `arn:${stack.partition}:eks::aws:cluster-access-policy/${POLLER_ACCESS_POLICY}`,
          accessScope: { type: 'cluster' },
        },
      ],
    });

    this.deadLetterQueue = deadLetterQueue(this, 'DeadLetterQueue', `the poll schedule of ${cluster.name}`);
    this.failureQueue = onFailureQueue(this, fn, {
      retryAttempts: 0,
      maxEventAge: Duration.minutes(5),
      of: `the poller of ${cluster.name} (the next scheduled poll is the retry)`,
    });
    this.schedule = this.schedulePolls(fn, cluster.name, poll.intervalMinutes);
  }

  /** The function's ENIs in the configured subnets and security groups, to reach a private endpoint. */
  private placeInVpc(fn: IFunction, role: IRole, subnets: string[], groups: string[]) {
    (fn.node.defaultChild as CfnFunction).vpcConfig = { subnetIds: subnets, securityGroupIds: groups };
    role.addToPrincipalPolicy(
      new PolicyStatement({
        sid: 'VpcNetworkInterfaces',
        actions: [
          'ec2:CreateNetworkInterface',
          'ec2:DescribeNetworkInterfaces',
          'ec2:DeleteNetworkInterface',
          'ec2:AssignPrivateIpAddresses',
          'ec2:UnassignPrivateIpAddresses',
        ],
        resources: ['*'],
      }),
    );
    suppressOnRole(role, [
      {
        id: 'AwsSolutions-IAM5',
        reason:
          'Lambda creates and deletes the ENIs of a function in a VPC; these EC2 actions take no resource-level restriction at creation (what AWSLambdaVPCAccessExecutionRole grants, listed by name).',
        appliesTo: ['Resource::*'],
      },
    ]);
  }

  private schedulePolls(fn: IFunction, cluster: string, minutes: number): Schedule {
    const schedulerRole = new Role(this, 'SchedulerRole', {
      assumedBy: new ServicePrincipal('scheduler.amazonaws.com', {
        conditions: { StringEquals: { 'aws:SourceAccount': Stack.of(this).account } },
      }),
      description: `EventBridge Scheduler: invoke the karpenter-doctor poller of ${cluster}`,
    });
    const schedule = new Schedule(this, 'Schedule', {
      schedule: ScheduleExpression.rate(Duration.minutes(minutes)),
      description: `karpenter-doctor poll of the state of cluster ${cluster}`,
      target: new LambdaInvoke(fn, {
        input: ScheduleTargetInput.fromObject({ cluster, scheduledTime: ContextAttribute.scheduledTime }),
        retryAttempts: 0,
        maxEventAge: Duration.minutes(5),
        deadLetterQueue: this.deadLetterQueue,
        role: schedulerRole,
      }),
    });
    NagSuppressions.addResourceSuppressions(
      schedulerRole,
      [
        {
          id: 'AwsSolutions-IAM5',
          reason:
            'The Scheduler target grant (grantInvoke) names the poller function and its versions (<function ARN>:*); it can invoke nothing else.',
          appliesTo: [{ regex: '/^Resource::<Poller[A-Za-z0-9]*Function[A-Z0-9]*\\.Arn>:\\*$/' }],
        },
      ],
      true,
    );
    return schedule;
  }
}
