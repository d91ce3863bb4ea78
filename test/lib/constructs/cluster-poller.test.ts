import { App, Aspects } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks, ServerlessChecks } from 'cdk-nag';
import { parseConfig } from '../../../contracts/config';
import { KarpenterDoctorStack } from '../../../lib/karpenter-doctor-stack';
import { unsuppressedFindings } from './support';

const CONFIG = parseConfig(
  {
    clusters: [
      { name: 'prod', logGroups: ['/aws/containerinsights/prod/application'], poll: {} },
      {
        name: 'private-1',
        logGroups: ['/aws/containerinsights/private-1/application'],
        poll: {
          intervalMinutes: 5,
          endpointAccess: 'private',
          subnetIds: ['subnet-0a1b2c3d4e5f60718'],
          securityGroupIds: ['sg-0123456789abcdef0'],
        },
      },
      { name: 'logs-only', logGroups: ['/aws/containerinsights/logs-only/application'] },
    ],
  },
  'test',
);

describe('ClusterPoller, in the stack', () => {
  let stack: KarpenterDoctorStack;
  let template: Template;
  beforeAll(() => {
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    stack = new KarpenterDoctorStack(app, 'KarpenterDoctor', { config: CONFIG });
    Aspects.of(stack).add(new AwsSolutionsChecks({ verbose: true }));
    Aspects.of(stack).add(new ServerlessChecks({ verbose: true }));
    template = Template.fromStack(stack);
  });

  it('polls only the clusters with a poll block, each on its own schedule (default every minute)', () => {
    expect([...stack.pollers.keys()]).toEqual(['prod', 'private-1']);
    template.hasResourceProperties('AWS::Scheduler::Schedule', {
      ScheduleExpression: 'rate(1 minute)',
      Target: Match.objectLike({ Input: Match.stringLikeRegexp('"cluster":"prod"') }),
    });
    template.hasResourceProperties('AWS::Scheduler::Schedule', {
      ScheduleExpression: 'rate(5 minutes)',
      Target: Match.objectLike({ Input: Match.stringLikeRegexp('"cluster":"private-1"') }),
    });
  });

  it('creates a view-only access entry for the poller role of each polled cluster', () => {
    template.resourceCountIs('AWS::EKS::AccessEntry', 2);
    template.hasResourceProperties('AWS::EKS::AccessEntry', {
      ClusterName: 'prod',
      Type: 'STANDARD',
      KubernetesGroups: ['karpenter-doctor-state-readers'],
      AccessPolicies: [
        {
          PolicyArn: {
            'Fn::Join': [
              '',
              ['arn:', { Ref: 'AWS::Partition' }, ':eks::aws:cluster-access-policy/AmazonEKSViewPolicy'],
            ],
          },
          AccessScope: { Type: 'cluster' },
        },
      ],
    });
  });

  it('runs the poller of a private endpoint in the configured subnets and security groups', () => {
    template.hasResourceProperties('AWS::Lambda::Function', {
      Description: Match.stringLikeRegexp('cluster private-1'),
      VpcConfig: { SubnetIds: ['subnet-0a1b2c3d4e5f60718'], SecurityGroupIds: ['sg-0123456789abcdef0'] },
    });
    template.hasResourceProperties('AWS::Lambda::Function', {
      Description: Match.stringLikeRegexp('cluster prod '),
      VpcConfig: Match.absent(),
    });
  });

  it('has zero unsuppressed cdk-nag AwsSolutions and Serverless findings', () => {
    expect(unsuppressedFindings(stack)).toEqual([]);
    expect(unsuppressedFindings(stack, 'Serverless')).toEqual([]);
  });
});
