import { App, Aspects } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { statSync } from 'node:fs';
import { parseConfig } from '../../contracts/config';
import { KarpenterDoctorStack } from '../../lib/karpenter-doctor-stack';
import { subscriptionModeOf } from '../../lib/constructs/log-subscriptions';
import { KarpenterDoctorSpokeStack, type SpokeAccount } from '../../lib/spoke-stack';
import { unsuppressedFindings } from './constructs/support';

const CENTRAL = '999988887777';
const APPLY = {
  raiseSystemNodegroup: { mode: 'apply', maxMinSize: 3 },
  requestQuotaIncrease: { mode: 'apply', maxValue: 512, windowHours: 24 },
  planSubnetCapacity: { mode: 'dry-run' },
} as const;
const OFF = {
  raiseSystemNodegroup: { mode: 'off', maxMinSize: 3 },
  requestQuotaIncrease: { mode: 'off', maxValue: 512, windowHours: 24 },
  planSubnetCapacity: { mode: 'off' },
} as const;

const accountId = (i: number) => String(100000000000 + i);

/** 20 accounts of 5 clusters with 4 log groups each; the last account runs 60 clusters of 10 groups. */
const ACCOUNTS: SpokeAccount[] = Array.from({ length: 20 }, (_, a) => ({
  account: accountId(a),
  clusters: Array.from({ length: a === 19 ? 60 : 5 }, (_, c) => ({
    name: `a${a}-c${c}`,
    logGroups: Array.from({ length: a === 19 ? 10 : 4 }, (_, g) => `/aws/containerinsights/a${a}-c${c}/g${g}`),
    ...(c % 2 === 0 ? { systemNodegroup: 'system' } : { systemAutoScalingGroup: `a${a}-c${c}-system` }),
  })),
}));

function synth(props: Partial<ConstructorParameters<typeof KarpenterDoctorSpokeStack>[2]> = {}) {
  const app = new App();
  const stack = new KarpenterDoctorSpokeStack(app, 'KarpenterDoctorSpoke', {
    accounts: ACCOUNTS,
    remediation: APPLY,
    ...props,
  });
  Aspects.of(stack).add(new AwsSolutionsChecks({ verbose: true }));
  const template = Template.fromStack(stack);
  // The file CloudFormation receives: its size is what the 1 MB limit counts.
  const file = app.synth().getStackByName(stack.stackName).templateFullPath;
  return { stack, template, file };
}

type Statement = { Sid?: string; Action: string | string[]; Resource: unknown; Condition?: unknown };
const actionsOf = (statements: Statement[]) =>
  statements.flatMap((s) => (Array.isArray(s.Action) ? s.Action : [s.Action]));

/** The statements of the managed policies of one account attached to the role with `rolePrefix`. */
function policyStatements(template: Template, account: string, rolePrefix: string): Statement[] {
  const policies = Object.values(template.findResources('AWS::IAM::ManagedPolicy')) as Array<{
    Condition: string;
    Properties: { Roles: Array<{ Ref: string }>; PolicyDocument: { Statement: Statement[] } };
  }>;
  return policies
    .filter((p) => p.Condition === `IsAccount${account}` && p.Properties.Roles[0]!.Ref.startsWith(rolePrefix))
    .flatMap((p) => p.Properties.PolicyDocument.Statement);
}

describe('KarpenterDoctorSpokeStack with an explicit env', () => {
  it('has zero unsuppressed cdk-nag AwsSolutions findings', () => {
    const { stack } = synth({ env: { account: '222233334444', region: 'eu-west-1' } });
    expect(unsuppressedFindings(stack)).toEqual([]);
  });
});

