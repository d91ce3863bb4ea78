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

    const { policy, statement } = deliveryPolicyOf(stack);
    statement.addResources(
      stack.formatArn({
        service: 'logs',
        resource: 'log-group',
        resourceName: `${props.logGroupName}:log-stream:*`,
        arnFormat: ArnFormat.COLON_RESOURCE_NAME,
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

const policies = new WeakMap<Stack, { policy: ResourcePolicy; statement: PolicyStatement }>();

/** The stack's one delivery policy and its one statement, to which each group adds its streams. */
function deliveryPolicyOf(stack: Stack): { policy: ResourcePolicy; statement: PolicyStatement } {
  const found = policies.get(stack);
  if (found) return found;
  const statement = new PolicyStatement({
    principals: [new ServicePrincipal('delivery.logs.amazonaws.com')],
    actions: ['logs:CreateLogStream', 'logs:PutLogEvents'],
    conditions: {
      StringEquals: { 'aws:SourceAccount': stack.account },
      ArnLike: { 'aws:SourceArn': stack.formatArn({ service: 'logs', resource: '*' }) },
    },
  });
  const policy = new ResourcePolicy(stack, POLICY_ID, { policyStatements: [statement] });
  stack.node.addValidation({
    validate: () => {
      const estimate = JSON.stringify(deployedForm(stack.resolve(policy.document.toJSON()))).length;
      return estimate > MAX_RESOURCE_POLICY_CHARS
        ? [
            `${POLICY_ID}: the Auto Mode log groups of ${statement.resources.length} clusters need a resource policy of about ${estimate} characters; CloudWatch Logs allows ${MAX_RESOURCE_POLICY_CHARS}. Create the deliveries of fewer clusters in this stack, or give them shorter log group names`,
          ]
        : [];
    },
  });
  const created = { policy, statement };
  policies.set(stack, created);
  return created;
}

/** The longest value each pseudo-parameter of an environment-agnostic stack takes once deployed. */
const PSEUDO_LENGTHS: Readonly<Record<string, number>> = {
  'AWS::Partition': 10,
  'AWS::Region': 14,
  'AWS::AccountId': 12,
  'AWS::URLSuffix': 16,
};

/** A resolved document as CloudFormation writes it: joins joined, references at their longest. */
function deployedForm(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(deployedForm);
  if (typeof value !== 'object' || value === null) return value;
  const record = value as Record<string, unknown>;
  if (typeof record.Ref === 'string') return 'x'.repeat(PSEUDO_LENGTHS[record.Ref] ?? 64);
  const join = record['Fn::Join'] as [string, unknown[]] | undefined;
  if (join) return join[1].map((part) => String(deployedForm(part))).join(join[0]);
  return Object.fromEntries(Object.entries(record).map(([key, item]) => [key, deployedForm(item)]));
}

/** A name CloudWatch Logs accepts (letters, digits, `-`, `_`; at most 60), unique in the account through the construct path. */
const deliveryName = (scope: Construct, id: string): string =>
  Lazy.string({
    produce: () => {
      const name = Names.uniqueResourceName(scope, { maxLength: MAX_DELIVERY_NAME_LENGTH - id.length });
      return Token.isUnresolved(name) ? name : `${name}${id}`;
    },
  });
