import { ArnFormat, Stack } from 'aws-cdk-lib';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { NagPackSuppression } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import type { RemediationConfig } from '../../contracts/config';
import type { RemediationMode } from '../../contracts/remediation';
import { OPT_IN_TAG } from '../../contracts/names';
import { RAISABLE_QUOTA_CODES } from '../../contracts/quota-codes';

/**
 * The AWS access of karpenter-doctor's functions in the account of a cluster, written once: the
 * one-account stack grants it to its functions' roles, the spoke stack to the roles the central
 * functions assume in each account. Same actions, same resources, same tag conditions.
 */

/** What the access of one cluster depends on. */
export interface AccessCluster {
  readonly name: string;
  /** The managed node group the remediator may raise. */
  readonly systemNodegroup?: string;
  /** The self-managed Auto Scaling group the remediator may raise. */
  readonly systemAutoScalingGroup?: string;
}

/** Statements, and the cdk-nag suppressions (with their reasons) that their resources need. */
export interface Access {
  readonly statements: PolicyStatement[];
  readonly suppressions: NagPackSuppression[];
}

const REMEDIATION_READS_ON_ANY_RESOURCE: NagPackSuppression = {
  id: 'AwsSolutions-IAM5',
  reason:
    'ec2:DescribeSubnets, ec2:DescribeVpcs, autoscaling:DescribeAutoScalingGroups and servicequotas:ListRequestedServiceQuotaChangeHistoryByQuota support no resource-level permissions and need Resource "*" (Service Authorization Reference: https://docs.aws.amazon.com/service-authorization/latest/reference/list_amazonec2.html, list_amazonec2autoscaling.html, list_servicequotas.html). Read-only and listed by name, no Describe* wildcard.',
  appliesTo: ['Resource::*'],
};

const ENRICHMENT_READS_ON_ANY_RESOURCE: NagPackSuppression = {
  id: 'AwsSolutions-IAM5',
  reason:
    'ec2:DescribeSubnets, ec2:DescribeVpcs and autoscaling:DescribeAutoScalingGroups support no resource-level permissions and need Resource "*" (Service Authorization Reference: https://docs.aws.amazon.com/service-authorization/latest/reference/list_amazonec2.html and list_amazonec2autoscaling.html). They are read-only and listed by name, no Describe* wildcard.',
  appliesTo: ['Resource::*'],
};

const NODEGROUPS_OF_CLUSTERS: NagPackSuppression = {
  id: 'AwsSolutions-IAM5',
  reason:
    'Node group ARNs end in a generated id (nodegroup/<cluster>/<name>/<uuid>), so eks:DescribeNodegroup is scoped to the configured clusters with wildcards only for name and id.',
  appliesTo: [
    {
      regex:
        '/^Resource::arn:(?:<AWS::Partition>|aws[a-z-]*):eks:(?:<AWS::Region>|[a-z0-9-]+):(?:<AWS::AccountId>|\\d{12}):nodegroup\\/.*\\/\\*\\/\\*$/',
    },
  ],
};

const clusterArnsOf = (stack: Stack, clusters: readonly AccessCluster[]) =>
  clusters.map((c) => stack.formatArn({ service: 'eks', resource: 'cluster', resourceName: c.name }));
const nodegroupArnsOf = (stack: Stack, clusters: readonly AccessCluster[]) =>
  clusters.map((c) => stack.formatArn({ service: 'eks', resource: 'nodegroup', resourceName: `${c.name}/*/*` }));

/**
 * What enrichment and the headroom check read: subnets, VPCs and Auto Scaling groups (no
 * resource-level permissions), the configured clusters and their node groups, and EC2 quotas.
 */
