import { App, Aspects } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks, ServerlessChecks } from 'cdk-nag';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseConfigFile } from '../../bin/config-source';
import { parseConfig, type KarpenterDoctorConfig } from '../../contracts/config';
import { KarpenterDoctorStack } from '../../lib/karpenter-doctor-stack';
import { ROOT } from '../helpers';
import { unsuppressedFindings } from './constructs/support';

const EXAMPLE = parseConfigFile(
  readFileSync(join(ROOT, 'config', 'karpenter-doctor.example.jsonc'), 'utf8'),
  'example',
);

/** A stack without bundling (unit tests); CI runs a real bundled `cdk synth`. */
function synth(
  config: KarpenterDoctorConfig,
  withNag = false,
  serverless = false,
): { stack: KarpenterDoctorStack; template: Template } {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new KarpenterDoctorStack(app, 'KarpenterDoctor', { config });
  if (withNag) Aspects.of(stack).add(new AwsSolutionsChecks({ verbose: true }));
  if (serverless) Aspects.of(stack).add(new ServerlessChecks({ verbose: true }));
  return { stack, template: Template.fromStack(stack) };
}

type Statement = { Action: string | string[]; Effect: string; Resource: unknown; Sid?: string };
const actionsOf = (statements: Statement[]) =>
  statements.flatMap((s) => (Array.isArray(s.Action) ? s.Action : [s.Action]));

/** The statements of the policy attached to the role whose logical id starts with `rolePrefix`. */
function statementsOf(template: Template, rolePrefix: string): Statement[] {
  const policies = Object.values(template.findResources('AWS::IAM::Policy')) as Array<{
    Properties: { Roles: Array<{ Ref: string }>; PolicyDocument: { Statement: Statement[] } };
  }>;
  const policy = policies.find((p) => p.Properties.Roles.some((r) => r.Ref.startsWith(rolePrefix)));
  if (!policy) throw new Error(`no policy for role ${rolePrefix}`);
  return policy.Properties.PolicyDocument.Statement;
}

