import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { AutoScalingClient } from '@aws-sdk/client-auto-scaling';
import { CreateTableCommand, DynamoDBClient, UpdateTimeToLiveCommand } from '@aws-sdk/client-dynamodb';
import { EC2Client } from '@aws-sdk/client-ec2';
import { EKSClient } from '@aws-sdk/client-eks';
import {
  CreateEventBusCommand,
  EventBridgeClient,
  PutRuleCommand,
  PutTargetsCommand,
  type RuleState,
} from '@aws-sdk/client-eventbridge';
import { CreateTopicCommand, SNSClient, SubscribeCommand } from '@aws-sdk/client-sns';
import { CreateQueueCommand, DeleteMessageBatchCommand, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { matchesPattern } from './event-pattern';
import { BundledFunction } from './function';
import { ACCOUNT, CREDENTIALS, REGION, type Moto } from './moto';
import type { Resource, SynthesizedStack } from './stack';

/** SDK clients of the test itself, pointed at the emulator. */
export interface EmulatorClients {
  readonly dynamo: DynamoDBClient;
  readonly ec2: EC2Client;
  readonly eks: EKSClient;
  readonly autoScaling: AutoScalingClient;
  readonly sns: SNSClient;
  readonly events: EventBridgeClient;
  readonly sqs: SQSClient;
}

export function emulatorClients(moto: Moto): EmulatorClients {
  const config = { endpoint: moto.endpoint, region: REGION, credentials: CREDENTIALS, maxAttempts: 1 };
  return {
    dynamo: new DynamoDBClient(config),
    ec2: new EC2Client(config),
    eks: new EKSClient(config),
    autoScaling: new AutoScalingClient(config),
    sns: new SNSClient(config),
    events: new EventBridgeClient(config),
    sqs: new SQSClient(config),
  };
}

/** One notice as an SQS subscriber of the findings topic receives it. */
export interface Notice {
  subject?: string;
  /** The message the topic delivered to SQS; with `MessageStructure=json` that is the `default` key. */
  message: string;
  /** `message` parsed as JSON (the finding or report document), or undefined when it is not JSON. */
  document?: Record<string, unknown>;
  attributes: Record<string, string>;
}

/** One event as an SQS target of an EventBridge rule receives it. */
export interface DeliveredEvent {
  'detail-type': string;
  source: string;
  account: string;
  region: string;
  resources: string[];
  detail: Record<string, unknown>;
}

/** An SQS queue that captures what AWS delivers; `take()` returns (and removes) all it holds. */
export class Capture<T> {
  constructor(
    private readonly sqs: SQSClient,
    readonly queueUrl: string,
    private readonly parse: (body: string) => T,
    /** What the queue's subscriber would be given; the rest is taken and dropped. */
    private readonly keep: (item: T) => boolean = () => true,
  ) {}

  /**
   * Everything delivered so far. SNS fan-out and EventBridge delivery happen inside the publishing
   * call in the emulator, so once the function has returned its messages are here: no waiting.
   */
  async take(): Promise<T[]> {
    const taken: T[] = [];
    for (;;) {
      const { Messages = [] } = await this.sqs.send(
        new ReceiveMessageCommand({ QueueUrl: this.queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 0 }),
      );
      if (Messages.length === 0) return taken;
      taken.push(...Messages.map((m) => this.parse(m.Body ?? '')).filter(this.keep));
      await this.sqs.send(
        new DeleteMessageBatchCommand({
          QueueUrl: this.queueUrl,
          Entries: Messages.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle! })),
        }),
      );
    }
  }
}

/** The stack as created in the emulator, with its functions ready to invoke. */
export interface Deployment {
  readonly stack: SynthesizedStack;
  readonly clients: EmulatorClients;
  /** Physical names and ids by logical id (table name, topic ARN, queue URL, bus name, …). */
  readonly physicalIds: ReadonlyMap<string, string>;
  /** Notices: an SQS queue subscribed to every topic of the template. */
  readonly notices: Capture<Notice>;
  /** Events: an SQS target of a rule on the stack's bus that matches everything put on it. */
  readonly events: Capture<DeliveredEvent>;
  /** The events each rule of the template would deliver to its target (its event pattern applied). */
  ruleTarget(constructPath: string): Capture<DeliveredEvent>;
  /**
   * The bundled function created by the construct at `constructPath` (e.g. `Analyzer`); `environment`
   * adds to what the template and the harness set (e.g. `AWS_ENDPOINT_URL_EC2` for a fault-injecting
   * endpoint), in an execution environment of its own.
   */
  fn(constructPath: string, environment?: Record<string, string>): BundledFunction;
  /** Ends every execution environment started by `fn`. */
  stop(): Promise<void>;
}

