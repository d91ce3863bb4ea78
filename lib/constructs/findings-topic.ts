import { AccountRootPrincipal, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { Key, type IKey } from 'aws-cdk-lib/aws-kms';
import { Topic, type ITopic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import { NagSuppressions } from 'cdk-nag';
import { Construct } from 'constructs';
import { alertEmailsSchema } from '../../contracts/config';
import { requireValid } from './validate';

export interface FindingsTopicProps {
  /**
   * Addresses subscribed by email; each receives a confirmation mail first.
   * @default - no subscriptions (add chat, SQS or Lambda subscribers yourself)
   */
  readonly alertEmails?: readonly string[];
}

/**
 * The SNS topic every finding, digest and remediation notice goes to. Encrypted with a
 * customer-managed key with rotation that only this account's principals use: no AWS service
 * publishes here (the alarms have their own topic and key, see `Operations`), so the key policy
 * grants no service principal. Plain-HTTP publishing is denied.
 */
export class FindingsTopic extends Construct {
  public readonly topic: ITopic;
  public readonly key: IKey;

  constructor(scope: Construct, id: string, props: FindingsTopicProps = {}) {
    super(scope, id);
    requireValid('FindingsTopic', 'alertEmails', alertEmailsSchema, props.alertEmails ?? []);
    const key = new Key(this, 'Key', {
      description: 'karpenter-doctor findings topic encryption',
      enableKeyRotation: true,
    });
    const topic = new Topic(this, 'Topic', {
      displayName: 'karpenter-doctor',
      masterKey: key,
      enforceSSL: true,
    });
    // enforceSSL replaces the default topic policy, so the account is allowed explicitly.
    topic.addToResourcePolicy(
      new PolicyStatement({
        sid: 'AllowAccountToPublish',
        principals: [new AccountRootPrincipal()],
        actions: ['sns:Publish'],
        resources: [topic.topicArn],
      }),
    );
    subscribeEmails(topic, props.alertEmails ?? []);
    this.topic = topic;
    this.key = key;
  }
}

/**
 * Subscribes each address to `topic` by email (SNS sends a confirmation mail first). An email
 * subscription needs no redrive queue: what SNS cannot deliver is counted and alarmed on.
 */
export function subscribeEmails(topic: Topic, emails: readonly string[]): void {
  for (const email of emails) topic.addSubscription(new EmailSubscription(email));
  NagSuppressions.addResourceSuppressions(
    topic,
    [
      {
        id: 'Serverless-SNSRedrivePolicy',
        reason:
          'Email subscriptions: a message SNS cannot deliver is counted (NumberOfNotificationsFailed, alarmed on), and a queue of undelivered emails would be read by nobody.',
      },
    ],
    true,
  );
}
