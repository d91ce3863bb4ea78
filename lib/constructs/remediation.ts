import { Duration, Stack } from 'aws-cdk-lib';
import { Rule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { DETAIL_TYPES } from '../../contracts/events';
import { ACTION_IDS, type ActionKey } from '../../contracts/remediation';
import type { FunctionSettings } from '../../contracts/settings';
import { remediationAccess } from './aws-access';
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

export interface RemediationProps extends FunctionWiring {
  /** The `source` of the analyzer's events. */
  readonly eventSource: string;
  /** Clusters and the mode and caps per action (`remediation`), as the function reads them. */
  readonly settings: FunctionSettings;
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
    const { clusters, remediation: actions } = props.settings;
    const enabled = (Object.keys(ACTION_IDS) as ActionKey[]).filter((k) => actions[k].mode !== 'off');
    if (enabled.length === 0) {
      throw new Error('Remediation: every action is "off"; turn one on, or leave the construct out');
    }
    validateRemediationProps(props);

    const { function: fn, role } = bundledFunction(this, {
      handlerFile: 'remediator.ts',
      description: 'karpenter-doctor remediator: guarded actions on Karpenter findings',
      environment: wiringEnvironment(props, 'remediator'),
      settings: props.settings,
      timeout: Duration.seconds(60),
      reservedConcurrency: 2,
      logRetention: props.logRetention,
    });
    this.function = fn;

    grantWiring(role, props, ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem']);
    // The same statements the spoke stack grants its remediation role (aws-access.ts), written once.
    const access = remediationAccess(this, clusters, actions);
    for (const statement of access.statements) role.addToPrincipalPolicy(statement);
    suppressOnRole(role, access.suppressions);

    this.deadLetterQueue = deadLetterQueue(this, 'DeadLetterQueue', "the remediation rule's target");
    // EventBridge invokes the function asynchronously: its dead-letter queue only sees events it could
    // not hand over. An event the function fails on is retried by Lambda, then kept here with its error.
    this.failureQueue = onFailureQueue(this, fn, {
      retryAttempts: 2,
      maxEventAge: Duration.hours(2),
      of: 'the remediator function',
    });
    this.rule = this.findingRule(props, fn, enabled);
  }

  /**
   * The rule on this account's findings whose remediation names a turned-on action (never on the
   * remediator's own events); two retries within two hours, then the dead-letter queue.
   */
  private findingRule(props: RemediationProps, fn: IFunction, enabled: readonly ActionKey[]): Rule {
    return new Rule(this, 'Rule', {
      eventBus: props.eventBus,
      description: 'karpenter-doctor: findings whose remediation names an action that is turned on',
      eventPattern: {
        // Only events of this account: the remediator checks again, and trusts nothing else in them.
        account: [Stack.of(this).account],
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
