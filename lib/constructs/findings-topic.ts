import { Stack } from 'aws-cdk-lib';
import { AccountRootPrincipal, PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Key, type IKey } from 'aws-cdk-lib/aws-kms';
import { Topic, type ITopic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import { Construct } from 'constructs';

export interface FindingsTopicProps {
  /**
   * Addresses subscribed by email; each receives a confirmation mail first.
   * @default - no subscriptions (add chat, SQS or Lambda subscribers yourself)
   */
  readonly alertEmails?: readonly string[];
}

/**
 * The SNS topic every finding, alarm and (later) remediation notice goes to. Encrypted with a
 * customer-managed key with rotation, whose policy lets EventBridge and CloudWatch alarms publish
 * without source conditions (reference/aws-facts.md §3.4); plain-HTTP publishing is denied.
 */
export class FindingsTopic extends Construct {
  public readonly topic: ITopic;
  public readonly key: IKey;

  constructor(scope: Construct, id: string, props: FindingsTopicProps = {}) {
    super(scope, id);
    const key = new Key(this, 'Key', {
      description: 'karpenter-doctor findings topic encryption',
      enableKeyRotation: true,
    });
    for (const service of ['events.amazonaws.com', 'cloudwatch.amazonaws.com']) {
      key.addToResourcePolicy(
        new PolicyStatement({
          sid: `Allow${service.split('.')[0]!.replace(/^./, (c) => c.toUpperCase())}ToUseTheKey`,
          principals: [new ServicePrincipal(service)],
          actions: ['kms:GenerateDataKey*', 'kms:Decrypt'],
          resources: ['*'],
        }),
      );
    }
    const topic = new Topic(this, 'Topic', {
      displayName: 'karpenter-doctor',
      masterKey: key,
      enforceSSL: true,
    });
    // enforceSSL replaces the default topic policy, so the account and CloudWatch alarms are allowed explicitly.
    topic.addToResourcePolicy(
      new PolicyStatement({
        sid: 'AllowAccountToPublish',
        principals: [new AccountRootPrincipal()],
        actions: ['sns:Publish'],
        resources: [topic.topicArn],
      }),
    );
    topic.addToResourcePolicy(
      new PolicyStatement({
        sid: 'AllowCloudWatchAlarmsToPublish',
        principals: [new ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['sns:Publish'],
        resources: [topic.topicArn],
        conditions: { StringEquals: { 'aws:SourceAccount': Stack.of(this).account } },
      }),
    );
    for (const email of props.alertEmails ?? []) topic.addSubscription(new EmailSubscription(email));
    this.topic = topic;
    this.key = key;
  }
}
