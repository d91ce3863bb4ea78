import { Duration, Stack } from 'aws-cdk-lib';
import { CfnAccessEntry } from 'aws-cdk-lib/aws-eks';
import { type IRole, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { type CfnFunction, type IFunction } from 'aws-cdk-lib/aws-lambda';
import { type Schedule, ScheduleExpression } from 'aws-cdk-lib/aws-scheduler';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { ClusterConfig } from '../../contracts/config';
import type { FunctionSettings } from '../../contracts/settings';
import { enrichmentAccess } from './aws-access';
import {
  bundledFunction,
  grantWiring,
  suppressOnRole,
  wiringEnvironment,
  type FunctionWiring,
} from './lambda-function';
import { scheduledInvocation } from './scheduled-invocation';
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

    const polls = scheduledInvocation(this, {
      function: fn,
      schedule: ScheduleExpression.rate(Duration.minutes(poll.intervalMinutes)),
      description: `karpenter-doctor poll of the state of cluster ${cluster.name}`,
      invokes: `the karpenter-doctor poller of ${cluster.name}`,
      input: { cluster: cluster.name },
      // No retry: the next scheduled poll is the retry.
      retryAttempts: 0,
      maxEventAge: Duration.minutes(5),
      deadLetterOf: `the poll schedule of ${cluster.name}`,
      failureOf: `the poller of ${cluster.name} (the next scheduled poll is the retry)`,
      grantNames: 'the poller function',
      grantPattern: '/^Resource::<Poller[A-Za-z0-9]*Function[A-Z0-9]*\\.Arn>:\\*$/',
    });
    this.schedule = polls.schedule;
    this.deadLetterQueue = polls.deadLetterQueue;
    this.failureQueue = polls.failureQueue;
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
}
