import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { AutoScalingClient, type AutoScalingGroup } from '@aws-sdk/client-auto-scaling';
import { EC2Client } from '@aws-sdk/client-ec2';
import { EKSClient } from '@aws-sdk/client-eks';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { ServiceQuotasClient } from '@aws-sdk/client-service-quotas';
import { SNSClient } from '@aws-sdk/client-sns';
import { STSClient } from '@aws-sdk/client-sts';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DEFAULT_LIMITS } from '../../lambdas/core/incidents/digest';
import { DEFAULT_SOURCES } from '../../lambdas/core/parse/karpenter-source';
import { DEFAULT_POLICY } from '../../lambdas/core/incidents/lifecycle';
import type { AwsClients } from '../../lambdas/shared/aws-clients';
import type { AnalyzerSettings } from '../../lambdas/shared/settings';

export const REGION = 'eu-west-1';
export const ACCOUNT = '111122223333';

/**
 * SDK clients for handler tests: the AWS services are mocked at the SDK level by the test
 * (aws-sdk-client-mock replaces `send` on every instance); DynamoDB is the local dynalite server.
 */
export function testClients(dynamo: DynamoDBDocumentClient): AwsClients {
  return {
    dynamo,
    ec2: new EC2Client({ region: REGION }),
    eks: new EKSClient({ region: REGION }),
    autoScaling: new AutoScalingClient({ region: REGION }),
    serviceQuotas: new ServiceQuotasClient({ region: REGION }),
    sns: new SNSClient({ region: REGION }),
    events: new EventBridgeClient({ region: REGION }),
    sts: new STSClient({ region: REGION }),
  };
}

/** The settings the stack would give the functions, for one cluster `prod` and the given table. */
export function testSettings(tableName: string): AnalyzerSettings {
  return {
    tableName,
    topicArn: `arn:aws:sns:${REGION}:${ACCOUNT}:karpenter-doctor-findings`,
    eventBusName: 'default',
    eventSource: 'io.karpenter-doctor',
    clusters: [{ name: 'prod', logGroups: ['/eks/prod/karpenter', '/aws/containerinsights/prod/application'] }],
    policy: DEFAULT_POLICY,
    enrichBudgetMs: 5_000,
    limits: DEFAULT_LIMITS,
    sources: DEFAULT_SOURCES,
  };
}

/** Powertools, silent: the test setup turns logging and metric output off. */
export const testObservability = (service = 'test') => ({
  logger: new Logger({ serviceName: service, logLevel: 'SILENT' }),
  metrics: new Metrics({ namespace: 'Test', serviceName: service }),
});

/** An Auto Scaling group as DescribeAutoScalingGroups returns it: the members AWS always sets, then `more`. */
export const autoScalingGroup = (
  name: string,
  size: { min: number; desired: number; max: number },
  more: Partial<AutoScalingGroup> = {},
): AutoScalingGroup => ({
  AutoScalingGroupName: name,
  MinSize: size.min,
  MaxSize: size.max,
  DesiredCapacity: size.desired,
  DefaultCooldown: 300,
  AvailabilityZones: ['eu-west-1a'],
  HealthCheckType: 'EC2',
  CreatedTime: new Date('2026-01-01T00:00:00Z'),
  ...more,
});