export function enrichmentAccess(scope: IConstruct, clusters: readonly AccessCluster[]): Access {
  const stack = Stack.of(scope);
  return {
    statements: [
      new PolicyStatement({
        sid: 'DescribeNetworkAndGroups',
        actions: ['ec2:DescribeSubnets', 'ec2:DescribeVpcs', 'autoscaling:DescribeAutoScalingGroups'],
        resources: ['*'],
      }),
      new PolicyStatement({
        sid: 'DescribeClusters',
        actions: ['eks:DescribeCluster', 'eks:ListNodegroups'],
        resources: clusterArnsOf(stack, clusters),
      }),
      new PolicyStatement({
        sid: 'DescribeNodegroups',
        actions: ['eks:DescribeNodegroup'],
        resources: nodegroupArnsOf(stack, clusters),
      }),
      new PolicyStatement({
        sid: 'ReadEc2Quotas',
        actions: ['servicequotas:GetServiceQuota'],
        resources: [stack.formatArn({ service: 'servicequotas', resource: 'ec2', resourceName: '*' })],
      }),
    ],
    suppressions: [
      ENRICHMENT_READS_ON_ANY_RESOURCE,
      NODEGROUPS_OF_CLUSTERS,
      {
        id: 'AwsSolutions-IAM5',
        reason:
          'The EC2 quota to read is chosen at run time from the instance family in the failure (standard, G/VT, P, spot); servicequotas:GetServiceQuota is scoped to EC2 quotas of this account and region.',
        appliesTo: [
          {
            regex:
              '/^Resource::arn:(?:<AWS::Partition>|aws[a-z-]*):servicequotas:(?:<AWS::Region>|[a-z0-9-]+):(?:<AWS::AccountId>|\\d{12}):ec2\\/\\*$/',
          },
        ],
      },
    ],
  };
}

/**
 * What the remediator needs for the actions that are turned on: read-only calls for dry-run; for
 * apply, changes to the configured system groups only, conditioned on the opt-in tag, and quota
 * requests for the quotas its rule may raise only. Nothing may associate a VPC CIDR.
 */
export function remediationAccess(
  scope: IConstruct,
  clusters: readonly AccessCluster[],
  actions: RemediationConfig,
): Access {
  const stack = Stack.of(scope);
  const parts = [
    nodegroupRaiseAccess(stack, clusters, actions.raiseSystemNodegroup.mode),
    quotaRequestAccess(stack, actions.requestQuotaIncrease.mode),
    subnetPlanningAccess(stack, clusters, actions.planSubnetCapacity.mode),
  ];
  const statements = parts.flatMap((part) => part.statements);
  const suppressions = parts.flatMap((part) => part.suppressions);
  if (statements.length > 0) suppressions.push(REMEDIATION_READS_ON_ANY_RESOURCE);
  return { statements, suppressions };
}

const NO_ACCESS: Access = { statements: [], suppressions: [] };

/**
 * Raising the system node group: read the configured clusters' node groups and the Auto Scaling
 * groups; in apply, change only the configured system groups, and only while they carry the opt-in tag.
 */
function nodegroupRaiseAccess(stack: Stack, clusters: readonly AccessCluster[], mode: RemediationMode): Access {
  if (mode === 'off') return NO_ACCESS;
  const statements = [
    new PolicyStatement({
      sid: 'ReadNodegroups',
      actions: ['eks:DescribeNodegroup'],
      resources: nodegroupArnsOf(stack, clusters),
    }),
    new PolicyStatement({
      sid: 'ReadAutoScalingGroups',
      actions: ['autoscaling:DescribeAutoScalingGroups'],
      resources: ['*'],
    }),
  ];
  const suppressions = [NODEGROUPS_OF_CLUSTERS];
  if (mode !== 'apply') return { statements, suppressions };

  const managed = clusters.filter((c) => c.systemNodegroup);
  if (managed.length > 0) {
    statements.push(
      new PolicyStatement({
        sid: 'RaiseOptedInManagedNodegroups',
        actions: ['eks:UpdateNodegroupConfig'],
        resources: managed.map((c) =>
          stack.formatArn({ service: 'eks', resource: 'nodegroup', resourceName: `${c.name}/${c.systemNodegroup}/*` }),
        ),
        conditions: { StringEquals: { [`aws:ResourceTag/${OPT_IN_TAG}`]: 'true' } },
      }),
    );
    suppressions.push(MANAGED_SYSTEM_NODEGROUPS);
  }
  const selfManaged = clusters.filter((c) => c.systemAutoScalingGroup);
  if (selfManaged.length > 0) {
    statements.push(
      new PolicyStatement({
        sid: 'RaiseOptedInSelfManagedGroups',
        actions: ['autoscaling:UpdateAutoScalingGroup'],
        resources: selfManaged.map((c) =>
          stack.formatArn({
            service: 'autoscaling',
            resource: 'autoScalingGroup',
            resourceName: `*:autoScalingGroupName/${c.systemAutoScalingGroup}`,
            arnFormat: ArnFormat.COLON_RESOURCE_NAME,
          }),
        ),
        conditions: { StringEquals: { [`autoscaling:ResourceTag/${OPT_IN_TAG}`]: 'true' } },
      }),
    );
    suppressions.push(SELF_MANAGED_SYSTEM_GROUPS);
  }
  return { statements, suppressions };
}

