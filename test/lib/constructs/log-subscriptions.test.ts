import { App, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { Code, Function as LambdaFunction, Runtime } from 'aws-cdk-lib/aws-lambda';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import {
  invokeSourcesOf,
  LogSubscriptions,
  type LogSubscriptionsProps,
} from '../../../lib/constructs/log-subscriptions';
import { DEFAULT_FILTER_TERMS } from '../../../lib/filter-pattern';

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

describe('LogSubscriptions with a filter per log group', () => {
  const GROUPS = [
    { name: 'prod', logGroups: ['/aws/containerinsights/prod/application', '/aws/containerinsights/prod/host'] },
    { name: 'legacy', logGroups: ['/eks/legacy/karpenter'], filterPattern: '?ERROR ?Warning' },
  ];
  let template: Template;
  beforeAll(() => {
    template = subscriptions((stack) => ({ target: { function: analyzerIn(stack) }, clusters: GROUPS }));
  });

  it('subscribes each group once, named karpenter-doctor, to the analyzer', () => {
    template.resourceCountIs('AWS::Logs::SubscriptionFilter', 3);
    template.resourceCountIs('AWS::Logs::AccountPolicy', 0);
    template.hasResourceProperties('AWS::Logs::SubscriptionFilter', {
      LogGroupName: '/aws/containerinsights/prod/host',
      FilterName: 'karpenter-doctor',
      DestinationArn: { 'Fn::GetAtt': [Match.stringLikeRegexp('^Analyzer'), 'Arn'] },
    });
  });

  it("filters with the cluster's own pattern, or the default one from a template parameter written once", () => {
    template.hasResourceProperties('AWS::Logs::SubscriptionFilter', {
      LogGroupName: '/eks/legacy/karpenter',
      FilterPattern: '?ERROR ?Warning',
    });
    template.hasResourceProperties('AWS::Logs::SubscriptionFilter', {
      LogGroupName: '/aws/containerinsights/prod/application',
      FilterPattern: { Ref: 'DefaultFilterPattern' },
    });
    template.hasParameter('DefaultFilterPattern', {
      Type: 'String',
      MaxLength: 1024,
      Default: Match.stringLikeRegexp(DEFAULT_FILTER_TERMS.at(-1)!),
    });
  });

  it('bounds the invoke permissions to the configured groups: a shared folder, or the exact name', () => {
    const permissions = Object.values(template.findResources('AWS::Lambda::Permission')) as Array<{
      Properties: { SourceAccount: unknown; SourceArn: { 'Fn::Join': [string, unknown[]] } };
    }>;
    expect(permissions.map((p) => p.Properties.SourceArn['Fn::Join'][1].at(-1)).sort()).toEqual([
      ':log-group:/aws/containerinsights/prod/*',
      ':log-group:/eks/legacy/karpenter:*',
    ]);
    for (const permission of permissions) {
      expect(permission.Properties.SourceAccount).toEqual({ Ref: 'AWS::AccountId' });
    }
    const filters = Object.values(template.findResources('AWS::Logs::SubscriptionFilter')) as Array<{
      DependsOn: string[];
    }>;
    for (const filter of filters) expect(filter.DependsOn).toHaveLength(2);
  });

  it('names each filter after its log group, so reordering the clusters or their groups replaces nothing', () => {
    const reordered = subscriptions((stack) => ({
      target: { function: analyzerIn(stack) },
      clusters: [...GROUPS].reverse().map((c) => ({ ...c, logGroups: [...c.logGroups].reverse() })),
    }));
    const ids = (t: Template) => Object.keys(t.findResources('AWS::Logs::SubscriptionFilter')).sort();
    expect(ids(reordered)).toEqual(ids(template));
    expect(ids(template)).toEqual(
      expect.arrayContaining([expect.stringMatching(/^SubscriptionsFilterAwsContainerinsightsProdHost[0-9a-f]{8}/)]),
    );
  });
});

describe('invokeSourcesOf', () => {
  it.each([
    [['/aws/containerinsights/a/application', '/aws/containerinsights/a/host'], ['/aws/containerinsights/a/*']],
    [['/aws/containerinsights/a/application'], ['/aws/containerinsights/a/application:*']],
    [
      ['/aws/x', '/eks/y'],
      ['/aws/x:*', '/eks/y:*'],
    ],
    [
      ['karpenter', 'karpenter-events'],
      ['karpenter-events:*', 'karpenter:*'],
    ],
  ])('bounds the invoke permissions of %j to %j', (names, expected) => {
    expect(invokeSourcesOf(names)).toEqual(expected);
  });

  it('merges the folders that share the longest prefix until at most the maximum is left', () => {
    const groups = ['/eks/a/x', '/eks/a/y', '/eks/b/x', '/eks/b/y', '/aws/c/x', '/aws/c/y'];
    expect(invokeSourcesOf(groups, 3)).toEqual(['/aws/c/*', '/eks/a/*', '/eks/b/*']);
    expect(invokeSourcesOf(groups, 2)).toEqual(['/aws/c/*', '/eks/*']);
  });
});

describe('LogSubscriptions refuses at synth', () => {
  const refusal = (props: (stack: Stack) => Partial<LogSubscriptionsProps>) => () =>
    subscriptions((stack) => ({ target: { function: analyzerIn(stack) }, clusters: CLUSTERS, ...props(stack) }));

  it('a log group pattern with per-group filters, which could only subscribe exact names', () => {
    expect(refusal(() => ({}))).toThrow(
      'LogSubscriptions: log group patterns (/eks/batch/*) can only be subscribed by the account policy; list exact names or choose subscriptions.mode "account-policy"',
    );
  });

  it("a cluster's own filter pattern with the account policy, which has one for every group", () => {
    expect(
      refusal(() => ({ clusters: [{ ...CLUSTERS[0]!, filterPattern: '?ERROR' }], mode: 'account-policy' })),
    ).toThrow(
      'LogSubscriptions: the account policy has one filter pattern for every log group; clusters prod set their own (set subscriptions.filterPattern instead)',
    );
  });

  it("a cluster's filter pattern that CloudWatch Logs would refuse", () => {
    expect(refusal(() => ({ clusters: [{ ...CLUSTERS[0]!, filterPattern: '{ $.level = "error"' }] }))).toThrow(
      'LogSubscriptions: the filter pattern of cluster prod starts a JSON pattern with "{" but does not end with "}"',
    );
  });

  it("an account policy's filter pattern that CloudWatch Logs would refuse", () => {
    expect(refusal(() => ({ mode: 'account-policy', filterPattern: '%a% %b% %c%' }))).toThrow(
      'LogSubscriptions: filterPattern has 3 regular expressions; CloudWatch Logs allows at most 2 in one pattern',
    );
  });

  it('exclusions longer than CloudWatch Logs allows', () => {
    const exclude = Array.from({ length: 200 }, (_, i) => `/aws/lambda/${'x'.repeat(120)}-${i}`);
    // 30 bytes of criteria, and 4 around each name: 200 × (12 + 120 + 1 + 4) + 490 digits + 30.
    expect(refusal(() => ({ mode: 'account-policy', exclude }))).toThrow(
      "LogSubscriptions: the account policy's exclusions take up to 27920 bytes; CloudWatch Logs allows 25600",
    );
  });

  it('more unrelated log groups than invoke permissions may name, rather than every log group', () => {
    const clusters = [{ name: 'c', logGroups: Array.from({ length: 21 }, (_, i) => `group-${i}`) }];
    expect(refusal(() => ({ clusters }))).toThrow(
      'The 21 log groups fall in 21 places that share no prefix; CloudWatch Logs may invoke the analyzer through at most 20 permissions. Give the groups a common prefix, or choose subscriptions.mode "account-policy"',
    );
  });
});
