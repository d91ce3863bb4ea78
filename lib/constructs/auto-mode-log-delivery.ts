import { ArnFormat, Lazy, Names, RemovalPolicy, Stack, Token } from 'aws-cdk-lib';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import {
  CfnDelivery,
  CfnDeliveryDestination,
  CfnDeliverySource,
  LogGroup,
  ResourcePolicy,
  RetentionDays,
} from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { AUTO_MODE_COMPUTE_LOG_TYPE } from '../../contracts/auto-mode-logs';

export interface AutoModeLogDeliveryProps {
  /** The EKS Auto Mode cluster whose compute (managed Karpenter) logs are delivered; in this stack's account and region. */
  readonly clusterName: string;
  /** The log group to create and deliver to. */
  readonly logGroupName: string;
  /** @default RetentionDays.ONE_MONTH */
  readonly retention?: RetentionDays;
}

/** CloudWatch Logs' limit on delivery source and destination names. */
const MAX_DELIVERY_NAME_LENGTH = 60;

/** CloudWatch Logs' limit on one resource policy document, in characters. */
export const MAX_RESOURCE_POLICY_CHARS = 5_120;

/** The one resource policy that lets CloudWatch Logs' delivery service write every Auto Mode log group of the stack. */
const POLICY_ID = 'AutoModeLogsDeliveryPolicy';

/**
 * EKS Auto Mode's `AUTO_MODE_COMPUTE_LOGS` vended logs into a log group of their own, in the order
 * the CloudWatch Logs API asks for (PutDeliverySource → PutDeliveryDestination → CreateDelivery):
 * a delivery source on the cluster, a CloudWatch Logs destination on the group, and the delivery
 * that joins them. The delivery service writes the group under one account-level resource policy
 * (AWS allows 10 per region, so every cluster of the stack shares it).
 */
export class AutoModeLogDelivery extends Construct {
  /** The group's name as configured (`logGroup.logGroupName` is a reference). */
  public readonly logGroupName: string;
  public readonly logGroup: LogGroup;
  public readonly source: CfnDeliverySource;
  public readonly destination: CfnDeliveryDestination;
  public readonly delivery: CfnDelivery;

  constructor(scope: Construct, id: string, props: AutoModeLogDeliveryProps) {
    super(scope, id);
    const stack = Stack.of(this);
    this.logGroupName = props.logGroupName;
    this.logGroup = new LogGroup(this, 'LogGroup', {
      logGroupName: props.logGroupName,
      retention: props.retention ?? RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.DESTROY,
    });

    const policy = deliveryPolicyOf(stack);
    policy.document.addStatements(
      new PolicyStatement({
        principals: [new ServicePrincipal('delivery.logs.amazonaws.com')],
        actions: ['logs:CreateLogStream', 'logs:PutLogEvents'],
        resources: [
          stack.formatArn({
            service: 'logs',
            resource: 'log-group',
            resourceName: `${props.logGroupName}:log-stream:*`,
            arnFormat: ArnFormat.COLON_RESOURCE_NAME,
          }),
        ],
        conditions: {
          StringEquals: { 'aws:SourceAccount': stack.account },
          ArnLike: { 'aws:SourceArn': stack.formatArn({ service: 'logs', resource: '*' }) },
        },
      }),
    );

    this.source = new CfnDeliverySource(this, 'Source', {
      name: deliveryName(this, 'Source'),
      logType: AUTO_MODE_COMPUTE_LOG_TYPE,
      resourceArn: stack.formatArn({
        service: 'eks',
        resource: 'cluster',
        resourceName: props.clusterName,
        arnFormat: ArnFormat.SLASH_RESOURCE_NAME,
      }),
    });
    this.destination = new CfnDeliveryDestination(this, 'Destination', {
      name: deliveryName(this, 'Destination'),
      deliveryDestinationType: 'CWL',
      destinationResourceArn: this.logGroup.logGroupArn,
    });
    // The delivery service must be allowed to write before the first delivery does.
    this.destination.node.addDependency(policy);
    this.delivery = new CfnDelivery(this, 'Delivery', {
      deliverySourceName: this.source.ref,
      deliveryDestinationArn: this.destination.attrArn,
    });
  }
}

/** The stack's one delivery policy, created with its first statement. */
function deliveryPolicyOf(stack: Stack): ResourcePolicy {
  const found = stack.node.tryFindChild(POLICY_ID) as ResourcePolicy | undefined;
  if (found) return found;
  const policy = new ResourcePolicy(stack, POLICY_ID);
  stack.node.addValidation({
    validate: () => {
      const chars = JSON.stringify(stack.resolve(policy.document.toJSON())).length;
      // Unresolved pseudo-parameters (partition, region, account) stand for at most about 40 characters each.
      const estimate = chars + policy.document.statementCount * 3 * 40;
      return estimate > MAX_RESOURCE_POLICY_CHARS
        ? [
            `${POLICY_ID}: the Auto Mode log groups of ${policy.document.statementCount} clusters need a resource policy of about ${estimate} characters; CloudWatch Logs allows ${MAX_RESOURCE_POLICY_CHARS}. Create the deliveries of fewer clusters in this stack`,
          ]
        : [];
    },
  });
  return policy;
}

/** A name CloudWatch Logs accepts (letters, digits, `-`, `_`; at most 60), unique in the account through the construct path. */
const deliveryName = (scope: Construct, id: string): string =>
  Lazy.string({
    produce: () => {
      const name = Names.uniqueResourceName(scope, { maxLength: MAX_DELIVERY_NAME_LENGTH - id.length });
      return Token.isUnresolved(name) ? name : `${name}${id}`;
    },
  });
