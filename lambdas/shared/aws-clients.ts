import { AutoScalingClient } from '@aws-sdk/client-auto-scaling';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EC2Client } from '@aws-sdk/client-ec2';
import { EKSClient } from '@aws-sdk/client-eks';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { ServiceQuotasClient } from '@aws-sdk/client-service-quotas';
import { SNSClient } from '@aws-sdk/client-sns';
import { STSClient } from '@aws-sdk/client-sts';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/**
 * SDK clients, created on first use and kept for the life of the execution environment. Standard retry mode
 * (3 attempts, backoff with jitter) on every client: Describe calls share the account's token buckets with
 * Karpenter and the VPC CNI (https://docs.aws.amazon.com/ec2/latest/devguide/ec2-api-throttling.html).
 */
export interface AwsClients {
  readonly dynamo: DynamoDBDocumentClient;
  readonly ec2: EC2Client;
  readonly eks: EKSClient;
  readonly autoScaling: AutoScalingClient;
  readonly serviceQuotas: ServiceQuotasClient;
  readonly sns: SNSClient;
  readonly events: EventBridgeClient;
  /** Assumes the spoke roles of the organisation's other accounts. */
  readonly sts: STSClient;
}

export interface ClientOptions {
  region?: string;
  /** Overrides the DynamoDB endpoint (a local server in tests). */
  dynamoEndpoint?: string;
}

export function lazyAwsClients(options: ClientOptions = {}): AwsClients {
  const config = { region: options.region, retryMode: 'standard', maxAttempts: 3 };
  const made = new Map<string, unknown>();
  const once = <T>(name: string, make: () => T): T => {
    if (!made.has(name)) made.set(name, make());
    return made.get(name) as T;
  };
  return {
    get dynamo() {
      return once('dynamo', () =>
        DynamoDBDocumentClient.from(new DynamoDBClient({ ...config, endpoint: options.dynamoEndpoint }), {
          marshallOptions: { removeUndefinedValues: true },
        }),
      );
    },
    get ec2() {
      return once('ec2', () => new EC2Client(config));
    },
    get eks() {
      return once('eks', () => new EKSClient(config));
    },
    get autoScaling() {
      return once('autoScaling', () => new AutoScalingClient(config));
    },
    get serviceQuotas() {
      return once('serviceQuotas', () => new ServiceQuotasClient(config));
    },
    get sns() {
      return once('sns', () => new SNSClient(config));
    },
    get events() {
      return once('events', () => new EventBridgeClient(config));
    },
    get sts() {
      return once('sts', () => new STSClient(config));
    },
  };
}
