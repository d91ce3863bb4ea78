import { App, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { Code, Function as LambdaFunction, Runtime } from 'aws-cdk-lib/aws-lambda';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import { LogSubscriptions, type LogSubscriptionsProps } from '../../lib/constructs/log-subscriptions';
import { DEFAULT_FILTER_TERMS } from '../../lib/filter-pattern';

const CLUSTERS = [
  { name: 'prod', logGroups: ['/aws/containerinsights/prod/application', '/aws/containerinsights/prod/host'] },
  { name: 'batch', logGroups: ['/eks/batch/*'] },
];

/** A stack holding only the subscriptions, to the given target. */
function subscriptions(props: (stack: Stack) => LogSubscriptionsProps): Template {
  const stack = new Stack(new App(), 'Subscriptions');
  new LogSubscriptions(stack, 'Subscriptions', props(stack));
  return Template.fromStack(stack);
}

const analyzerIn = (stack: Stack) =>
  new LambdaFunction(stack, 'Analyzer', {
    code: Code.fromInline('exports.handler = async () => {}'),
    handler: 'index.handler',
    runtime: Runtime.NODEJS_24_X,
  });

describe('LogSubscriptions with the account policy', () => {
  let template: Template;
  beforeAll(() => {
    template = subscriptions((stack) => {
      const analyzer = analyzerIn(stack);
      const own = new LogGroup(stack, 'OwnLogGroup');
      return {
        target: { function: analyzer },
        clusters: CLUSTERS,
        mode: 'account-policy',
        exclude: [own.logGroupName, '/aws/lambda/noisy'],
      };
    });
  });

  it('creates one account policy and no filter, whatever the number of groups', () => {
    template.resourceCountIs('AWS::Logs::SubscriptionFilter', 0);
    template.resourceCountIs('AWS::Logs::AccountPolicy', 1);
    template.hasResourceProperties('AWS::Logs::AccountPolicy', {
      PolicyName: 'karpenter-doctor',
      PolicyType: 'SUBSCRIPTION_FILTER_POLICY',
      Scope: 'ALL',
    });
  });

  it('delivers to the analyzer with the default filter pattern', () => {
    const policy = Object.values(template.findResources('AWS::Logs::AccountPolicy'))[0] as {
      Properties: { PolicyDocument: { 'Fn::Join': [string, unknown[]] } };
    };
    const document = JSON.stringify(policy.Properties.PolicyDocument);
    expect(document).toContain('\\"DestinationArn\\":\\"');
    expect(document).toMatch(/Analyzer[0-9A-F]{8}","Arn"/);
    expect(document).toContain(`\\"FilterPattern\\":\\"?\\\\\\"${DEFAULT_FILTER_TERMS[0]}\\\\\\"`);
  });

  it('excludes its own log group (no recursion) and the listed ones', () => {
    template.hasResourceProperties('AWS::Logs::AccountPolicy', {
      SelectionCriteria: {
        'Fn::Join': [
          '',
          ['LogGroupName NOT IN ["', { Ref: Match.stringLikeRegexp('^OwnLogGroup') }, '", "/aws/lambda/noisy"]'],
        ],
      },
    });
  });

  it('lets every log group of this account and region invoke the analyzer: the policy delivers from any of them', () => {
    template.resourceCountIs('AWS::Lambda::Permission', 1);
    template.hasResourceProperties('AWS::Lambda::Permission', {
      Principal: 'logs.amazonaws.com',
      SourceAccount: { Ref: 'AWS::AccountId' },
      SourceArn: { 'Fn::Join': ['', Match.arrayWith([':log-group:*'])] },
    });
    const policy = Object.values(template.findResources('AWS::Logs::AccountPolicy'))[0] as { DependsOn: string[] };
    expect(policy.DependsOn).toEqual([expect.stringMatching(/InvokePermission/)]);
  });
});

describe('LogSubscriptions to a destination in another account', () => {
  const DESTINATION = 'arn:aws:logs:eu-west-1:999988887777:destination:karpenter-doctor';

  it.each(['log-groups', 'account-policy'] as const)('in %s mode needs no permission and no role', (mode) => {
    const template = subscriptions(() => ({
      target: { destinationArn: DESTINATION },
      clusters: mode === 'log-groups' ? CLUSTERS.slice(0, 1) : CLUSTERS,
      mode,
    }));
    template.resourceCountIs('AWS::Lambda::Permission', 0);
    template.resourceCountIs('AWS::IAM::Role', 0);
    if (mode === 'log-groups') {
      template.resourceCountIs('AWS::Logs::SubscriptionFilter', 2);
      template.hasResourceProperties('AWS::Logs::SubscriptionFilter', { DestinationArn: DESTINATION });
    } else {
      template.hasResourceProperties('AWS::Logs::AccountPolicy', {
        PolicyDocument: Match.stringLikeRegexp(`"DestinationArn":"${DESTINATION}"`),
      });
    }
  });
});

describe('LogSubscriptions refuses', () => {
  it('a log group pattern with per-group filters, which could only subscribe exact names', () => {
    expect(() => subscriptions((stack) => ({ target: { function: analyzerIn(stack) }, clusters: CLUSTERS }))).toThrow(
      /\(\/eks\/batch\/\*\) can only be subscribed by the account policy/,
    );
  });

  it("a cluster's own filter pattern with the account policy, which has one for every group", () => {
    expect(() =>
      subscriptions((stack) => ({
        target: { function: analyzerIn(stack) },
        clusters: [{ ...CLUSTERS[0]!, filterPattern: '?ERROR' }],
        mode: 'account-policy',
      })),
    ).toThrow(/clusters prod set their own \(set subscriptions.filterPattern instead\)/);
  });

  it('exclusions longer than CloudWatch Logs allows', () => {
    const exclude = Array.from({ length: 200 }, (_, i) => `/aws/lambda/${'x'.repeat(120)}-${i}`);
    expect(() =>
      subscriptions((stack) => ({
        target: { function: analyzerIn(stack) },
        clusters: CLUSTERS,
        mode: 'account-policy',
        exclude,
      })),
    ).toThrow(/exclusions take up to \d+ bytes; CloudWatch Logs allows 25600/);
  });
});