// The wiring between the constructs and the logical ids of the stateful resources; what each construct
// builds is asserted by its own test under test/lib/constructs/.
describe('KarpenterDoctorStack', () => {
  let stack: KarpenterDoctorStack;
  let template: Template;
  beforeAll(() => {
    ({ stack, template } = synth(EXAMPLE, true));
  });

  it('has zero unsuppressed cdk-nag AwsSolutions errors or warnings', () => {
    expect(unsuppressedFindings(stack)).toEqual([]);
  });

  it('runs the analyzer on Node.js 24, arm64, with reserved concurrency and its own log group', () => {
    template.hasResourceProperties('AWS::Lambda::Function', {
      Runtime: 'nodejs24.x',
      Architectures: ['arm64'],
      ReservedConcurrentExecutions: 5,
      Timeout: 60,
      LoggingConfig: { LogFormat: 'JSON', LogGroup: { Ref: Match.stringLikeRegexp('AnalyzerLogGroup') } },
    });
    template.hasResourceProperties('AWS::Logs::LogGroup', { RetentionInDays: 30 });
  });

  it('sets each env var together with the grant it needs', () => {
    const fn = Object.values(template.findResources('AWS::Lambda::Function'))[0] as {
      Properties: { Environment: { Variables: Record<string, unknown> } };
    };
    const vars = fn.Properties.Environment.Variables;
    expect(vars.INCIDENT_TABLE_NAME).toEqual({ Ref: expect.stringMatching(/^IncidentsTable/) });
    expect(vars.FINDINGS_TOPIC_ARN).toEqual({ Ref: expect.stringMatching(/^FindingsTopic/) });
    expect(vars.EVENT_BUS_NAME).toBe('default');
    // Everything else travels in the settings file bundled beside the code (test/contracts/settings.test.ts).
    expect(Object.keys(vars).sort()).toEqual([
      'EVENT_BUS_NAME',
      'FINDINGS_TOPIC_ARN',
      'INCIDENT_TABLE_NAME',
      'POWERTOOLS_SERVICE_NAME',
      'SETTINGS_FILE',
    ]);
    expect(vars.SETTINGS_FILE).toBe('settings.json');

    const statements = statementsOf(template, 'AnalyzerRole');
    const find = (action: string) => statements.find((s) => actionsOf([s]).includes(action));
    expect(find('dynamodb:PutItem')?.Resource).toEqual(
      expect.arrayContaining([{ 'Fn::GetAtt': [expect.stringMatching(/^IncidentsTable/), 'Arn'] }]),
    );
    expect(find('sns:Publish')?.Resource).toEqual({ Ref: expect.stringMatching(/^FindingsTopic/) });
    expect(find('kms:GenerateDataKey')?.Resource).toEqual({
      'Fn::GetAtt': [expect.stringMatching(/^FindingsKey/), 'Arn'],
    });
    expect(JSON.stringify(find('events:PutEvents')?.Resource)).toContain(':event-bus/default');
  });

  it('scopes the EKS actions to the configured clusters', () => {
    const clusters = statementsOf(template, 'AnalyzerRole').find((s) => s.Sid === 'DescribeClusters');
    expect(JSON.stringify(clusters?.Resource)).toMatch(/cluster\/prod".*cluster\/staging"/);
  });

  it('subscribes every configured log group once, with invoke permissions bounded to the configured groups', () => {
    template.resourceCountIs('AWS::Logs::SubscriptionFilter', 5);
    template.resourceCountIs('AWS::Logs::AccountPolicy', 0);
    template.hasResourceProperties('AWS::Logs::SubscriptionFilter', {
      LogGroupName: '/aws/containerinsights/prod/application',
      FilterName: 'karpenter-doctor',
      FilterPattern: { Ref: 'DefaultFilterPattern' },
      DestinationArn: { 'Fn::GetAtt': [Match.stringLikeRegexp('AnalyzerFunction'), 'Arn'] },
    });
    template.hasResourceProperties('AWS::Logs::SubscriptionFilter', {
      LogGroupName: '/eks/staging/karpenter',
      FilterName: 'karpenter-doctor',
    });
    const permissions = Object.values(
      template.findResources('AWS::Lambda::Permission', { Properties: { Principal: 'logs.amazonaws.com' } }),
    ) as Array<{ Properties: { SourceAccount: unknown; SourceArn: { 'Fn::Join': [string, unknown[]] } } }>;
    // The groups share no prefix: the folder of prod's three Container Insights groups, and two exact names.
    expect(permissions.map((p) => p.Properties.SourceArn['Fn::Join'][1].at(-1)).sort()).toEqual([
      ':log-group:/aws/containerinsights/prod/*',
      ':log-group:/eks/prod/kubernetes-events:*',
      ':log-group:/eks/staging/karpenter:*',
    ]);
    for (const permission of permissions)
      expect(permission.Properties.SourceAccount).toEqual({ Ref: 'AWS::AccountId' });
  });

  it('never subscribes its own log group', () => {
    const filters = template.findResources('AWS::Logs::SubscriptionFilter');
    for (const filter of Object.values(filters) as Array<{ Properties: { LogGroupName: unknown } }>) {
      expect(typeof filter.Properties.LogGroupName).toBe('string');
    }
  });

  it('subscribes the alert emails to the findings topic', () => {
    template.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'email',
      Endpoint: 'platform-oncall@example.com',
      TopicArn: { Ref: Match.stringLikeRegexp('^FindingsTopic') },
    });
  });

  it('puts a source condition on every grant of a key or topic to an AWS service', () => {
    const policies = [
      ...Object.values(template.findResources('AWS::KMS::Key')).map(
        (r) => (r as { Properties: { KeyPolicy: { Statement: Array<Record<string, unknown>> } } }).Properties.KeyPolicy,
      ),
      ...Object.values(template.findResources('AWS::SNS::TopicPolicy')).map(
        (r) =>
          (r as { Properties: { PolicyDocument: { Statement: Array<Record<string, unknown>> } } }).Properties
            .PolicyDocument,
      ),
    ];
    const serviceGrants = policies
      .flatMap((p) => p.Statement)
      .filter((s) => s.Effect === 'Allow' && JSON.stringify(s.Principal ?? '').includes('amazonaws.com'));
    expect(serviceGrants.length).toBeGreaterThanOrEqual(2);
    for (const grant of serviceGrants) {
      expect(grant.Condition).toMatchObject({ StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } } });
      expect(JSON.stringify(grant.Condition)).toContain(':alarm:*');
    }
  });

  it.each([
    ['AWS::SNS::TopicPolicy', 'PolicyDocument'],
    ['AWS::SQS::QueuePolicy', 'PolicyDocument'],
  ])('denies plain-HTTP access in the %s', (type, key) => {
    template.hasResourceProperties(type, {
      [key]: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
        ]),
      },
    });
  });

  it('sends every alarm of every construct to the operations topic, which the alert emails subscribe to', () => {
    const alarms = Object.values(template.findResources('AWS::CloudWatch::Alarm')) as Array<{
      Properties: { AlarmActions: unknown[] };
    }>;
    expect(alarms.length).toBeGreaterThanOrEqual(10);
    for (const alarm of alarms) {
      expect(alarm.Properties.AlarmActions).toEqual([{ Ref: expect.stringMatching(/^OperationsAlarmTopic/) }]);
    }
    template.hasResourceProperties('AWS::SNS::Subscription', {
      Endpoint: 'platform-oncall@example.com',
      TopicArn: { Ref: Match.stringLikeRegexp('^OperationsAlarmTopic') },
    });
    template.hasOutput('AlarmTopicArn', {});
  });

  it.each([
    ['Remediation', 7200],
    ['Headroom', 3600],
  ])('keeps what the %s function failed on in an encrypted queue, with an alarm on its depth', (prefix, age) => {
    template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
      FunctionName: { Ref: Match.stringLikeRegexp(`^${prefix}Function`) },
      MaximumRetryAttempts: 2,
      MaximumEventAgeInSeconds: age,
      DestinationConfig: {
        OnFailure: { Destination: { 'Fn::GetAtt': [Match.stringLikeRegexp(`^${prefix}FailureQueue`), 'Arn'] } },
      },
    });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Dimensions: [
        { Name: 'QueueName', Value: { 'Fn::GetAtt': [Match.stringLikeRegexp(`^${prefix}FailureQueue`), 'QueueName'] } },
      ],
    });
  });

  it('keeps the logical ids of the stateful resources, so a refactor never replaces them', () => {
    const ids = (type: string) => Object.keys(template.findResources(type));
    expect(ids('AWS::DynamoDB::Table')).toEqual(['IncidentsTable7D5FD327']);
    expect(ids('AWS::SNS::Topic').sort()).toEqual(['FindingsTopic6108FA32', 'OperationsAlarmTopic909EF7A3']);
    expect(ids('AWS::KMS::Key').sort()).toEqual(['FindingsKeyC72F54EF', 'OperationsAlarmKey3BE721C2']);
  });

  it('runs the headroom check on the configured schedule', () => {
    template.hasResourceProperties('AWS::Scheduler::Schedule', {
      ScheduleExpression: 'rate(5 minutes)',
      Target: Match.objectLike({ Arn: { 'Fn::GetAtt': [Match.stringLikeRegexp('^HeadroomFunction'), 'Arn'] } }),
    });
  });

  it('triggers the remediator on the actions the configuration turns on, on the configured bus', () => {
    template.hasResourceProperties('AWS::Events::Rule', {
      EventBusName: 'default',
      EventPattern: Match.objectLike({
        source: ['io.karpenter-doctor'],
        detail: Match.objectLike({ remediation: { action: ['raise-system-nodegroup', 'plan-subnet-capacity'] } }),
      }),
    });
  });

  it('outputs the topic ARN, bus name, table name and function name', () => {
    for (const output of ['FindingsTopicArn', 'EventBusName', 'IncidentTableName', 'AnalyzerFunctionName']) {
      template.hasOutput(output, {});
    }
  });
});