describe('KarpenterDoctorSpokeStack for 20 accounts', () => {
  let stack: KarpenterDoctorSpokeStack;
  let template: Template;
  let file: string;
  beforeAll(() => {
    ({ stack, template, file } = synth());
  });

  it('is one template under 500 resources and 1 MB', () => {
    const json = template.toJSON() as { Resources: object };
    expect(Object.keys(json.Resources).length).toBeLessThan(500);
    expect(statSync(file).size).toBeLessThan(1_000_000);
  });

  it('has zero unsuppressed cdk-nag AwsSolutions errors or warnings', () => {
    expect(unsuppressedFindings(stack)).toEqual([]);
  });

  it('creates everything but the two roles only in the account it belongs to', () => {
    const resources = Object.entries(
      (template.toJSON() as { Resources: Record<string, { Type: string; Condition?: string }> }).Resources,
    );
    const unconditional = resources.filter(([, r]) => r.Condition === undefined).map(([, r]) => r.Type);
    expect(unconditional).toEqual(['AWS::IAM::Role', 'AWS::IAM::Role']);
    template.hasCondition('IsAccount100000000003', {
      'Fn::Equals': [{ Ref: 'AWS::AccountId' }, '100000000003'],
    });
    template.hasResource('AWS::Logs::SubscriptionFilter', {
      Condition: 'IsAccount100000000003',
      Properties: { LogGroupName: '/aws/containerinsights/a3-c4/g3' },
    });
  });

  it('subscribes each account to the central destination: per group for few groups, by account policy for many', () => {
    const destination = {
      'Fn::Sub': [
        'arn:${AWS::Partition}:logs:${AWS::Region}:${Central}:destination:karpenter-doctor',
        { Central: { Ref: 'CentralAccount' } },
      ],
    };
    // 19 accounts × 5 clusters × 4 groups; the 20th, with 600 groups, has the account policy.
    template.resourceCountIs('AWS::Logs::SubscriptionFilter', 19 * 5 * 4);
    template.hasResourceProperties('AWS::Logs::SubscriptionFilter', { DestinationArn: destination });
    template.resourceCountIs('AWS::Logs::AccountPolicy', 1);
    template.hasResource('AWS::Logs::AccountPolicy', {
      Condition: 'IsAccount100000000019',
      Properties: {
        PolicyType: 'SUBSCRIPTION_FILTER_POLICY',
        PolicyDocument: Match.objectLike({ 'Fn::Join': Match.anyValue() }),
      },
    });
    template.resourceCountIs('AWS::Lambda::Permission', 0);
  });

  it('lets only the central account assume its roles, with the external id that names it, for an hour', () => {
    for (const name of ['karpenter-doctor-enrichment', 'karpenter-doctor-remediation']) {
      template.hasResourceProperties('AWS::IAM::Role', {
        RoleName: name,
        MaxSessionDuration: 3600,
        AssumeRolePolicyDocument: {
          Statement: [
            {
              Action: 'sts:AssumeRole',
              Effect: 'Allow',
              Principal: {
                AWS: {
                  'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':iam::', { Ref: 'CentralAccount' }, ':root']],
                },
              },
              Condition: {
                StringEquals: {
                  'sts:ExternalId': { 'Fn::Join': ['', ['karpenter-doctor-', { Ref: 'CentralAccount' }]] },
                },
              },
            },
          ],
        },
      });
    }
    template.hasParameter('CentralAccount', { Type: 'String', AllowedPattern: '^\\d{12}$' });
  });

  it('deploys into accounts CDK never bootstrapped: no bootstrap version rule or parameter, no asset', () => {
    const json = template.toJSON() as { Rules?: object; Parameters: object };
    expect(json.Rules).toBeUndefined();
    expect(Object.keys(json.Parameters).sort()).toEqual(['CentralAccount', 'DefaultFilterPattern']);
    template.resourceCountIs('AWS::Lambda::Function', 0);
  });

  it('gives the enrichment role exactly the read access of the one-account analyzer, and nothing that changes anything', () => {
    const single = Template.fromStack(
      new KarpenterDoctorStack(new App({ context: { 'aws:cdk:bundling-stacks': [] } }), 'Single', {
        config: parseConfig({ clusters: [{ name: 'a3-c0', logGroups: ['/x'] }] }, 'test'),
      }),
    );
    const analyzerPolicy = Object.values(single.findResources('AWS::IAM::Policy')).find((p) =>
      (p as { Properties: { Roles: Array<{ Ref: string }> } }).Properties.Roles[0]!.Ref.startsWith('AnalyzerRole'),
    ) as { Properties: { PolicyDocument: { Statement: Statement[] } } };
    const reads = actionsOf(analyzerPolicy.Properties.PolicyDocument.Statement).filter((a) =>
      /^(ec2|eks|autoscaling|servicequotas):/.test(a),
    );

    const spoke = policyStatements(template, '100000000003', 'EnrichmentRole');
    expect([...new Set(actionsOf(spoke))].sort()).toEqual([...reads].sort());
    expect(actionsOf(spoke).filter((a) => !/:(Describe|List|Get)/.test(a))).toEqual([]);
    const clusters = spoke.find((s) => s.Sid === 'DescribeClusters');
    expect(JSON.stringify(clusters?.Resource)).toMatch(/cluster\/a3-c0".*cluster\/a3-c4"/);
    expect(JSON.stringify(clusters?.Resource)).not.toContain('a4-c0');
  });

  it("gives the remediation role the one-account remediator's statements, tag conditions included", () => {
    const config = parseConfig(
      {
        clusters: ACCOUNTS[3]!.clusters.map((c) => ({ ...c, logGroups: [...c.logGroups] })),
        remediation: APPLY,
      },
      'test',
    );
    const single = Template.fromStack(
      new KarpenterDoctorStack(new App({ context: { 'aws:cdk:bundling-stacks': [] } }), 'Single', { config }),
    );
    const remediator = Object.values(single.findResources('AWS::IAM::Policy')).find((p) =>
      (p as { Properties: { Roles: Array<{ Ref: string }> } }).Properties.Roles[0]!.Ref.startsWith('RemediationRole'),
    ) as { Properties: { PolicyDocument: { Statement: Statement[] } } };
    const awsAccess = remediator.Properties.PolicyDocument.Statement.filter((s) =>
      actionsOf([s]).some((a) => /^(ec2|eks|autoscaling|servicequotas):/.test(a)),
    );

    const spoke = policyStatements(template, '100000000003', 'RemediationRole');
    expect(spoke).toEqual(awsAccess);
    expect(JSON.stringify(spoke)).toContain('aws:ResourceTag/karpenter-doctor/remediate');
    expect(JSON.stringify(spoke)).toContain('autoscaling:ResourceTag/karpenter-doctor/remediate');
  });

  it('splits the policies of an account with many clusters so that each fits IAM once resolved', () => {
    const policies = Object.values(template.findResources('AWS::IAM::ManagedPolicy')).filter(
      (p) => (p as { Condition: string }).Condition === 'IsAccount100000000019',
    ) as Array<{ Properties: { PolicyDocument: { Statement: Statement[] } } }>;
    expect(policies.length).toBeGreaterThan(2);
    const clusters = new Set(
      policies.flatMap((p) =>
        [...JSON.stringify(p.Properties.PolicyDocument).matchAll(/:cluster\/(a19-c\d+)"/g)].map((m) => m[1]),
      ),
    );
    expect(clusters.size).toBe(60);
    for (const policy of policies) {
      // Partition, region and account at their longest: what IAM will count.
      const resolved = JSON.stringify(policy.Properties.PolicyDocument)
        .replaceAll('{"Ref":"AWS::Partition"}', '"aws-iso-b"')
        .replaceAll('{"Ref":"AWS::Region"}', '"ap-southeast-7xx"')
        .replaceAll('{"Ref":"AWS::AccountId"}', '"123456789012"')
        .replace(
          /\{"Fn::Join":\["",\[((?:"[^"]*",?)*)\]\]\}/g,
          (_, parts: string) => `"${parts.replace(/","|"/g, '')}"`,
        );
      expect(resolved.length).toBeLessThanOrEqual(6144);
    }
  });

  it('refuses an account whose clusters need more managed policies than IAM attaches to a role', () => {
    const many = Array.from({ length: 400 }, (_, c) => ({
      name: `cluster-with-a-long-name-${c}`,
      logGroups: [`/eks/c${c}`],
      systemNodegroup: 'system',
    }));
    expect(
      () =>
        new KarpenterDoctorSpokeStack(new App(), 'Spoke', {
          accounts: [{ account: accountId(1), clusters: many }],
          remediation: APPLY,
        }),
    ).toThrow(/needs \d+ managed policies; IAM attaches at most 10 to a role/);
  });
});

describe('KarpenterDoctorSpokeStack options', () => {
  it('leaves the remediation role out while every action is off, and names the central account when given', () => {
    const { template } = synth({
      accounts: ACCOUNTS.slice(0, 2),
      remediation: OFF,
      centralAccount: CENTRAL,
      centralPrincipalArns: [`arn:aws:iam::${CENTRAL}:role/KarpenterDoctorCentral-*`],
    });
    template.resourceCountIs('AWS::IAM::Role', 1);
    template.hasResourceProperties('AWS::IAM::Role', {
      AssumeRolePolicyDocument: {
        Statement: [
          Match.objectLike({
            Condition: {
              StringEquals: { 'sts:ExternalId': `karpenter-doctor-${CENTRAL}` },
              ArnLike: { 'aws:PrincipalArn': [`arn:aws:iam::${CENTRAL}:role/KarpenterDoctorCentral-*`] },
            },
          }),
        ],
      },
    });
    expect(template.toJSON().Parameters ?? {}).not.toHaveProperty('CentralAccount');
  });

  it.each([
    [{}, 10, false, 'log-groups'],
    [{}, 200, false, 'account-policy'],
    [{}, 1, true, 'account-policy'],
    [{ accountPolicyFrom: 5 }, 5, false, 'account-policy'],
    [{ mode: 'log-groups' as const }, 300, false, 'log-groups'],
    [{ mode: 'account-policy' as const }, 1, false, 'account-policy'],
  ])('with %j chooses for %i groups (pattern: %s) %s', (choice, groups, pattern, expected) => {
    const clusters = [
      {
        name: 'c',
        logGroups: Array.from({ length: groups }, (_, g) => (pattern ? `/eks/c/*` : `/eks/c/g${g}`)),
      },
    ];
    expect(subscriptionModeOf(clusters, choice)).toBe(expected);
  });

  it.each([
    [
      [{ account: '12345', clusters: [{ name: 'c', logGroups: ['/x'] }] }],
      'KarpenterDoctorSpokeStack: invalid accounts[0].account:\n  accounts[0].account = "12345": expected an AWS account id of 12 digits',
    ],
    [
      [
        { account: accountId(1), clusters: [{ name: 'c', logGroups: ['/x'] }] },
        { account: accountId(1), clusters: [{ name: 'd', logGroups: ['/y'] }] },
      ],
      `KarpenterDoctorSpokeStack: account ${accountId(1)} is listed twice`,
    ],
    [[{ account: accountId(1), clusters: [] }], `KarpenterDoctorSpokeStack: account ${accountId(1)} has no cluster`],
  ])('refuses %j', (accounts, message) => {
    expect(() => new KarpenterDoctorSpokeStack(new App(), 'Spoke', { accounts, remediation: OFF })).toThrow(message);
  });
});

describe('a central stack and the spoke stack for 20 accounts', () => {
  const CENTRAL_ACCOUNT = '999988887777';
  let central: Template;
  let spoke: Template;
  let files: string[];
  beforeAll(() => {
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    const centralStack = new KarpenterDoctorStack(app, 'KarpenterDoctor', {
      config: parseConfig(
        {
          clusters: [{ name: 'central', logGroups: ['/eks/central/karpenter'] }],
          organization: { accounts: ACCOUNTS.map((a) => a.account) },
        },
        'test',
      ),
    });
    const spokeStack = new KarpenterDoctorSpokeStack(app, 'KarpenterDoctorSpoke', {
      accounts: ACCOUNTS,
      remediation: APPLY,
      centralAccount: CENTRAL_ACCOUNT,
    });
    for (const stack of [centralStack, spokeStack]) Aspects.of(stack).add(new AwsSolutionsChecks({ verbose: true }));
    central = Template.fromStack(centralStack);
    spoke = Template.fromStack(spokeStack);
    const assembly = app.synth();
    files = [centralStack, spokeStack].map((s) => assembly.getStackByName(s.stackName).templateFullPath);
  });

  it('synthesizes both under 500 resources and 1 MB', () => {
    for (const template of [central, spoke]) {
      expect(Object.keys(template.toJSON().Resources as object).length).toBeLessThan(500);
    }
    for (const file of files) expect(statSync(file).size).toBeLessThan(1_000_000);
  });

  it('subscribes the spokes to the destination the central stack creates, which admits each of them', () => {
    central.hasResourceProperties('AWS::Logs::Destination', { DestinationName: 'karpenter-doctor' });
    const policy = JSON.stringify(central.findResources('AWS::Logs::Destination'));
    for (const { account } of ACCOUNTS) expect(policy).toContain(account);
    spoke.hasResourceProperties('AWS::Logs::SubscriptionFilter', {
      DestinationArn: {
        'Fn::Sub': [
          'arn:${AWS::Partition}:logs:${AWS::Region}:${Central}:destination:karpenter-doctor',
          { Central: CENTRAL_ACCOUNT },
        ],
      },
    });
  });
});