/**
 * Resource types the harness creates in the emulator from their template properties. Everything the
 * functions reach at run time is among them, so a change to these resources in the stack (a key
 * schema, an event pattern, a new variable naming one of them) is a change to the test.
 */
const CREATED = new Set([
  'AWS::DynamoDB::Table',
  'AWS::SNS::Topic',
  'AWS::SQS::Queue',
  'AWS::Events::EventBus',
  'AWS::Events::Rule',
]);

/**
 * Resource types the harness does not create, and why. A type in neither list fails the deployment,
 * so a new kind of resource in the stack needs a decision here.
 */
const NOT_CREATED: Record<string, string> = {
  'AWS::Lambda::Function': 'moto cannot run Lambda without Docker: the harness runs the bundled asset itself',
  'AWS::Lambda::EventInvokeConfig': 'retries of asynchronous invocations are the Lambda service, not emulated',
  'AWS::Lambda::Permission': 'resource policies are not evaluated by the emulator',
  'AWS::IAM::Role': 'IAM is not enforced by the emulator; least privilege is checked by cdk-nag and the unit tests',
  'AWS::IAM::Policy': 'as AWS::IAM::Role',
  'AWS::KMS::Key': 'the emulator does not encrypt; the topic is created without its key',
  'AWS::SNS::TopicPolicy': 'resource policies are not evaluated by the emulator',
  'AWS::SNS::Subscription': 'email subscriptions cannot be confirmed; an SQS subscription captures notices instead',
  'AWS::SQS::QueuePolicy': 'resource policies are not evaluated by the emulator',
  'AWS::Logs::LogGroup': 'the functions log to stdout, captured by the harness',
  'AWS::Logs::SubscriptionFilter':
    'moto refuses a subscription filter to a Lambda it cannot invoke: the tests deliver the payload themselves',
  'AWS::Scheduler::Schedule': 'the tests invoke the headroom function as the schedule would, at a time they choose',
  'AWS::CloudWatch::Alarm': 'alarms watch metrics of the real service; checked by the stack unit tests',
  'AWS::CloudWatch::Dashboard': 'as AWS::CloudWatch::Alarm',
  'AWS::EKS::AccessEntry':
    'moto has no EKS access entries; the tests check the token the poller signs, and the stack unit tests the entry',
  'AWS::CDK::Metadata': 'CDK bookkeeping',
};

/**
 * Creates the template's resources in the emulator from their properties — the table with its key
 * schema, attribute definitions and TTL; the topics; the queues; the bus; each rule with its event
 * pattern — and resolves every function's environment against them.
 */
