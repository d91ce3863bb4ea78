import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import {
  enrichmentAccess,
  remediationAccess,
  type Access,
  type AccessCluster,
} from '../../../lib/constructs/aws-access';
import { suppressOnRole } from '../../../lib/constructs/lambda-function';
import type { RemediationConfig } from '../../../contracts/config';
import { nagFindings, resourcesOf, statementsOf, type Statement } from './support';

const CLUSTERS: AccessCluster[] = [
  { name: 'prod', systemNodegroup: 'system' },
  { name: 'legacy', systemAutoScalingGroup: 'legacy-asg' },
  { name: 'dev' },
];

const actions = (
  raise: 'off' | 'dry-run' | 'apply',
  quota: 'off' | 'dry-run' | 'apply',
  plan: 'off' | 'dry-run',
): RemediationConfig => ({
  raiseSystemNodegroup: { mode: raise, maxMinSize: 3 },
  requestQuotaIncrease: { mode: quota, maxValue: 512, windowHours: 24 },
  planSubnetCapacity: { mode: plan },
});

/**
 * The access granted to a role of its own in a bare stack, with or without its suppressions: the
 * statements as the template has them, and the unsuppressed cdk-nag findings on the role.
 */
function grant(access: (scope: Stack) => Access, suppress = true): { statements: Statement[]; findings: string[] } {
  const stack = new Stack(new App(), 'Test');
  const role = new Role(stack, 'Role', { assumedBy: new ServicePrincipal('lambda.amazonaws.com') });
  const { statements, suppressions } = access(stack);
  for (const statement of statements) role.addToPrincipalPolicy(statement);
  if (suppress) suppressOnRole(role, suppressions);
  const findings = nagFindings(stack, 'Role');
  return { statements: statementsOf(Template.fromStack(stack), 'Role'), findings };
}

/** What each unsuppressed AwsSolutions-IAM5 finding flags, sorted. */
const flagged = (findings: string[]) =>
  findings.map((f) => /AwsSolutions-IAM5\[([^\]]+)\]/.exec(f)?.[1] ?? f).sort((a, b) => a.localeCompare(b));

const sids = (statements: Statement[]) => statements.map((s) => s.Sid);
/** The resource names after the last ':' of each resource, e.g. `cluster/prod`. */
const namesOf = (s: Statement) => resourcesOf(s).map((r) => /:([^:"]+)"\]\]\}$/.exec(r)?.[1] ?? r);

describe('enrichmentAccess', () => {
  let statements: Statement[];
  let findings: string[];
  beforeAll(() => ({ statements, findings } = grant((stack) => enrichmentAccess(stack, CLUSTERS))));

  it('reads subnets, VPCs and Auto Scaling groups, the configured clusters and node groups, and EC2 quotas', () => {
    expect(sids(statements)).toEqual([
      'DescribeNetworkAndGroups',
      'DescribeClusters',
      'DescribeNodegroups',
      'ReadEc2Quotas',
    ]);
    expect(statements.map((s) => s.Action)).toEqual([
      ['ec2:DescribeSubnets', 'ec2:DescribeVpcs', 'autoscaling:DescribeAutoScalingGroups'],
      ['eks:DescribeCluster', 'eks:ListNodegroups'],
      'eks:DescribeNodegroup',
      'servicequotas:GetServiceQuota',
    ]);
    expect(statements[0]!.Resource).toBe('*');
    expect(namesOf(statements[1]!)).toEqual(['cluster/prod', 'cluster/legacy', 'cluster/dev']);
    expect(namesOf(statements[2]!)).toEqual(['nodegroup/prod/*/*', 'nodegroup/legacy/*/*', 'nodegroup/dev/*/*']);
    expect(namesOf(statements[3]!)).toEqual(['ec2/*']);
  });

  it('changes nothing', () => {
    expect(statements.flatMap((s) => s.Action).filter((a) => !/:(Describe|List|Get)/.test(a))).toEqual([]);
  });

  it('carries a written reason for each wildcard cdk-nag would flag, and flags appear without them', () => {
    expect(findings).toEqual([]);
    expect(flagged(grant((stack) => enrichmentAccess(stack, CLUSTERS), false).findings)).toEqual([
      'Resource::*',
      'Resource::arn:<AWS::Partition>:eks:<AWS::Region>:<AWS::AccountId>:nodegroup/dev/*/*',
      'Resource::arn:<AWS::Partition>:eks:<AWS::Region>:<AWS::AccountId>:nodegroup/legacy/*/*',
      'Resource::arn:<AWS::Partition>:eks:<AWS::Region>:<AWS::AccountId>:nodegroup/prod/*/*',
      'Resource::arn:<AWS::Partition>:servicequotas:<AWS::Region>:<AWS::AccountId>:ec2/*',
    ]);
  });
});

