import { App, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { FindingsTopic } from '../../../lib/constructs/findings-topic';
import { nagFindings, resourceOf } from './support';

function synth(props?: ConstructorParameters<typeof FindingsTopic>[2]) {
  const stack = new Stack(new App(), 'Test');
  const findings = new FindingsTopic(stack, 'Findings', props);
  return { stack, findings, template: Template.fromStack(stack) };
}

type PolicyStatement = { Effect: string; Principal?: unknown; Action: unknown; Condition?: unknown };

describe('FindingsTopic', () => {
  it('encrypts the topic with its own customer-managed key, rotated', () => {
    const { template } = synth();
    template.hasResourceProperties('AWS::KMS::Key', { EnableKeyRotation: true });
    template.hasResourceProperties('AWS::SNS::Topic', {
      KmsMasterKeyId: { 'Fn::GetAtt': [Match.stringLikeRegexp('^FindingsKey'), 'Arn'] },
    });
  });

  it('grants no AWS service principal the key: nothing but this account publishes findings', () => {
    const key = resourceOf(synth().template, 'AWS::KMS::Key', 'FindingsKey');
    expect(JSON.stringify(key.Properties.KeyPolicy)).not.toContain('amazonaws.com');
  });

  it('denies plain-HTTP publishing and lets only this account publish', () => {
    const policy = resourceOf(synth().template, 'AWS::SNS::TopicPolicy', 'FindingsTopic').Properties.PolicyDocument as {
      Statement: PolicyStatement[];
    };
    expect(policy.Statement).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
        expect.objectContaining({
          Sid: 'AllowAccountToPublish',
          Effect: 'Allow',
          Action: 'sns:Publish',
          Principal: {
            AWS: {
              'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':iam::', { Ref: 'AWS::AccountId' }, ':root']],
            },
          },
        }),
      ]),
    );
    const allowed = policy.Statement.filter((s) => s.Effect === 'Allow');
    expect(allowed).toHaveLength(1);
  });

  it('subscribes each alert email, and nothing without them', () => {
    const { template } = synth({ alertEmails: ['a@example.com', 'b@example.com'] });
    template.resourceCountIs('AWS::SNS::Subscription', 2);
    template.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'email',
      Endpoint: 'b@example.com',
      TopicArn: { Ref: Match.stringLikeRegexp('^FindingsTopic') },
    });
    synth().template.resourceCountIs('AWS::SNS::Subscription', 0);
  });

  it('refuses an alert address that is not an email address, naming it', () => {
    expect(() => synth({ alertEmails: ['oncall'] })).toThrow(
      'FindingsTopic: invalid alertEmails:\n  alertEmails[0] = "oncall": expected an email address',
    );
  });

  it('keeps the logical ids of the topic and its key', () => {
    const { template } = synth();
    expect(Object.keys(template.findResources('AWS::SNS::Topic'))).toEqual(['FindingsTopic6108FA32']);
    expect(Object.keys(template.findResources('AWS::KMS::Key'))).toEqual(['FindingsKeyC72F54EF']);
  });

  it('has no unsuppressed cdk-nag AwsSolutions finding', () => {
    expect(nagFindings(synth({ alertEmails: ['a@example.com'] }).stack, 'Findings')).toEqual([]);
  });
});
