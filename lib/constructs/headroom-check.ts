import { Duration, Stack } from 'aws-cdk-lib';
import { PolicyStatement, type IRole } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { type Schedule, ScheduleExpression } from 'aws-cdk-lib/aws-scheduler';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { FunctionSettings } from '../../contracts/settings';
import {
  bundledFunction,
  grantWiring,
  suppressOnRole,
  wiringEnvironment,
  type FunctionWiring,
} from './lambda-function';
import { scheduledInvocation } from './scheduled-invocation';
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

    const runs = scheduledInvocation(this, {
      function: fn,
      schedule: ScheduleExpression.expression(props.settings.headroom.schedule),
      description: 'karpenter-doctor headroom check and resolve sweep',
      invokes: 'the karpenter-doctor headroom check',
      retryAttempts: 2,
      maxEventAge: Duration.hours(1),
      deadLetterOf: "the headroom schedule's target",
      failureOf: 'the headroom function',
      grantNames: 'the headroom function',
      grantPattern: '/^Resource::<.*HeadroomFunction.*\\.Arn>:\\*$/',
    });
    this.schedule = runs.schedule;
    this.deadLetterQueue = runs.deadLetterQueue;
    this.failureQueue = runs.failureQueue;
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
}

/** Fails the synth on props the check cannot run with, naming the prop and what is allowed. */
function validateHeadroomProps(props: HeadroomCheckProps): void {
  requireSettings('HeadroomCheck', props.settings);
}
