import { App, Aspects } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks, ServerlessChecks } from 'cdk-nag';
import { parseConfig, type KarpenterDoctorConfig } from '../../contracts/config';
import { KarpenterDoctorStack } from '../../lib/karpenter-doctor-stack';
import { unsuppressedFindings } from './constructs/support';

const ORG = 'o-a1b2c3d4e5';
/** Twenty spoke accounts, two clusters each. */
const ACCOUNTS = Array.from({ length: 20 }, (_, i) => String(200000000000 + i * 1111));

function central(organization: Record<string, unknown>, extra: Record<string, unknown> = {}): KarpenterDoctorConfig {
  return parseConfig(
    {
      clusters: [{ name: 'central-prod', logGroups: ['/aws/containerinsights/central-prod/application'] }],
      reservedConcurrency: 10,
      remediation: { raiseSystemNodegroup: { mode: 'dry-run' } },
      organization,
      ...extra,
    },
    'test',
  );
}

/** A resolved `Fn::Join` as text, with its references written as `<token>`. */
function joined(value: unknown): string {
  if (typeof value === 'string') return value;
  const join = (value as { 'Fn::Join'?: [string, unknown[]] })['Fn::Join'];
  if (!join) return '<token>';
  return join[1].map((part) => (typeof part === 'string' ? part : '<token>')).join(join[0]);
}

function synth(
  config: KarpenterDoctorConfig,
  nag = false,
  env?: { account: string; region: string },
): { stack: KarpenterDoctorStack; template: Template } {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new KarpenterDoctorStack(app, 'Central', { config, ...(env ? { env } : {}) });
  if (nag) {
    Aspects.of(stack).add(new AwsSolutionsChecks({ verbose: true }));
    Aspects.of(stack).add(new ServerlessChecks({ verbose: true }));
  }
  return { stack, template: Template.fromStack(stack) };
}

describe('cdk-nag on the central stack with an explicit env (as users’ own CDK apps give)', () => {
  it.each([
    ['an organisation', () => central({ organizationId: ORG })],
    ['listed accounts', () => central({ accounts: ['222233334444'] })],
  ])('has zero unsuppressed findings for %s', (_name, config) => {
    const { stack } = synth(config(), true, { account: '111122223333', region: 'eu-west-1' });
    expect(unsuppressedFindings(stack, '(AwsSolutions|Serverless)')).toEqual([]);
  });
});

describe('the central stack of an organisation', () => {
  let stack: KarpenterDoctorStack;
  let template: Template;
  beforeAll(() => {
    ({ stack, template } = synth(central({ organizationId: ORG }), true));
  });

  it('has zero unsuppressed cdk-nag findings (AwsSolutions and Serverless)', () => {
    expect(unsuppressedFindings(stack, '(AwsSolutions|Serverless)')).toEqual([]);
  });

  // The stream, the destination, the delivery role and the mapping themselves: test/lib/constructs/organization-stream.test.ts.
  it('feeds the analyzer from the stream and alarms on it to the operations topic', () => {
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: Match.stringLikeRegexp('^AnalyzerFunction') },
      EventSourceArn: { 'Fn::GetAtt': [Match.stringLikeRegexp('^OrganizationStream'), 'Arn'] },
    });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'IteratorAge',
      AlarmActions: [{ Ref: Match.stringLikeRegexp('^OperationsAlarmTopic') }],
    });
    template.hasOutput('DestinationArn', {});
  });

  it('lets the analyzer, the headroom check and the remediator assume only their spoke role, inside the organisation', () => {
    const assume = (role: string) =>
      Match.objectLike({
        Action: 'sts:AssumeRole',
        Resource: { 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, `:iam::*:role/${role}`]] },
        Condition: { StringEquals: { 'aws:ResourceOrgID': ORG } },
      });
    template.hasResourceProperties('AWS::IAM::Policy', {
      Roles: [{ Ref: Match.stringLikeRegexp('AnalyzerRole') }],
      PolicyDocument: { Statement: Match.arrayWith([assume('karpenter-doctor-enrichment')]) },
    });
    template.hasResourceProperties('AWS::IAM::Policy', {
      Roles: [{ Ref: Match.stringLikeRegexp('HeadroomRole') }],
      PolicyDocument: { Statement: Match.arrayWith([assume('karpenter-doctor-enrichment')]) },
    });
    template.hasResourceProperties('AWS::IAM::Policy', {
      Roles: [{ Ref: Match.stringLikeRegexp('RemediationRole') }],
      PolicyDocument: { Statement: Match.arrayWith([assume('karpenter-doctor-remediation')]) },
    });
  });
});

describe('the central stack for listed accounts', () => {
  it('lets only those accounts subscribe, names their roles exactly, and synthesizes for 20 accounts', () => {
    const { stack, template } = synth(central({ accounts: ACCOUNTS, shards: 4, parallelizationFactor: 2 }), true);

    expect(unsuppressedFindings(stack)).toEqual([]);
    template.hasResourceProperties('AWS::Kinesis::Stream', {
      StreamModeDetails: { StreamMode: 'PROVISIONED' },
      ShardCount: 4,
    });
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', { ParallelizationFactor: 2 });
    const [destination] = Object.values(template.findResources('AWS::Logs::Destination')) as Array<{
      Properties: { DestinationPolicy: unknown };
    }>;
    const policy = JSON.parse(joined(stack.resolve(destination!.Properties.DestinationPolicy))) as {
      Statement: Array<{ Principal: { AWS: string[] }; Condition?: unknown }>;
    };
    expect(policy.Statement[0]!.Principal.AWS).toEqual(ACCOUNTS);
    expect(policy.Statement[0]!.Condition).toBeUndefined();
    const analyzer = Object.values(template.findResources('AWS::IAM::Policy')).find((p) =>
      JSON.stringify(p).includes('AnalyzerRole'),
    );
    const text = JSON.stringify(analyzer);
    for (const account of ACCOUNTS) expect(text).toContain(`:iam::${account}:role/karpenter-doctor-enrichment`);
    expect(text).not.toContain(':iam::*:role');
    expect(JSON.stringify(template.toJSON()).length).toBeLessThan(1_000_000);
    expect(Object.keys(template.toJSON().Resources).length).toBeLessThan(500);
  });

  it('refuses at synth more concurrent batches than the analyzer may run, naming the numbers', () => {
    expect(() => synth(central({ accounts: ACCOUNTS, shards: 8, parallelizationFactor: 2 }))).toThrow(
      "8 shards × parallelizationFactor 2 = 16 concurrent batches, more than the analyzer's reserved concurrency of 10",
    );
  });

  it('refuses a configuration that names both the organisation and accounts, or neither', () => {
    expect(() => central({ organizationId: ORG, accounts: ACCOUNTS })).toThrow(/either organizationId .* or accounts/);
    expect(() => central({})).toThrow(/either organizationId .* or accounts/);
    expect(() => central({ organizationId: 'org-1' })).toThrow(/expected an AWS Organizations id/);
  });
});