describe('KarpenterDoctorStack against the cdk-nag ServerlessChecks pack', () => {
  it('has no finding other than those with a written reason', () => {
    const { stack } = synth(
      parseConfig(
        {
          ...EXAMPLE,
          remediation: { raiseSystemNodegroup: { mode: 'apply' }, requestQuotaIncrease: { mode: 'apply' } },
        },
        'test',
      ),
      false,
      true,
    );
    expect(unsuppressedFindings(stack, 'Serverless')).toEqual([]);
  });
});

describe('KarpenterDoctorStack at scale', () => {
  it('subscribes 300 log groups with one invoke permission per cluster folder', () => {
    const clusters = Array.from({ length: 3 }, (_, c) => ({
      name: `cluster-${c}`,
      logGroups: Array.from({ length: 100 }, (_, g) => `/aws/containerinsights/cluster-${c}/group-${g}`),
    }));
    const { template } = synth(parseConfig({ clusters, subscriptions: { mode: 'log-groups' } }, 'test'));

    template.resourceCountIs('AWS::Logs::SubscriptionFilter', 300);
    template.resourceCountIs('AWS::Lambda::Permission', 3);
    template.hasResourceProperties('AWS::Lambda::Permission', {
      SourceArn: { 'Fn::Join': ['', Match.arrayWith([':log-group:/aws/containerinsights/cluster-2/*'])] },
    });
    const resources = Object.keys(template.toJSON().Resources as object).length;
    expect(resources).toBeLessThan(500);
  });

  describe('100 clusters of 10 log groups in one account', () => {
    let stack: KarpenterDoctorStack;
    let template: Template;
    let file: string;
    beforeAll(() => {
      const clusters = Array.from({ length: 100 }, (_, c) => ({
        name: `cluster-${c}`,
        logGroups: Array.from({ length: 10 }, (_, g) => `/aws/containerinsights/cluster-${c}/group-${g}`),
        systemNodegroup: 'system',
      }));
      const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
      stack = new KarpenterDoctorStack(app, 'KarpenterDoctor', {
        config: parseConfig({ clusters, remediation: { raiseSystemNodegroup: { mode: 'apply' } } }, 'test'),
      });
      Aspects.of(stack).add(new AwsSolutionsChecks({ verbose: true }));
      template = Template.fromStack(stack);
      file = app.synth().getStackByName(stack.stackName).templateFullPath;
    });

    it('subscribes them with one account policy, under 500 resources and 1 MB', () => {
      template.resourceCountIs('AWS::Logs::SubscriptionFilter', 0);
      template.resourceCountIs('AWS::Logs::AccountPolicy', 1);
      expect(Object.keys(template.toJSON().Resources as object).length).toBeLessThan(500);
      expect(statSync(file).size).toBeLessThan(1_000_000);
    });

    it("excludes every function's own log group from the account policy", () => {
      const criteria = JSON.stringify(
        (Object.values(template.findResources('AWS::Logs::AccountPolicy'))[0] as { Properties: object }).Properties,
      );
      for (const prefix of ['AnalyzerLogGroup', 'HeadroomLogGroup', 'RemediationLogGroup']) {
        expect(criteria).toMatch(new RegExp(`"Ref":"${prefix}[0-9A-F]{8}"`));
      }
    });

    it('has one alarm per signal, not one per cluster or log group', () => {
      const alarms = Object.keys(template.findResources('AWS::CloudWatch::Alarm'));
      expect(alarms.length).toBeLessThan(20);
      template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        Metrics: [
          Match.objectLike({
            Expression: `SELECT SUM(DeliveryErrors) FROM "AWS/Logs" WHERE FilterName = 'karpenter-doctor'`,
          }),
        ],
      });
    });

    it('has zero unsuppressed cdk-nag AwsSolutions errors or warnings', () => {
      expect(unsuppressedFindings(stack)).toEqual([]);
    });
  });

  it('stays cdk-nag clean when the roles of 40 clusters pass the inline policy limit and CDK splits them', () => {
    const clusters = Array.from({ length: 40 }, (_, c) => ({
      name: `c${c}`,
      logGroups: [`/eks/c${c}/karpenter`],
      systemNodegroup: 'sys',
    }));
    const { stack, template } = synth(
      parseConfig({ clusters, remediation: { raiseSystemNodegroup: { mode: 'apply' } } }, 'test'),
      true,
    );

    // The analyzer's policy, one cluster and one node group ARN per cluster, no longer fits inline.
    expect(Object.keys(template.findResources('AWS::IAM::ManagedPolicy'))).toEqual(
      expect.arrayContaining([expect.stringMatching(/^AnalyzerRoleOverflowPolicy1/)]),
    );
    expect(unsuppressedFindings(stack)).toEqual([]);
  });

  it('leaves the remediator out while every action is off', () => {
    const { template } = synth(
      parseConfig({ clusters: [{ name: 'a', logGroups: ['/x'] }], headroom: { enabled: false } }, 'test'),
    );

    template.resourceCountIs('AWS::Events::Rule', 0);
  });

  it('leaves the headroom check out when it is disabled', () => {
    const { template } = synth(
      parseConfig({ clusters: [{ name: 'a', logGroups: ['/x'] }], headroom: { enabled: false } }, 'test'),
    );

    template.resourceCountIs('AWS::Scheduler::Schedule', 0);
    template.resourceCountIs('AWS::Lambda::Function', 1);
  });

  it("uses a cluster's own filter pattern for its log groups, and the default for the others", () => {
    const { template } = synth(
      parseConfig(
        {
          clusters: [
            { name: 'a', logGroups: ['/a'], filterPattern: '?ERROR ?Warning' },
            { name: 'b', logGroups: ['/b'] },
          ],
        },
        'test',
      ),
    );

    template.hasResourceProperties('AWS::Logs::SubscriptionFilter', {
      LogGroupName: '/a',
      FilterPattern: '?ERROR ?Warning',
    });
    template.hasResourceProperties('AWS::Logs::SubscriptionFilter', {
      LogGroupName: '/b',
      FilterPattern: { Ref: 'DefaultFilterPattern' },
    });
    template.hasParameter('DefaultFilterPattern', {
      Type: 'String',
      Default: Match.stringLikeRegexp('InsufficientFreeAddressesInSubnet'),
    });
  });

  it('deletes the table with the stack when retainTable is false', () => {
    const { template } = synth(
      parseConfig({ clusters: [{ name: 'a', logGroups: ['/x'] }], retainTable: false }, 'test'),
    );

    template.hasResource('AWS::DynamoDB::Table', { DeletionPolicy: 'Delete' });
  });

  it('creates a named event bus when one is configured', () => {
    const { template } = synth(
      parseConfig({ clusters: [{ name: 'a', logGroups: ['/x'] }], eventBusName: 'platform-alerts' }, 'test'),
    );

    template.hasResourceProperties('AWS::Events::EventBus', { Name: 'platform-alerts' });
  });
});

