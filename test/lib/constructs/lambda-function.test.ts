import { Duration } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import {
  aliasesOf,
  BUNDLE_OPTIONS,
  bundledFunction,
  DEFERRED_CRYPTO,
  deadLetterQueue,
  grantPublishing,
  onFailureQueue,
} from '../../../lib/constructs/lambda-function';
import { actionsOf, constructStack, resourceOf, resourcesOf, settingsFor, statement, statementsOf } from './support';

function synth(extra: Partial<Parameters<typeof bundledFunction>[1]> = {}) {
  const { stack, outputs } = constructStack();
  const scope = new Construct(stack, 'Fn');
  const made = bundledFunction(scope, {
    handlerFile: 'headroom.ts',
    description: 'a test function',
    environment: { STAGE: 'test' },
    timeout: Duration.seconds(30),
    reservedConcurrency: 3,
    settings: settingsFor({ clusters: [{ name: 'prod' }] }),
    ...extra,
  });
  return { stack, scope, outputs, made };
}

describe('bundledFunction', () => {
  it('runs Node.js 24 on arm64 with JSON logs to a log group of its own, and the given settings', () => {
    const { stack } = synth();
    const template = Template.fromStack(stack);
    template.hasResourceProperties('AWS::Lambda::Function', {
      Runtime: 'nodejs24.x',
      Architectures: ['arm64'],
      Handler: 'index.handler',
      MemorySize: 512,
      Timeout: 30,
      ReservedConcurrentExecutions: 3,
      Description: 'a test function',
      Environment: { Variables: { STAGE: 'test', SETTINGS_FILE: 'settings.json' } },
      LoggingConfig: { LogFormat: 'JSON', LogGroup: { Ref: Match.stringLikeRegexp('^FnLogGroup') } },
    });
    template.hasResource('AWS::Logs::LogGroup', { Properties: { RetentionInDays: 30 }, DeletionPolicy: 'Delete' });
  });

  it('takes the memory size and log retention it is given', () => {
    const template = Template.fromStack(synth({ memorySize: 1024, logRetention: RetentionDays.ONE_WEEK }).stack);
    template.hasResourceProperties('AWS::Lambda::Function', { MemorySize: 1024 });
    template.hasResourceProperties('AWS::Logs::LogGroup', { RetentionInDays: 7 });
  });

  it('gives the function a role of its own that may only write its own log group', () => {
    const template = Template.fromStack(synth().stack);
    template.hasResourceProperties('AWS::IAM::Role', {
      AssumeRolePolicyDocument: {
        Statement: [{ Action: 'sts:AssumeRole', Effect: 'Allow', Principal: { Service: 'lambda.amazonaws.com' } }],
      },
    });
    expect(resourceOf(template, 'AWS::IAM::Role', 'FnRole').Properties.ManagedPolicyArns).toBeUndefined();
    const statements = statementsOf(template, 'FnRole');
    expect(actionsOf(statements)).toEqual(['logs:CreateLogStream', 'logs:PutLogEvents']);
    expect(statements.flatMap(resourcesOf).every((r) => r.includes('FnLogGroup'))).toBe(true);
  });

  it('bundles CommonJS for Node.js 24, neither minified nor source-mapped, dependencies from their ES builds', () => {
    expect(BUNDLE_OPTIONS).toEqual({
      format: 'cjs',
      target: 'node24',
      minify: false,
      sourceMap: false,
      mainFields: ['module', 'main'],
    });
  });

  it('aliases node:crypto to the deferred module in the bundles listed in cryptoOnFirstUse only', () => {
    const props = { cryptoOnFirstUse: ['index', 'analyzer-core'] };
    expect(aliasesOf('index', props)).toEqual({ 'node:crypto': DEFERRED_CRYPTO });
    expect(aliasesOf('analyzer-core', props)).toEqual({ 'node:crypto': DEFERRED_CRYPTO });
    expect(aliasesOf('analyzer-aws', props)).toEqual({});
    expect(aliasesOf('index', {})).toEqual({});
  });

  it('refuses a cryptoOnFirstUse bundle that is neither index nor a lazy module', () => {
    expect(() => synth({ cryptoOnFirstUse: ['analyzer-core'] })).toThrow(
      'cryptoOnFirstUse: "analyzer-core" is neither "index" nor one of the lazy modules',
    );
  });
});

describe('grantPublishing', () => {
  it('grants exactly sns:Publish on the topic, GenerateDataKey and Decrypt on its key, PutEvents on the bus', () => {
    const { stack, made, outputs } = synth();
    grantPublishing(made.role, outputs);
    const statements = statementsOf(Template.fromStack(stack), 'FnRole');
    expect(statement(statements, 'Publish')).toMatchObject({
      Action: 'sns:Publish',
      Resource: { Ref: expect.stringMatching(/^Topic/) },
    });
    expect(statement(statements, 'UseTopicKey')).toMatchObject({
      Action: ['kms:GenerateDataKey', 'kms:Decrypt'],
      Resource: { 'Fn::GetAtt': [expect.stringMatching(/^TopicKey/), 'Arn'] },
    });
    expect(statement(statements, 'PutEvents')).toMatchObject({
      Action: 'events:PutEvents',
      Resource: { 'Fn::GetAtt': [expect.stringMatching(/^Bus/), 'Arn'] },
    });
  });
});

describe('deadLetterQueue', () => {
  it('is encrypted, TLS-only and keeps messages 14 days', () => {
    const { stack, scope } = synth();
    deadLetterQueue(scope, 'Dlq', 'the test');
    const template = Template.fromStack(stack);
    template.hasResourceProperties('AWS::SQS::Queue', {
      SqsManagedSseEnabled: true,
      MessageRetentionPeriod: 1_209_600,
    });
    template.hasResourceProperties('AWS::SQS::QueuePolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
        ]),
      },
    });
  });
});

describe('onFailureQueue', () => {
  it('sets the retries and event age of asynchronous invocations and sends failures to an encrypted queue', () => {
    const { stack, scope, made } = synth();
    onFailureQueue(scope, made.function, { retryAttempts: 1, maxEventAge: Duration.hours(2), of: 'the test' });
    const template = Template.fromStack(stack);
    template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
      MaximumRetryAttempts: 1,
      MaximumEventAgeInSeconds: 7200,
      DestinationConfig: {
        OnFailure: { Destination: { 'Fn::GetAtt': [Match.stringLikeRegexp('^FnFailureQueue'), 'Arn'] } },
      },
    });
    expect(actionsOf(statementsOf(template, 'FnRole'))).toEqual(
      expect.arrayContaining(['sqs:SendMessage', 'sqs:GetQueueAttributes', 'sqs:GetQueueUrl']),
    );
  });
});
