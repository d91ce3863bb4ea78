import { RemovalPolicy } from 'aws-cdk-lib';
import { AttributeType, BillingMode, Table, TableEncryption, type ITable } from 'aws-cdk-lib/aws-dynamodb';
import { Construct } from 'constructs';

export interface IncidentTableProps {
  /**
   * Keep the table (and the incident history) when the stack is deleted.
   * @default true
   */
  readonly retain?: boolean;
}

/**
 * The incident store: one item per finding key plus one marker per subscription batch, keyed by
 * `pk`. On-demand (the load follows log volume), point-in-time recovery, and `expiresAt` as the TTL
 * attribute; the functions check expiry themselves on every read, TTL only cleans up.
 */
export class IncidentTable extends Construct {
  public readonly table: ITable;

  constructor(scope: Construct, id: string, props: IncidentTableProps = {}) {
    super(scope, id);
    this.table = new Table(this, 'Table', {
      partitionKey: { name: 'pk', type: AttributeType.STRING },
      billingMode: BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      timeToLiveAttribute: 'expiresAt',
      encryption: TableEncryption.AWS_MANAGED,
      removalPolicy: props.retain === false ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN,
    });
  }
}
