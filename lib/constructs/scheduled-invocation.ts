import { Duration, Stack } from 'aws-cdk-lib';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { ContextAttribute, Schedule, type ScheduleExpression, ScheduleTargetInput } from 'aws-cdk-lib/aws-scheduler';
import { LambdaInvoke } from 'aws-cdk-lib/aws-scheduler-targets';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { NagSuppressions } from 'cdk-nag';
import type { Construct } from 'constructs';
import { deadLetterQueue, onFailureQueue } from './lambda-function';

export interface ScheduledInvocationProps {
  readonly function: NodejsFunction;
  readonly schedule: ScheduleExpression;
  /** The schedule's description. */
  readonly description: string;
  /** What the schedule invokes, in the scheduler role's description: `the karpenter-doctor headroom check`. */
  readonly invokes: string;
  /** The event besides `scheduledTime`, which every run gets. @default none */
  readonly input?: Readonly<Record<string, unknown>>;
  /** Retries of a run by Scheduler (an invocation that never started) and by Lambda (a run that failed). */
  readonly retryAttempts: number;
  readonly maxEventAge: Duration;
  /** Whose queues they are, for their cdk-nag reasons: `the headroom schedule's target`, `the headroom function`. */
  readonly deadLetterOf: string;
  readonly failureOf: string;
  /** The function in the grant's reason (`the headroom function`) and the pattern of its `Resource::<…Arn>:*`. */
  readonly grantNames: string;
  readonly grantPattern: string;
}

export interface ScheduledInvocation {
  readonly schedule: Schedule;
  /** Invocations Scheduler could not start. */
  readonly deadLetterQueue: IQueue;
  /** Runs that failed every retry, with their error (the function's on-failure destination). */
  readonly failureQueue: IQueue;
}

/**
 * EventBridge Scheduler running a function, through a role only this account's Scheduler may assume,
 * with both dead-letter queues. Built in `scope` itself, like deadLetterQueue, so ids stay the caller's.
 */
export function scheduledInvocation(scope: Construct, props: ScheduledInvocationProps): ScheduledInvocation {
  const deadLetter = deadLetterQueue(scope, 'DeadLetterQueue', props.deadLetterOf);
  // Scheduler invokes asynchronously: its dead-letter queue only sees invocations that never
  // started; a run that fails is retried by Lambda and then kept in the failure queue with its error.
  const failureQueue = onFailureQueue(scope, props.function, {
    retryAttempts: props.retryAttempts,
    maxEventAge: props.maxEventAge,
    of: props.failureOf,
  });
  const schedulerRole = new Role(scope, 'SchedulerRole', {
    assumedBy: new ServicePrincipal('scheduler.amazonaws.com', {
      conditions: { StringEquals: { 'aws:SourceAccount': Stack.of(scope).account } },
    }),
    description: `EventBridge Scheduler: invoke ${props.invokes}`,
  });
  const schedule = new Schedule(scope, 'Schedule', {
    schedule: props.schedule,
    description: props.description,
    target: new LambdaInvoke(props.function, {
      input: ScheduleTargetInput.fromObject({ ...props.input, scheduledTime: ContextAttribute.scheduledTime }),
      retryAttempts: props.retryAttempts,
      maxEventAge: props.maxEventAge,
      deadLetterQueue: deadLetter,
      role: schedulerRole,
    }),
  });
  // After the schedule: the target's grant creates the role's policy, which the suppression must reach.
  NagSuppressions.addResourceSuppressions(
    schedulerRole,
    [
      {
        id: 'AwsSolutions-IAM5',
        reason: `The Scheduler target grant (grantInvoke) names ${props.grantNames} and its versions (<function ARN>:*); it can invoke nothing else.`,
        appliesTo: [{ regex: props.grantPattern }],
      },
    ],
    true,
  );
  return { schedule, deadLetterQueue: deadLetter, failureQueue };
}