export async function deploy(stack: SynthesizedStack, moto: Moto): Promise<Deployment> {
  const clients = emulatorClients(moto);
  const resources = Object.entries(stack.template.Resources);
  for (const [id, resource] of resources) {
    if (!CREATED.has(resource.Type) && !(resource.Type in NOT_CREATED)) {
      throw new Error(`${id}: the integration harness does not know ${resource.Type}; add it to support/deploy.ts`);
    }
  }
  const suffix = randomBytes(4).toString('hex').toUpperCase();
  const names = new Map<string, string>(resources.map(([id]) => [id, physicalName(stack.stackName, id, suffix)]));
  const physicalIds = new Map<string, string>();
  const arns = new Map<string, string>();
  const resolver = new Resolver(stack, names, physicalIds, arns);

  // Names and ARNs that do not need the emulator, so that later resources can refer to them.
  for (const [id, { Type, Properties = {} }] of resources) {
    const name = names.get(id)!;
    if (Type === 'AWS::Lambda::Function') {
      physicalIds.set(id, name);
      arns.set(id, `arn:aws:lambda:${REGION}:${ACCOUNT}:function:${name}`);
    } else if (Type === 'AWS::KMS::Key') {
      physicalIds.set(id, name);
      arns.set(id, `arn:aws:kms:${REGION}:${ACCOUNT}:key/${name}`);
    } else if (Type === 'AWS::Events::EventBus') {
      const busName = resolver.string(Properties.Name ?? name);
      const { EventBusArn } = await clients.events.send(new CreateEventBusCommand({ Name: busName }));
      physicalIds.set(id, busName);
      arns.set(id, EventBusArn!);
    }
  }
  for (const [id, { Type, Properties = {} }] of resources) {
    const name = names.get(id)!;
    if (Type === 'AWS::DynamoDB::Table') {
      const tableName = Properties.TableName ? resolver.string(Properties.TableName) : name;
      const { TableDescription } = await clients.dynamo.send(
        new CreateTableCommand({
          TableName: tableName,
          KeySchema: resolver.value(Properties.KeySchema) as never,
          AttributeDefinitions: resolver.value(Properties.AttributeDefinitions) as never,
          BillingMode: resolver.value(Properties.BillingMode) as never,
          ProvisionedThroughput: resolver.value(Properties.ProvisionedThroughput) as never,
          GlobalSecondaryIndexes: resolver.value(Properties.GlobalSecondaryIndexes) as never,
        }),
      );
      const ttl = resolver.value(Properties.TimeToLiveSpecification) as
        { AttributeName: string; Enabled: boolean } | undefined;
      if (ttl) {
        await clients.dynamo.send(new UpdateTimeToLiveCommand({ TableName: tableName, TimeToLiveSpecification: ttl }));
      }
      physicalIds.set(id, tableName);
      arns.set(id, TableDescription!.TableArn!);
    } else if (Type === 'AWS::SNS::Topic') {
      const { TopicArn } = await clients.sns.send(
        new CreateTopicCommand({
          Name: Properties.TopicName ? resolver.string(Properties.TopicName) : name,
          Attributes: Properties.DisplayName ? { DisplayName: resolver.string(Properties.DisplayName) } : undefined,
        }),
      );
      physicalIds.set(id, TopicArn!);
      arns.set(id, TopicArn!);
    } else if (Type === 'AWS::SQS::Queue') {
      const queue = await createQueue(clients.sqs, name.slice(-80));
      physicalIds.set(id, queue.url);
      arns.set(id, queue.arn);
    }
  }

  // What the test observes: notices from every topic, and every event put on the stack's bus.
  const noticeQueue = await createQueue(clients.sqs, `notices-${suffix}`);
  for (const [id, { Type }] of resources) {
    if (Type !== 'AWS::SNS::Topic') continue;
    await clients.sns.send(
      new SubscribeCommand({ TopicArn: physicalIds.get(id)!, Protocol: 'sqs', Endpoint: noticeQueue.arn }),
    );
  }
  const busName = busOf(stack, resolver);
  const eventQueue = await createQueue(clients.sqs, `events-${suffix}`);
  await captureBus(clients.events, busName, `capture-all-${suffix}`, eventQueue.arn);

  // The template's rules: each is created in the emulator with its event pattern (which checks that
  // PutRule accepts it), and every event on its bus reaches a queue of its own, where the harness
  // lets through what the pattern matches (support/event-pattern.ts: moto's matcher does not look
  // into arrays of objects, which the remediation rule's pattern needs).
  const ruleTargets = new Map<string, Capture<DeliveredEvent>>();
  for (const [id, { Type, Properties = {} }] of resources) {
    if (Type !== 'AWS::Events::Rule') continue;
    const ruleName = Properties.Name ? resolver.string(Properties.Name) : names.get(id)!.slice(-64);
    const eventBusName = Properties.EventBusName ? resolver.string(Properties.EventBusName) : 'default';
    const pattern = Properties.EventPattern ? resolver.value(Properties.EventPattern) : undefined;
    await clients.events.send(
      new PutRuleCommand({
        Name: ruleName,
        EventBusName: eventBusName,
        EventPattern: pattern ? JSON.stringify(pattern) : undefined,
        ScheduleExpression: Properties.ScheduleExpression ? resolver.string(Properties.ScheduleExpression) : undefined,
        State: (Properties.State ? resolver.string(Properties.State) : 'ENABLED') as RuleState,
      }),
    );
    physicalIds.set(id, ruleName);
    if (!pattern) continue;
    const queue = await createQueue(clients.sqs, `rule-${suffix}-${id}`.slice(0, 80));
    await captureBus(clients.events, eventBusName, `capture-${suffix}-${id}`.slice(0, 64), queue.arn);
    ruleTargets.set(id, new Capture(clients.sqs, queue.url, parseEvent, (event) => matchesPattern(pattern, event)));
  }

  const functions = new Map<string, BundledFunction>();
  return {
    stack,
    clients,
    physicalIds,
    notices: new Capture(clients.sqs, noticeQueue.url, parseNotice),
    events: new Capture(clients.sqs, eventQueue.url, parseEvent),
    ruleTarget(constructPath) {
      const capture = ruleTargets.get(stack.logicalIdAt(constructPath));
      if (!capture) throw new Error(`${constructPath} is not an EventBridge rule with an event pattern`);
      return capture;
    },
    fn(constructPath, environment = {}) {
      const id = stack.logicalIdAt(`${constructPath}/Function`);
      const key = `${id} ${JSON.stringify(environment)}`;
      let fn = functions.get(key);
      if (!fn) {
        fn = bundledFunction(stack, id, stack.template.Resources[id]!, resolver, moto, environment);
        functions.set(key, fn);
      }
      return fn;
    },
    async stop() {
      await Promise.all([...functions.values()].map((f) => f.stop()));
      functions.clear();
      for (const client of Object.values(clients)) (client as { destroy(): void }).destroy();
    },
  };
}

