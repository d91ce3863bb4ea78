import { Duration, Stack } from 'aws-cdk-lib';
import { PolicyStatement, Role, ServicePrincipal, type IRole } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { ContextAttribute, Schedule, ScheduleExpression, ScheduleTargetInput } from 'aws-cdk-lib/aws-scheduler';
import { LambdaInvoke } from 'aws-cdk-lib/aws-scheduler-targets';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { NagSuppressions } from 'cdk-nag';
import { Construct } from 'constructs';
import type { FunctionSettings } from '../../contracts/settings';
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

export interface HeadroomCheckProps extends FunctionWiring {
  /** Clusters, thresholds, windows and limits, as the function reads them; `headroom.schedule` runs it. */
  readonly settings: FunctionSettings;
}

/**
 * The scheduled headroom check: every few minutes it reads the free IPs of the subnets Karpenter
 * launches into, keeps their history in the incident table, warns before they run out, and resolves
 * incidents that have gone quiet. One run at a time (reserved concurrency 1); Scheduler retries a
 * failed run twice within an hour, then leaves it in an encrypted dead-letter queue.
 */
export class HeadroomCheck extends Construct {
  public readonly function: IFunction;
  public readonly schedule: Schedule;
  public readonly deadLetterQueue: IQueue;
  /** Runs that failed every retry, with their error (the function's on-failure destination). */
  public readonly failureQueue: IQueue;

  constructor(scope: Construct, id: string, props: HeadroomCheckProps) {
    super(scope, id);
    validateHeadroomProps(props);
    const { function: fn, role } = bundledFunction(this, {
      handlerFile: 'headroom.ts',
      description: 'karpenter-doctor headroom: free IPs of the Karpenter subnets, forecasts, resolved incidents',
      environment: wiringEnvironment(props, 'headroom'),
      settings: props.settings,
      timeout: Duration.minutes(2),
      reservedConcurrency: 1,
      logRetention: props.logRetention,
    });
    this.function = fn;
    this.grantChecks(role, props);

    this.deadLetterQueue = deadLetterQueue(this, 'DeadLetterQueue', "the headroom schedule's target");
    // Scheduler invokes asynchronously: its dead-letter queue only sees invocations that never
    // started; a run that fails is retried by Lambda and then kept here with its error.
    this.failureQueue = onFailureQueue(this, fn, {
      retryAttempts: 2,
      maxEventAge: Duration.hours(1),
      of: 'the headroom function',
    });
    this.schedule = this.scheduleRuns(fn, props.settings.headroom.schedule, this.deadLetterQueue);
  }

  /**
   * What a check reads and writes: its table (Scan for the sweep), publishing, and the subnets, VPCs
   * and configured clusters it watches (Describe calls without resource-level permissions on "*").
   */
  private grantChecks(role: IRole, props: HeadroomCheckProps): void {
    const stack = Stack.of(this);
    grantWiring(role, props, [
      'dynamodb:GetItem',
      'dynamodb:BatchGetItem',
      'dynamodb:PutItem',
      'dynamodb:UpdateItem',
      'dynamodb:Scan',
    ]);
    role.addToPrincipalPolicy(
      new PolicyStatement({
        sid: 'DescribeSubnets',
        actions: ['ec2:DescribeSubnets', 'ec2:DescribeVpcs'],
        resources: ['*'],
      }),
    );
    role.addToPrincipalPolicy(
      new PolicyStatement({
        sid: 'DescribeClusters',
        actions: ['eks:DescribeCluster'],
        resources: props.settings.clusters.map((c) =>
          stack.formatArn({ service: 'eks', resource: 'cluster', resourceName: c.name }),
        ),
      }),
    );
    suppressOnRole(role, [
      {
        id: 'AwsSolutions-IAM5',
        reason:
          'ec2:DescribeSubnets and ec2:DescribeVpcs support no resource-level permissions and need Resource "*" (Service Authorization Reference: https://docs.aws.amazon.com/service-authorization/latest/reference/list_amazonec2.html). Read-only, listed by name.',
        appliesTo: ['Resource::*'],
      },
    ]);
  }

  /**
   * Runs the check on `expression`, with the scheduled time as input, through a role only this
   * account's Scheduler may assume; two retries within an hour, then the dead-letter queue.
   */
  private scheduleRuns(fn: IFunction, expression: string, deadLetterQueue: IQueue): Schedule {
    const schedulerRole = new Role(this, 'SchedulerRole', {
      assumedBy: new ServicePrincipal('scheduler.amazonaws.com', {
        conditions: { StringEquals: { 'aws:SourceAccount': Stack.of(this).account } },
      }),
      description: 'EventBridge Scheduler: invoke the karpenter-doctor headroom check',
    });
    const schedule = new Schedule(this, 'Schedule', {
      schedule: ScheduleExpression.expression(expression),
      description: 'karpenter-doctor headroom check and resolve sweep',
      target: new LambdaInvoke(fn, {
        input: ScheduleTargetInput.fromObject({ scheduledTime: ContextAttribute.scheduledTime }),
        retryAttempts: 2,
        maxEventAge: Duration.hours(1),
        deadLetterQueue,
        role: schedulerRole,
      }),
    });
    // After the schedule: the target's grant creates the role's policy, which the suppression must reach.
    NagSuppressions.addResourceSuppressions(
      schedulerRole,
      [
        {
          id: 'AwsSolutions-IAM5',
          reason:
            'The Scheduler target grant (grantInvoke) names the headroom function and its versions (<function ARN>:*); it can invoke nothing else.',
          appliesTo: [{ regex: '/^Resource::<.*HeadroomFunction.*\\.Arn>:\\*$/' }],
        },
      ],
      true,
    );
    return schedule;
  }
}

/** Fails the synth on props the check cannot run with, naming the prop and what is allowed. */
function validateHeadroomProps(props: HeadroomCheckProps): void {
  requireSettings('HeadroomCheck', props.settings);
}