describe('remediationAccess', () => {
  it('grants nothing, and needs no suppression, while every action is off', () => {
    const stack = new Stack(new App(), 'Test');
    expect(remediationAccess(stack, CLUSTERS, actions('off', 'off', 'off'))).toEqual({
      statements: [],
      suppressions: [],
    });
  });

  it('in dry-run only reads, action by action', () => {
    const { statements, findings } = grant((stack) =>
      remediationAccess(stack, CLUSTERS, actions('dry-run', 'dry-run', 'dry-run')),
    );
    expect(sids(statements)).toEqual([
      'ReadNodegroups',
      'ReadAutoScalingGroups',
      'ReadEc2Quotas',
      'ReadQuotaRequests',
      'ReadNetwork',
      'ReadClusters',
    ]);
    expect(statements.flatMap((s) => s.Action).filter((a) => !/:(Describe|List|Get)/.test(a))).toEqual([]);
    expect(findings).toEqual([]);
  });

  it('reads and requests only the six EC2 quotas its rule may raise', () => {
    const { statements } = grant((stack) => remediationAccess(stack, CLUSTERS, actions('off', 'apply', 'off')));
    expect(sids(statements)).toEqual(['ReadEc2Quotas', 'ReadQuotaRequests', 'RequestEc2QuotaIncreases']);
    const quotas = namesOf(statements[2]!);
    expect(quotas).toHaveLength(6);
    for (const quota of quotas) expect(quota).toMatch(/^ec2\/L-[0-9A-F]{8}$/);
    expect(namesOf(statements[0]!)).toEqual(quotas);
  });

  it('in apply changes only the configured system groups, and only while they carry the opt-in tag', () => {
    const { statements, findings } = grant((stack) =>
      remediationAccess(stack, CLUSTERS, actions('apply', 'off', 'off')),
    );
    expect(sids(statements)).toEqual([
      'ReadNodegroups',
      'ReadAutoScalingGroups',
      'RaiseOptedInManagedNodegroups',
      'RaiseOptedInSelfManagedGroups',
    ]);
    expect(statements[2]).toMatchObject({
      Action: 'eks:UpdateNodegroupConfig',
      Condition: { StringEquals: { 'aws:ResourceTag/karpenter-doctor/remediate': 'true' } },
    });
    expect(namesOf(statements[2]!)).toEqual(['nodegroup/prod/system/*']);
    expect(statements[3]).toMatchObject({
      Action: 'autoscaling:UpdateAutoScalingGroup',
      Condition: { StringEquals: { 'autoscaling:ResourceTag/karpenter-doctor/remediate': 'true' } },
    });
    expect(resourcesOf(statements[3]!).join()).toContain(':autoScalingGroup:*:autoScalingGroupName/legacy-asg');
    expect(findings).toEqual([]);
  });

  it('in apply grants no change at all when no system group is configured, and suppresses nothing for one', () => {
    const stack = new Stack(new App(), 'Test');
    const access = remediationAccess(stack, [{ name: 'dev' }], actions('apply', 'off', 'off'));
    expect(access.statements.map((s) => s.sid)).toEqual(['ReadNodegroups', 'ReadAutoScalingGroups']);
    expect(access.suppressions.map((s) => s.reason)).not.toContainEqual(expect.stringMatching(/opt-in tag/));
  });

  it('never associates a VPC CIDR: subnet capacity is only planned', () => {
    const { statements } = grant((stack) => remediationAccess(stack, CLUSTERS, actions('apply', 'apply', 'dry-run')));
    expect(statements.flatMap((s) => s.Action).filter((a) => /Cidr|Associate/.test(a))).toEqual([]);
  });

  it('carries a written reason for each wildcard cdk-nag would flag without them', () => {
    const access = (stack: Stack) => remediationAccess(stack, CLUSTERS, actions('apply', 'apply', 'dry-run'));
    expect(grant(access).findings).toEqual([]);
    expect(flagged(grant(access, false).findings)).toEqual([
      'Resource::*',
      'Resource::arn:<AWS::Partition>:autoscaling:<AWS::Region>:<AWS::AccountId>:autoScalingGroup:*:autoScalingGroupName/legacy-asg',
      'Resource::arn:<AWS::Partition>:eks:<AWS::Region>:<AWS::AccountId>:nodegroup/dev/*/*',
      'Resource::arn:<AWS::Partition>:eks:<AWS::Region>:<AWS::AccountId>:nodegroup/legacy/*/*',
      'Resource::arn:<AWS::Partition>:eks:<AWS::Region>:<AWS::AccountId>:nodegroup/prod/*/*',
      'Resource::arn:<AWS::Partition>:eks:<AWS::Region>:<AWS::AccountId>:nodegroup/prod/system/*',
    ]);
  });
});
