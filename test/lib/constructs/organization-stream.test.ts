import { Duration } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { Code, Function as LambdaFunction, Runtime } from 'aws-cdk-lib/aws-lambda';
import {
  allowAssumingSpokeRole,
  OrganizationStream,
  type DestinationAudience,
} from '../../../lib/constructs/organization-stream';
import { constructStack, nagFindings, resourceOf, statementsOf } from './support';

type Props = ConstructorParameters<typeof OrganizationStream>[2];

const ORG = 'o-a1b2c3d4e5';
const ACCOUNTS = ['111122223333', '444455556666'];

/** The stream alone, consumed by a plain function (`Analyzer`) of a minimal stack, its alarms to the test topic. */
function synth(extra: Partial<Props> = {}) {
  const { stack, outputs } = constructStack();
  const analyzer = new LambdaFunction(stack, 'Analyzer', {
    runtime: Runtime.NODEJS_24_X,
    handler: 'index.handler',
    code: Code.fromInline('exports.handler = async () => {};'),
  });
  const organization = new OrganizationStream(stack, 'Organization', {
    analyzer,
    analyzerConcurrency: 10,
    audience: { organizationId: ORG },
    ...extra,
  });
  organization.alarmTo(outputs.topic);
  return { stack, analyzer, organization, template: Template.fromStack(stack) };
}

type PolicyDocument = {
  Statement: Array<{ Sid: string; Principal: unknown; Action: string[]; Resource: unknown; Condition?: unknown }>;
};

/** The destination policy, with the destination ARN's references written as `<token>`. */
function destinationPolicyOf(template: Template): PolicyDocument {
  const policy = resourceOf(template, 'AWS::Logs::Destination', 'OrganizationDestination').Properties
    .DestinationPolicy as { 'Fn::Join': [string, unknown[]] };
  const text = policy['Fn::Join'][1].map((part) => (typeof part === 'string' ? part : '<token>')).join('');
  return JSON.parse(text) as PolicyDocument;
}