/** The function as Lambda would run it: its asset, its handler, its resolved environment. */
function bundledFunction(
  stack: SynthesizedStack,
  id: string,
  resource: Resource,
  resolver: Resolver,
  moto: Moto,
  extra: Record<string, string>,
): BundledFunction {
  const props = resource.Properties ?? {};
  const asset = resource.Metadata?.['aws:asset:path'];
  if (typeof asset !== 'string') throw new Error(`${id} has no bundled asset (aws:asset:path)`);
  const variables = resolver.value((props.Environment as { Variables?: unknown } | undefined)?.Variables ?? {});
  const name = resolver.physicalId(id);
  return new BundledFunction({
    assetDir: join(stack.outDir, asset),
    handler: String(props.Handler),
    functionName: name,
    functionArn: resolver.arn(id),
    timeoutSeconds: Number(props.Timeout ?? 3),
    environment: {
      ...(variables as Record<string, string>),
      // What the Lambda service sets, and where the emulator is.
      AWS_REGION: REGION,
      AWS_DEFAULT_REGION: REGION,
      AWS_LAMBDA_FUNCTION_NAME: name,
      AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(props.MemorySize ?? 128),
      AWS_ACCESS_KEY_ID: CREDENTIALS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: CREDENTIALS.secretAccessKey,
      AWS_ENDPOINT_URL: moto.endpoint,
      AWS_EC2_METADATA_DISABLED: 'true',
      // The tests run the Node 24 bundle on the machine's Node (20 or later).
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      TZ: 'UTC',
      ...extra,
    },
  });
}

/** CloudFormation's intrinsic functions, resolved against what the harness created. */
class Resolver {
  constructor(
    private readonly stack: SynthesizedStack,
    private readonly names: Map<string, string>,
    private readonly physicalIds: Map<string, string>,
    private readonly arns: Map<string, string>,
  ) {}

  string(value: unknown): string {
    const resolved = this.value(value);
    if (typeof resolved !== 'string') throw new Error(`expected a string, got ${JSON.stringify(value)}`);
    return resolved;
  }

  physicalId(id: string): string {
    const physical = this.physicalIds.get(id);
    if (physical === undefined) {
      throw new Error(`Ref ${id} (${this.stack.template.Resources[id]?.Type}): not created by the harness`);
    }
    return physical;
  }

  arn(id: string): string {
    const arn = this.arns.get(id);
    if (arn === undefined) throw new Error(`Fn::GetAtt ${id}.Arn: not created by the harness`);
    return arn;
  }