/** Quota requests: read the quotas the quota rule may raise and past requests; in apply, request those. */
function quotaRequestAccess(stack: Stack, mode: RemediationMode): Access {
  if (mode === 'off') return NO_ACCESS;
  // Only the quotas the quota rule may raise, never every EC2 quota.
  const ec2Quotas = RAISABLE_QUOTA_CODES.map((code) =>
    stack.formatArn({ service: 'servicequotas', resource: 'ec2', resourceName: code }),
  );
  const statements = [
    new PolicyStatement({ sid: 'ReadEc2Quotas', actions: ['servicequotas:GetServiceQuota'], resources: ec2Quotas }),
    new PolicyStatement({
      sid: 'ReadQuotaRequests',
      actions: ['servicequotas:ListRequestedServiceQuotaChangeHistoryByQuota'],
      resources: ['*'],
    }),
  ];
  if (mode === 'apply') {
    statements.push(
      new PolicyStatement({
        sid: 'RequestEc2QuotaIncreases',
        actions: ['servicequotas:RequestServiceQuotaIncrease'],
        resources: ec2Quotas,
      }),
    );
  }
  return { statements, suppressions: [] };
}

/** Subnet capacity is only ever planned: read the network and the clusters, change nothing. */
function subnetPlanningAccess(stack: Stack, clusters: readonly AccessCluster[], mode: RemediationMode): Access {
  if (mode === 'off') return NO_ACCESS;
  return {
    statements: [
      new PolicyStatement({
        sid: 'ReadNetwork',
        actions: ['ec2:DescribeSubnets', 'ec2:DescribeVpcs'],
        resources: ['*'],
      }),
      new PolicyStatement({
        sid: 'ReadClusters',
        actions: ['eks:DescribeCluster'],
        resources: clusterArnsOf(stack, clusters),
      }),
    ],
    suppressions: [],
  };
}

const MANAGED_SYSTEM_NODEGROUPS: NagPackSuppression = {
  id: 'AwsSolutions-IAM5',
  reason:
    'A node group ARN ends in an id EKS generates (nodegroup/<cluster>/<name>/<uuid>): eks:UpdateNodegroupConfig names each configured system node group and wildcards only that id; it is also conditioned on the opt-in tag.',
  appliesTo: [
    {
      regex:
        '/^Resource::arn:(?:<AWS::Partition>|aws[a-z-]*):eks:(?:<AWS::Region>|[a-z0-9-]+):(?:<AWS::AccountId>|\\d{12}):nodegroup\\/[^*]+\\/[^*]+\\/\\*$/',
    },
  ],
};

const SELF_MANAGED_SYSTEM_GROUPS: NagPackSuppression = {
  id: 'AwsSolutions-IAM5',
  reason:
    'An Auto Scaling group ARN holds an id AWS generates (autoScalingGroup:<uuid>:autoScalingGroupName/<name>): autoscaling:UpdateAutoScalingGroup names each configured self-managed system group and wildcards only that id; it is also conditioned on the opt-in tag.',
  appliesTo: [
    {
      regex:
        '/^Resource::arn:(?:<AWS::Partition>|aws[a-z-]*):autoscaling:(?:<AWS::Region>|[a-z0-9-]+):(?:<AWS::AccountId>|\\d{12}):autoScalingGroup:\\*:autoScalingGroupName\\/[^*]+$/',
    },
  ],
};
