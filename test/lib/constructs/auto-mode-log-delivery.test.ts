import { App, Aspects } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks, ServerlessChecks } from 'cdk-nag';
import { parseConfig, type KarpenterDoctorConfig } from '../../../contracts/config';
import { KarpenterDoctorStack } from '../../../lib/karpenter-doctor-stack';
import { unsuppressedFindings } from './support';

const AUTO_GROUP = '/aws/vendedlogs/eks/auto-1/auto-mode-compute';

const synth = (config: KarpenterDoctorConfig) => {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new KarpenterDoctorStack(app, 'KarpenterDoctor', { config });
  Aspects.of(stack).add(new AwsSolutionsChecks({ verbose: true }));
  Aspects.of(stack).add(new ServerlessChecks({ verbose: true }));
  return { stack, template: Template.fromStack(stack) };
};

const CONFIG = parseConfig(
  {
    clusters: [
      { name: 'auto-1', autoModeLogs: {} },
      {
        name: 'auto-2',
        logGroups: ['/aws/containerinsights/auto-2/application'],
        autoModeLogs: { logGroupName: '/eks/auto-2/karpenter' },
      },
      { name: 'by-hand', logGroups: ['/eks/by-hand/karpenter'], autoModeLogs: { create: false } },
      { name: 'self-managed', logGroups: ['/aws/containerinsights/self-managed/application'] },
    ],
    logRetentionDays: 14,
  },
  'test',
);

/** The logical id of the one resource of `type` whose properties match `props`. */
function logicalIdOf(template: Template, type: string, props: Record<string, unknown>): string {
  const ids = Object.keys(template.findResources(type, { Properties: Match.objectLike(props) }));
  if (ids.length !== 1) throw new Error(`expected one ${type} like ${JSON.stringify(props)}, found ${ids.length}`);
  return ids[0]!;
}

describe('AutoModeLogDelivery, in the stack', () => {
  let stack: KarpenterDoctorStack;
  let template: Template;
  beforeAll(() => ({ stack, template } = synth(CONFIG)));

  it('creates a delivery only for the clusters whose autoModeLogs block asks for it', () => {
    expect([...stack.autoModeLogs.keys()]).toEqual(['auto-1', 'auto-2']);
    template.resourceCountIs('AWS::Logs::DeliverySource', 2);
    template.resourceCountIs('AWS::Logs::DeliveryDestination', 2);
    template.resourceCountIs('AWS::Logs::Delivery', 2);
  });

  it('sources AUTO_MODE_COMPUTE_LOGS from the EKS cluster of the configured name', () => {
    template.hasResourceProperties('AWS::Logs::DeliverySource', {
      LogType: 'AUTO_MODE_COMPUTE_LOGS',
      ResourceArn: {
        'Fn::Join': [
          '',
          [
            'arn:',
            { Ref: 'AWS::Partition' },
            ':eks:',
            { Ref: 'AWS::Region' },
            ':',
            { Ref: 'AWS::AccountId' },
            ':cluster/auto-1',
          ],
        ],
      },
      Name: Match.stringLikeRegexp('^[A-Za-z0-9_-]{1,60}$'),
    });
  });

  it('joins source and log group destination in a delivery, by reference', () => {
    const group = logicalIdOf(template, 'AWS::Logs::LogGroup', { LogGroupName: AUTO_GROUP });
    const destination = logicalIdOf(template, 'AWS::Logs::DeliveryDestination', {
      DestinationResourceArn: { 'Fn::GetAtt': [group, 'Arn'] },
    });
    const source = logicalIdOf(template, 'AWS::Logs::DeliverySource', {
      ResourceArn: Match.objectLike({ 'Fn::Join': ['', Match.arrayWith([':cluster/auto-1'])] }),
    });
    template.hasResourceProperties('AWS::Logs::DeliveryDestination', {
      DestinationResourceArn: { 'Fn::GetAtt': [group, 'Arn'] },
      DeliveryDestinationType: 'CWL',
    });
    template.hasResourceProperties('AWS::Logs::Delivery', {
      DeliverySourceName: { Ref: source },
      DeliveryDestinationArn: { 'Fn::GetAtt': [destination, 'Arn'] },
    });
  });

  it('creates each log group with the configured retention and name', () => {
    template.hasResourceProperties('AWS::Logs::LogGroup', { LogGroupName: AUTO_GROUP, RetentionInDays: 14 });
    template.hasResourceProperties('AWS::Logs::LogGroup', {
      LogGroupName: '/eks/auto-2/karpenter',
      RetentionInDays: 14,
    });
  });

  it('lets only the delivery service of this account write the created groups, before any delivery', () => {
    const policies = template.findResources('AWS::Logs::ResourcePolicy');
    expect(Object.keys(policies)).toHaveLength(1);
    const [policyId, policy] = Object.entries(policies)[0]!;
    const document = JSON.stringify((policy as { Properties: unknown }).Properties);
    expect(document).toContain('delivery.logs.amazonaws.com');
    expect(document).toContain(`:log-group:${AUTO_GROUP}:log-stream:*`);
    expect(document).toContain(':log-group:/eks/auto-2/karpenter:log-stream:*');
    expect(document).toContain('aws:SourceAccount');
    for (const [, destination] of Object.entries(template.findResources('AWS::Logs::DeliveryDestination'))) {
      expect((destination as { DependsOn?: string[] }).DependsOn).toContain(policyId);
    }
  });

  it('subscribes each created group to the analyzer, once the group exists', () => {
    for (const name of [AUTO_GROUP, '/eks/auto-2/karpenter']) {
      const group = logicalIdOf(template, 'AWS::Logs::LogGroup', { LogGroupName: name });
      const filters = template.findResources('AWS::Logs::SubscriptionFilter', {
        Properties: Match.objectLike({ LogGroupName: name }),
      });
      expect(Object.keys(filters)).toHaveLength(1);
      expect((Object.values(filters)[0] as { DependsOn?: string[] }).DependsOn).toContain(group);
    }
    // A delivery made by hand is subscribed through logGroups, as any group.
    template.hasResourceProperties('AWS::Logs::SubscriptionFilter', { LogGroupName: '/eks/by-hand/karpenter' });
  });

  it('has zero unsuppressed cdk-nag AwsSolutions and Serverless findings', () => {
    expect(unsuppressedFindings(stack)).toEqual([]);
    expect(unsuppressedFindings(stack, 'Serverless')).toEqual([]);
  });
});