  value(value: unknown): unknown {
    if (Array.isArray(value)) return value.map((v) => this.value(v));
    if (value === null || typeof value !== 'object') return value;
    const entries = Object.entries(value);
    const [key, argument] = entries[0] ?? [];
    if (entries.length === 1 && key === 'Ref') return this.ref(String(argument));
    if (entries.length === 1 && key === 'Fn::GetAtt') {
      const [id, attribute] = argument as [string, string];
      if (attribute !== 'Arn') throw new Error(`Fn::GetAtt ${id}.${attribute}: only Arn is known to the harness`);
      return this.arn(id);
    }
    if (entries.length === 1 && key === 'Fn::Join') {
      const [separator, parts] = argument as [string, unknown[]];
      return parts.map((p) => this.string(p)).join(separator);
    }
    if (entries.length === 1 && key === 'Fn::Sub' && typeof argument === 'string') {
      return argument.replace(/\$\{([^}]+)\}/g, (_, name: string) =>
        name.includes('.') ? this.arn(name.split('.')[0]!) : this.string({ Ref: name }),
      );
    }
    if (key?.startsWith('Fn::')) throw new Error(`${key} is not known to the integration harness`);
    return Object.fromEntries(entries.map(([k, v]) => [k, this.value(v)]));
  }

  private ref(name: string): string {
    switch (name) {
      case 'AWS::Region':
        return REGION;
      case 'AWS::AccountId':
        return ACCOUNT;
      case 'AWS::Partition':
        return 'aws';
      case 'AWS::URLSuffix':
        return 'amazonaws.com';
      case 'AWS::StackName':
        return this.stack.stackName;
      default:
        if (!this.names.has(name)) throw new Error(`Ref ${name}: no such resource or parameter`);
        return this.physicalId(name);
    }
  }
}

/** The bus the stack's functions put events on (their EVENT_BUS_NAME, resolved). */
function busOf(stack: SynthesizedStack, resolver: Resolver): string {
  for (const resource of Object.values(stack.template.Resources)) {
    if (resource.Type !== 'AWS::Lambda::Function') continue;
    const variables = (resource.Properties?.Environment as { Variables?: Record<string, unknown> } | undefined)
      ?.Variables;
    if (variables?.EVENT_BUS_NAME !== undefined) return resolver.string(variables.EVENT_BUS_NAME);
  }
  return 'default';
}

function parseNotice(body: string): Notice {
  const envelope = JSON.parse(body) as {
    Subject?: string;
    Message: string;
    MessageAttributes?: Record<string, { Value: string }>;
  };
  let document: Record<string, unknown> | undefined;
  try {
    const parsed = JSON.parse(envelope.Message) as unknown;
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) document = parsed as Record<string, unknown>;
  } catch {
    document = undefined;
  }
  return {
    subject: envelope.Subject,
    message: envelope.Message,
    document,
    attributes: Object.fromEntries(Object.entries(envelope.MessageAttributes ?? {}).map(([k, v]) => [k, v.Value])),
  };
}

/**
 * An event as its target receives it. moto 5.2.1 leaves `account` out of the events it delivers;
 * EventBridge always sets it to the account of the bus (the emulator's), and the remediation rule and
 * the remediator both check it, so the harness puts it back.
 */
function parseEvent(body: string): DeliveredEvent {
  const event = JSON.parse(body) as Omit<DeliveredEvent, 'account'> & { account?: string };
  return { ...event, account: event.account ?? ACCOUNT };
}

/** A rule on `bus` that sends every event put on it (all come from the emulator's account) to `queueArn`. */
async function captureBus(events: EventBridgeClient, bus: string, rule: string, queueArn: string): Promise<void> {
  await events.send(
    new PutRuleCommand({ Name: rule, EventBusName: bus, EventPattern: JSON.stringify({ account: [ACCOUNT] }) }),
  );
  await events.send(
    new PutTargetsCommand({ Rule: rule, EventBusName: bus, Targets: [{ Id: 'capture', Arn: queueArn }] }),
  );
}

async function createQueue(sqs: SQSClient, name: string): Promise<{ url: string; arn: string }> {
  const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: name }));
  return { url: QueueUrl!, arn: `arn:aws:sqs:${REGION}:${ACCOUNT}:${name}` };
}

/** CloudFormation-like generated names: stack, logical id, random suffix. */
function physicalName(stackName: string, id: string, suffix: string): string {
  return `${stackName}-${id}-${suffix}`;
}