describe('queues that can hold a lost event', () => {
  it.each([
    ['the example', EXAMPLE],
    [
      'remediation in apply mode',
      parseConfig(
        {
          clusters: [{ name: 'prod', logGroups: ['/eks/prod/karpenter'], systemNodegroup: 'system' }],
          remediation: { raiseSystemNodegroup: { mode: 'apply' }, requestQuotaIncrease: { mode: 'apply' } },
        },
        'test',
      ),
    ],
  ])('each have a depth alarm on the alarm topic in %s', (_name, config) => {
    const { template } = synth(config);
    const queues = Object.keys(template.findResources('AWS::SQS::Queue'));
    const alarms = Object.values(template.findResources('AWS::CloudWatch::Alarm')) as Array<{
      Properties: {
        MetricName?: string;
        Dimensions?: Array<{ Name: string; Value: { 'Fn::GetAtt'?: [string, string] } }>;
        AlarmActions?: Array<{ Ref?: string }>;
      };
    }>;
    const alarmed = alarms
      .filter((a) => a.Properties.MetricName === 'ApproximateNumberOfMessagesVisible')
      .filter((a) => a.Properties.AlarmActions?.some((action) => action.Ref?.startsWith('OperationsAlarmTopic')))
      .map((a) => a.Properties.Dimensions?.find((d) => d.Name === 'QueueName')?.Value['Fn::GetAtt']?.[0]);

    expect(queues.length).toBeGreaterThanOrEqual(4);
    expect(queues.filter((queue) => !alarmed.includes(queue))).toEqual([]);
  });
});