describe('AutoModeLogDelivery, with the account policy', () => {
  it('never excludes a created group from the account policy', () => {
    const { template } = synth(
      parseConfig({ clusters: [{ name: 'auto-1', autoModeLogs: {} }], subscriptions: { mode: 'account-policy' } }, 't'),
    );
    const [policy] = Object.values(template.findResources('AWS::Logs::AccountPolicy')) as Array<{
      Properties: { SelectionCriteria: unknown };
    }>;
    expect(JSON.stringify(policy!.Properties.SelectionCriteria)).not.toContain(AUTO_GROUP);
    template.resourceCountIs('AWS::Logs::Delivery', 1);
  });
});

describe('AutoModeLogDelivery, many clusters', () => {
  const clusters = (count: number) =>
    Array.from({ length: count }, (_, i) => ({
      name: `auto-mode-cluster-${String(i).padStart(3, '0')}`,
      autoModeLogs: {},
    }));

  it('lets every created group share one statement of the one resource policy', () => {
    const { template } = synth(parseConfig({ clusters: clusters(30) }, 't'));
    const [policy] = Object.values(template.findResources('AWS::Logs::ResourcePolicy')) as Array<{
      Properties: { PolicyDocument: unknown };
    }>;
    const document = JSON.stringify(policy!.Properties.PolicyDocument);
    expect(document.match(/"Sid"|\\"Effect\\"/g)).toHaveLength(1);
    expect(document.match(/:log-stream:\*/g)).toHaveLength(30);
  });

  it('fails the synth, saying why, when the resource policy would pass 5,120 characters', () => {
    expect(() => synth(parseConfig({ clusters: clusters(60) }, 't'))).toThrow(
      /AutoModeLogsDeliveryPolicy: the Auto Mode log groups of 60 clusters need a resource policy of about \d+ characters; CloudWatch Logs allows 5120/,
    );
  });
});