describe('OrganizationStream', () => {
  describe('for an organisation, on demand', () => {
    let template: Template;
    beforeAll(() => ({ template } = synth()));

    it('keeps the stream on demand for 24 hours, encrypted with a rotated customer managed key of its own', () => {
      template.hasResourceProperties('AWS::Kinesis::Stream', {
        StreamModeDetails: { StreamMode: 'ON_DEMAND' },
        StreamEncryption: {
          EncryptionType: 'KMS',
          KeyId: { 'Fn::GetAtt': [Match.stringLikeRegexp('^OrganizationKey'), 'Arn'] },
        },
        RetentionPeriodHours: 24,
      });
      expect(resourceOf(template, 'AWS::KMS::Key', 'OrganizationKey').Properties).toMatchObject({
        EnableKeyRotation: true,
        Description: 'karpenter-doctor: encrypts the organisation log stream',
      });
    });

    it('names the destination for the spokes, on the stream, and lets only the organisation subscribe to it', () => {
      expect(resourceOf(template, 'AWS::Logs::Destination', 'OrganizationDestination').Properties).toMatchObject({
        DestinationName: 'karpenter-doctor',
        TargetArn: { 'Fn::GetAtt': [expect.stringMatching(/^OrganizationStream/), 'Arn'] },
        RoleArn: { 'Fn::GetAtt': [expect.stringMatching(/^OrganizationDeliveryRole/), 'Arn'] },
      });
      expect(destinationPolicyOf(template).Statement).toEqual([
        {
          Sid: 'OrganizationSubscribes',
          Effect: 'Allow',
          Principal: '*',
          Action: ['logs:PutSubscriptionFilter', 'logs:PutAccountPolicy'],
          Resource: 'arn:<token>:logs:<token>:<token>:destination:karpenter-doctor',
          Condition: { StringEquals: { 'aws:PrincipalOrgID': [ORG] } },
        },
      ]);
    });

    it('gives CloudWatch Logs of this region a role that may only put records into this stream with its key', () => {
      const role = resourceOf(template, 'AWS::IAM::Role', 'OrganizationDeliveryRole').Properties;
      expect(role.AssumeRolePolicyDocument).toMatchObject({
        Statement: [
          {
            Action: 'sts:AssumeRole',
            Principal: { Service: 'logs.amazonaws.com' },
            Condition: {
              StringLike: {
                'aws:SourceArn': [
                  { 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':logs:', { Ref: 'AWS::Region' }, ':*:*']] },
                ],
              },
            },
          },
        ],
      });
      expect(statementsOf(template, 'OrganizationDeliveryRole')).toEqual([
        {
          Sid: 'PutRecords',
          Effect: 'Allow',
          Action: ['kinesis:PutRecord', 'kinesis:PutRecords'],
          Resource: { 'Fn::GetAtt': [expect.stringMatching(/^OrganizationStream/), 'Arn'] },
        },
        {
          Sid: 'EncryptRecords',
          Effect: 'Allow',
          Action: 'kms:GenerateDataKey',
          Resource: { 'Fn::GetAtt': [expect.stringMatching(/^OrganizationKey/), 'Arn'] },
        },
      ]);
    });

    it('creates the destination only once the delivery role may put records (CloudWatch Logs checks it)', () => {
      const [destination] = Object.values(template.findResources('AWS::Logs::Destination')) as Array<{
        DependsOn: string[];
      }>;
      expect(destination!.DependsOn).toEqual(
        expect.arrayContaining([
          expect.stringMatching(/^OrganizationDeliveryRole[0-9A-F]{8}$/),
          expect.stringMatching(/^OrganizationDeliveryRoleDefaultPolicy/),
        ]),
      );
    });

    it('feeds the analyzer through a mapping that bisects, takes partial batch responses and keeps what it gave up on', () => {
      template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
        FunctionName: { Ref: Match.stringLikeRegexp('^Analyzer') },
        EventSourceArn: { 'Fn::GetAtt': [Match.stringLikeRegexp('^OrganizationStream'), 'Arn'] },
        StartingPosition: 'TRIM_HORIZON',
        BatchSize: 100,
        MaximumBatchingWindowInSeconds: 5,
        ParallelizationFactor: 1,
        BisectBatchOnFunctionError: true,
        FunctionResponseTypes: ['ReportBatchItemFailures'],
        MaximumRetryAttempts: 3,
        MaximumRecordAgeInSeconds: 6 * 3600,
        DestinationConfig: {
          OnFailure: { Destination: { 'Fn::GetAtt': [Match.stringLikeRegexp('^OrganizationFailureQueue'), 'Arn'] } },
        },
      });
      expect(resourceOf(template, 'AWS::SQS::Queue', 'OrganizationFailureQueue').Properties).toMatchObject({
        SqsManagedSseEnabled: true,
        MessageRetentionPeriod: 14 * 24 * 3600,
      });
    });

    it('alarms when the analyzer falls ten minutes behind, and when it gave up on records', () => {
      expect(resourceOf(template, 'AWS::CloudWatch::Alarm', 'OrganizationIteratorAgeAlarm').Properties).toMatchObject({
        MetricName: 'IteratorAge',
        Statistic: 'Maximum',
        Threshold: 600_000,
        ComparisonOperator: 'GreaterThanThreshold',
        AlarmActions: [{ Ref: expect.stringMatching(/^Topic/) }],
      });
      expect(resourceOf(template, 'AWS::CloudWatch::Alarm', 'OrganizationFailureQueueAlarm').Properties).toMatchObject({
        MetricName: 'ApproximateNumberOfMessagesVisible',
        Threshold: 1,
        AlarmActions: [{ Ref: expect.stringMatching(/^Topic/) }],
      });
    });

    it('exposes the destination ARN the spokes name', () => {
      const { stack, organization } = synth();
      expect(stack.resolve(organization.destinationArn)).toEqual({
        'Fn::Join': [
          '',
          [
            'arn:',
            { Ref: 'AWS::Partition' },
            ':logs:',
            { Ref: 'AWS::Region' },
            ':',
            { Ref: 'AWS::AccountId' },
            ':destination:karpenter-doctor',
          ],
        ],
      });
    });

    it('has no unsuppressed cdk-nag AwsSolutions finding', () => {
      expect(nagFindings(synth().stack, 'Organization')).toEqual([]);
    });
  });

  describe('for listed accounts, provisioned', () => {
    let template: Template;
    beforeAll(
      () =>
        ({ template } = synth({
          audience: { accounts: ACCOUNTS },
          shards: 4,
          parallelizationFactor: 2,
          retention: Duration.hours(48),
          batchSize: 50,
          retryAttempts: 1,
          maxRecordAge: Duration.hours(1),
        })),
    );

    it('provisions the shards and keeps records as long as told', () => {
      template.hasResourceProperties('AWS::Kinesis::Stream', {
        StreamModeDetails: { StreamMode: 'PROVISIONED' },
        ShardCount: 4,
        RetentionPeriodHours: 48,
      });
      template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
        ParallelizationFactor: 2,
        BatchSize: 50,
        MaximumRetryAttempts: 1,
        MaximumRecordAgeInSeconds: 3600,
      });
    });

    it('lets only those accounts subscribe, without an organisation condition', () => {
      expect(destinationPolicyOf(template).Statement).toEqual([
        expect.objectContaining({ Sid: 'AccountsSubscribe', Principal: { AWS: ACCOUNTS } }),
      ]);
      expect(destinationPolicyOf(template).Statement[0]!.Condition).toBeUndefined();
    });

    it('lets CloudWatch Logs deliver only for those accounts and this one', () => {
      const trust = JSON.stringify(
        resourceOf(template, 'AWS::IAM::Role', 'OrganizationDeliveryRole').Properties.AssumeRolePolicyDocument,
      );
      for (const account of ACCOUNTS) expect(trust).toContain(`:${account}:*`);
      expect(trust).toContain('{"Ref":"AWS::AccountId"},":*"');
      expect(trust).not.toContain(':*:*');
    });

    it('has no unsuppressed cdk-nag AwsSolutions finding', () => {
      const { stack } = synth({ audience: { accounts: ACCOUNTS }, shards: 4 });
      expect(nagFindings(stack, 'Organization')).toEqual([]);
    });
  });

  describe('refuses at synth', () => {
    it.each([
      [
        { shards: 8, parallelizationFactor: 2 },
        "OrganizationStream: 8 shards × parallelizationFactor 2 = 16 concurrent batches, more than the analyzer's reserved concurrency of 10: raise reservedConcurrency or lower one of them",
      ],
      [
        { parallelizationFactor: 11 },
        "OrganizationStream: invalid parallelizationFactor:\n  parallelizationFactor = 11: expected 1 to 10 (Lambda's range)",
      ],
      [
        { shards: 501, analyzerConcurrency: 1000 },
        'OrganizationStream: invalid shards:\n  shards = 501: expected at most 500 shards (the default shard quota per account and region)',
      ],
      [
        { audience: { accounts: [] } },
        'OrganizationStream: invalid audience.accounts:\n  audience.accounts = []: expected at least one account',
      ],
      [
        { audience: { accounts: ['1234'] } },
        'OrganizationStream: invalid audience.accounts:\n  audience.accounts[0] = "1234": expected an AWS account id of 12 digits',
      ],
    ])('%j', (props, message) => {
      expect(() => synth(props as Partial<Props>)).toThrow(message);
    });

    it('takes as many concurrent batches as the analyzer may run', () => {
      expect(() => synth({ shards: 5, parallelizationFactor: 2 })).not.toThrow();
    });
  });
});

