import { AutoScalingClient, DescribeAutoScalingGroupsCommand } from '@aws-sdk/client-auto-scaling';
import { DescribeClusterCommand, EKSClient } from '@aws-sdk/client-eks';
import { ServiceQuotasClient } from '@aws-sdk/client-service-quotas';
import { mockClient } from 'aws-sdk-client-mock';
import { ACCOUNT, REGION } from './aws';

/** The invocation context of the remediator in the home account. */
export const REMEDIATOR_CONTEXT = {
  invokedFunctionArn: `arn:aws:lambda:${REGION}:${ACCOUNT}:function:karpenter-doctor-remediator`,
};

/**
 * The services only remediation calls (EKS, Auto Scaling, Service Quotas), mocked at the SDK level and
 * reset before each test, with no Auto Scaling group and cluster `prod` described; call it after
 * `useHandlerHarness`. A file's own `beforeEach` runs after this one, so it can answer otherwise.
 */
export function useRemediationMocks() {
  const eks = mockClient(EKSClient);
  const autoScaling = mockClient(AutoScalingClient);
  const serviceQuotas = mockClient(ServiceQuotasClient);
  beforeEach(() => {
    for (const mock of [eks, autoScaling, serviceQuotas]) mock.reset();
    autoScaling.on(DescribeAutoScalingGroupsCommand).resolves({ AutoScalingGroups: [] });
    eks
      .on(DescribeClusterCommand)
      .resolves({ cluster: { name: 'prod', resourcesVpcConfig: { clusterSecurityGroupId: 'sg-0cluster' } } });
  });
  return { eks, autoScaling, serviceQuotas };
}

/** The EventBridge event that hands a finding to the remediator (the target input of its rule). */
export const findingDelivery = <Detail>(
  detail: Detail,
  { time, resources }: { time: string; resources: string[] },
) => ({
  version: '0',
  id: 'e1d1b5c2-0000-4000-8000-000000000000',
  'detail-type': 'Karpenter Finding',
  source: 'io.karpenter-doctor',
  account: ACCOUNT,
  time,
  region: REGION,
  resources,
  detail,
});