describe('allowAssumingSpokeRole', () => {
  function assume(audience: DestinationAudience) {
    const { stack } = constructStack();
    const fn = new LambdaFunction(stack, 'Analyzer', {
      runtime: Runtime.NODEJS_24_X,
      handler: 'index.handler',
      code: Code.fromInline('exports.handler = async () => {};'),
    });
    allowAssumingSpokeRole(fn, 'karpenter-doctor-enrichment', audience);
    return { stack, template: Template.fromStack(stack) };
  }

  it('lets the function assume the role by name in any account, only inside the organisation', () => {
    const { stack, template } = assume({ organizationId: ORG });
    expect(statementsOf(template, 'AnalyzerServiceRole')).toEqual([
      {
        Sid: 'Assumekarpenterdoctorenrichment',
        Effect: 'Allow',
        Action: 'sts:AssumeRole',
        Resource: { 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':iam::*:role/karpenter-doctor-enrichment']] },
        Condition: { StringEquals: { 'aws:ResourceOrgID': ORG } },
      },
    ]);
    expect(nagFindings(stack, 'Analyzer').filter((f) => f.includes('IAM5'))).toEqual([]);
  });

  it("names the listed accounts' roles exactly, with no wildcard account", () => {
    const { template } = assume({ accounts: ACCOUNTS });
    const [statement] = statementsOf(template, 'AnalyzerServiceRole');
    expect(statement!.Condition).toBeUndefined();
    expect(statement!.Resource).toEqual(
      ACCOUNTS.map((account) => ({
        'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, `:iam::${account}:role/karpenter-doctor-enrichment`]],
      })),
    );
  });
});
