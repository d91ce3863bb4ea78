import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { AspectPriority, Aspects, Duration, RemovalPolicy, Stage, type IAspect } from 'aws-cdk-lib';
import { CfnManagedPolicy, PolicyStatement, Role, ServicePrincipal, type IRole } from 'aws-cdk-lib/aws-iam';
import { Architecture, LoggingFormat, Runtime } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays, type ILogGroup } from 'aws-cdk-lib/aws-logs';
import { NagSuppressions, type NagPackSuppression } from 'cdk-nag';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { IEventBus } from 'aws-cdk-lib/aws-events';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import { SqsDestination } from 'aws-cdk-lib/aws-lambda-destinations';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import type { Construct, IConstruct } from 'constructs';
import { ENV } from '../../contracts/names';
import { SETTINGS_FILE, serializeSettings, type FunctionSettings } from '../../contracts/settings';

const ROOT = join(__dirname, '..', '..');

export interface LambdaFunctionProps {
  /** The handler file under lambdas/handlers, e.g. `analyzer.ts`. */
  readonly handlerFile: string;
  readonly description: string;
  /** Names of the stack's resources the function uses; everything else travels in `settings`. */
  readonly environment: Record<string, string>;
  /** The settings the function reads from the file bundled beside its code (contracts/settings.ts). */
  readonly settings: FunctionSettings;
  readonly timeout: Duration;
  readonly reservedConcurrency: number;
  /** @default 512 */
  readonly memorySize?: number;
  /** @default RetentionDays.ONE_MONTH */
  readonly logRetention?: RetentionDays;
  /**
   * Modules beside the handler (e.g. `analyzer-aws`) that it `require`s only on first use: each is
   * bundled as a file of its own next to index.js, so a cold start never reads, compiles or runs it.
   * @default none
   */
  readonly lazyModules?: readonly string[];
  /**
   * The bundles (`index`, or names of `lazyModules`) in which `node:crypto` loads on its first call
   * rather than with the bundle (`DEFERRED_CRYPTO`): only bundles that run before the AWS SDK does,
   * and that use no more of node:crypto than that file provides (a bundle that does fails to build).
   * @default none
   */
  readonly cryptoOnFirstUse?: readonly string[];
}

/**
 * Creates in `scope` (as `LogGroup`, `Role` and `Function`) what every function has in common: Node.js
 * 24 on arm64, the SDK bundled, its own log group and role (docs/architecture.md, Bundling the functions).
 */
export function bundledFunction(
  scope: Construct,
  props: LambdaFunctionProps,
): { function: NodejsFunction; role: IRole; logGroup: ILogGroup } {
  const logGroup = new LogGroup(scope, 'LogGroup', {
    retention: props.logRetention ?? RetentionDays.ONE_MONTH,
    removalPolicy: RemovalPolicy.DESTROY,
  });
  const role = new Role(scope, 'Role', {
    assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
    description: props.description,
  });
  const lazy = lazyModulesOf(props);
  for (const name of props.cryptoOnFirstUse ?? []) {
    if (name !== 'index' && !lazy.some((module) => module.name === name)) {
      throw new Error(`cryptoOnFirstUse: "${name}" is neither "index" nor one of the lazy modules`);
    }
  }
  const settingsSource = settingsFileOf(scope, props.settings);
  const fn = new NodejsFunction(scope, 'Function', {
    entry: join(ROOT, 'lambdas', 'handlers', props.handlerFile),
    handler: 'handler',
    runtime: Runtime.NODEJS_24_X,
    architecture: Architecture.ARM_64,
    memorySize: props.memorySize ?? 512,
    timeout: props.timeout,
    role,
    logGroup,
    loggingFormat: LoggingFormat.JSON,
    reservedConcurrentExecutions: props.reservedConcurrency,
    environment: { ...props.environment, [ENV.settingsFile]: SETTINGS_FILE },
    description: props.description,
    projectRoot: ROOT,
    depsLockFilePath: join(ROOT, 'package-lock.json'),
    bundling: {
      ...BUNDLE_OPTIONS,
      mainFields: [...BUNDLE_OPTIONS.mainFields],
      bundleAwsSDK: true,
      forceDockerBundling: false,
      // esbuild runs in the project root, where the alias's relative path resolves.
      esbuildArgs: Object.fromEntries(
        Object.entries(aliasesOf('index', props)).map(([from, to]) => ['--alias', `${from}=./${to}`]),
      ),
      // A lazy module stays a `require('./<name>')` in index.js and is bundled beside it after.
      externalModules: lazy.map(({ name }) => `./${name}`),
      commandHooks: {
        beforeBundling: () => [],
        beforeInstall: () => [],
        afterBundling: (inputDir, outputDir) => [
          ['cp', settingsSource, join(outputDir, SETTINGS_FILE)].map(shellQuote).join(' '),
          ...lazy.map((module) => lazyBundleCommand(inputDir, outputDir, module, lazy, aliasesOf(module.name, props))),
        ],
      },
    },
  });
  logGroup.grantWrite(role);
  NagSuppressions.addResourceSuppressions(fn, [
    {
      id: 'Serverless-LambdaTracing',
      reason:
        'Observability is structured JSON logs and EMF metrics (Powertools) with alarms; X-Ray tracing would add a policy on Resource "*" and a cost per trace for a function whose calls are already logged and metered.',
    },
  ]);
  suppressOnRole(role, [
    {
      id: 'AwsSolutions-IAM5',
      reason:
        "Lambda creates its log streams at run time; logs:CreateLogStream and logs:PutLogEvents are scoped to the function's own log group and its streams.",
      appliesTo: [{ regex: '/^Resource::<.*LogGroup.*\\.Arn>:\\*$/' }],
    },
  ]);
  return { function: fn, role, logGroup };
}

/**
 * Suppresses cdk-nag findings on a role's policies, and on the `OverflowPolicyN` policies CDK splits off
 * a long one later, in an aspect (docs/architecture.md, Bundling the functions).
 */
export function suppressOnRole(role: IRole, suppressions: NagPackSuppression[]): void {
  NagSuppressions.addResourceSuppressions(role, suppressions, true);
  const overflow: IAspect = {
    visit(node: IConstruct) {
      if (node instanceof CfnManagedPolicy && node.node.scope?.node.id.startsWith('OverflowPolicy')) {
        NagSuppressions.addResourceSuppressions(node, suppressions);
      }
    },
  };
  Aspects.of(role).add(overflow, { priority: AspectPriority.MUTATING + 1 });
}

/**
 * Writes the serialised settings into the cloud assembly folder, named by their hash, for the bundling
 * to copy beside index.js (a file, not a command-line argument: it may be larger than one may be).
 */
function settingsFileOf(scope: Construct, settings: FunctionSettings): string {
  const text = serializeSettings(settings);
  const dir = join(Stage.of(scope)!.outdir, 'karpenter-doctor-settings');
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `${createHash('sha256').update(text).digest('hex').slice(0, 16)}.json`);
  writeFileSync(path, text);
  return path;
}

/**
 * How every function is bundled: CommonJS for Node.js 24, neither minified nor source-mapped, from ES
 * module builds where there are some (measured: docs/architecture.md, Bundling the functions).
 */
export const BUNDLE_OPTIONS = {
  format: OutputFormat.CJS,
  target: 'node24',
  minify: false,
  sourceMap: false,
  mainFields: ['module', 'main'],
} as const;

/** A module a function `require`s on first use, bundled as `<name>.js` beside index.js. */
export interface LazyModule {
  /** What the code requires (`./<name>`) and the file's name beside index.js. */
  readonly name: string;
  /** Its source, from the repository root. */
  readonly entry: string;
}

/**
 * Every function's lazy modules: its own (`lazyModules`) and the zod schema of the settings, which it
 * loads only when its settings file is not as the stack writes it (contracts/settings-check.ts).
 */
export function lazyModulesOf(props: Pick<LambdaFunctionProps, 'handlerFile' | 'lazyModules'>): LazyModule[] {
  const handlerDir = dirname(join('lambdas', 'handlers', props.handlerFile));
  return [
    ...(props.lazyModules ?? []).map((name) => ({ name, entry: join(handlerDir, `${name}.ts`) })),
    { name: 'settings-schema', entry: join('lambdas', 'shared', 'settings-schema.ts') },
  ];
}

/**
 * `node:crypto` as a bundle listed in `cryptoOnFirstUse` sees it: looked up on the first call, so a cold
 * start without a finding never loads it (docs/architecture.md, Bundling the functions).
 */
export const DEFERRED_CRYPTO = join('lambdas', 'shared', 'deferred-crypto.ts');

/** The esbuild aliases of one bundle (`index` or a lazy module's name): from import path to file. */
export function aliasesOf(
  bundle: string,
  props: Pick<LambdaFunctionProps, 'cryptoOnFirstUse'>,
): Record<string, string> {
  return props.cryptoOnFirstUse?.includes(bundle) ? { 'node:crypto': DEFERRED_CRYPTO } : {};
}

/** The shell command that bundles a lazy module beside index.js, with the same options as it. */
function lazyBundleCommand(
  inputDir: string,
  outputDir: string,
  module: LazyModule,
  lazy: readonly LazyModule[],
  aliases: Record<string, string>,
): string {
  const name = module.name;
  return [
    join(inputDir, 'node_modules', '.bin', 'esbuild'),
    '--bundle',
    join(inputDir, module.entry),
    '--platform=node',
    `--format=${BUNDLE_OPTIONS.format}`,
    `--target=${BUNDLE_OPTIONS.target}`,
    `--main-fields=${BUNDLE_OPTIONS.mainFields.join(',')}`,
    `--outfile=${join(outputDir, `${name}.js`)}`,
    '--log-level=warning',
    // Its own imports of other lazy modules (a cycle back to itself included) stay requires too.
    ...lazy.map((other) => `--external:./${other.name}`),
    ...Object.entries(aliases).map(([from, to]) => `--alias:${from}=${join(inputDir, to)}`),
  ]
    .map(shellQuote)
    .join(' ');
}

const shellQuote = (arg: string) => `'${arg.replaceAll("'", `'\\''`)}'`;

/** Where every function publishes: the findings topic (encrypted with its key) and the event bus. */
export interface Outputs {
  readonly topic: ITopic;
  readonly topicKey: IKey;
  readonly eventBus: IEventBus;
}

/** What every function of the stack is wired to: its incident table, where it publishes, and its logs. */
export interface FunctionWiring extends Outputs {
  readonly table: ITable;
  /**
   * Retention of the function's own log group.
   * @default RetentionDays.ONE_MONTH
   */
  readonly logRetention?: RetentionDays;
}

/**
 * The environment of a wired function: the names of its table, topic and bus (from the shared
 * constants in contracts/names.ts) and its Powertools service name. `grantWiring` grants what goes
 * with each.
 */
export function wiringEnvironment(wiring: FunctionWiring, service: string): Record<string, string> {
  return {
    [ENV.tableName]: wiring.table.tableName,
    [ENV.topicArn]: wiring.topic.topicArn,
    [ENV.eventBusName]: wiring.eventBus.eventBusName,
    POWERTOOLS_SERVICE_NAME: service,
  };
}

/**
 * The grants that go with `wiringEnvironment`: exactly `tableActions` on the table, then publishing
 * (`grantPublishing`).
 */
export function grantWiring(role: IRole, wiring: FunctionWiring, tableActions: readonly string[]): void {
  wiring.table.grant(role, ...tableActions);
  grantPublishing(role, wiring);
}

/**
 * Lets a role publish to the topic and put events on the bus, with exact actions: `sns:Publish` on
 * the topic, `kms:GenerateDataKey` and `kms:Decrypt` on its key (publishing to an encrypted topic
 * needs both), `events:PutEvents` on the bus.
 */
export function grantPublishing(role: IRole, outputs: Outputs): void {
  role.addToPrincipalPolicy(
    new PolicyStatement({ sid: 'Publish', actions: ['sns:Publish'], resources: [outputs.topic.topicArn] }),
  );
  role.addToPrincipalPolicy(
    new PolicyStatement({
      sid: 'UseTopicKey',
      actions: ['kms:GenerateDataKey', 'kms:Decrypt'],
      resources: [outputs.topicKey.keyArn],
    }),
  );
  role.addToPrincipalPolicy(
    new PolicyStatement({ sid: 'PutEvents', actions: ['events:PutEvents'], resources: [outputs.eventBus.eventBusArn] }),
  );
}

/**
 * An encrypted (SSE-SQS), TLS-only queue that keeps for 14 days what `of` could not deliver. cdk-nag's
 * SQS3 asks every queue for a dead-letter queue of its own; this one is the dead-letter queue.
 */
export function deadLetterQueue(scope: Construct, id: string, of: string): Queue {
  const queue = new Queue(scope, id, {
    encryption: QueueEncryption.SQS_MANAGED,
    enforceSSL: true,
    retentionPeriod: Duration.days(14),
  });
  NagSuppressions.addResourceSuppressions(queue, [
    { id: 'AwsSolutions-SQS3', reason: `This queue is the dead-letter queue of ${of}; it needs none of its own.` },
    {
      id: 'Serverless-SQSRedrivePolicy',
      reason: `This queue is the dead-letter queue of ${of}; nothing consumes it but an operator, so it redrives nowhere.`,
    },
  ]);
  return queue;
}

/**
 * Keeps what a function fails on: Lambda retries an asynchronous invocation `retryAttempts` times,
 * then sends the event with its error to an encrypted queue (its on-failure destination, which keeps
 * more than a dead-letter queue: the error and the response too).
 */
export function onFailureQueue(
  scope: Construct,
  fn: NodejsFunction,
  props: { readonly retryAttempts: number; readonly maxEventAge: Duration; readonly of: string },
): Queue {
  const queue = deadLetterQueue(scope, 'FailureQueue', `${props.of} (its on-failure destination)`);
  fn.configureAsyncInvoke({
    retryAttempts: props.retryAttempts,
    maxEventAge: props.maxEventAge,
    onFailure: new SqsDestination(queue),
  });
  NagSuppressions.addResourceSuppressions(fn, [
    {
      id: 'Serverless-LambdaDLQ',
      reason:
        'The function has an on-failure destination (an encrypted SQS queue) for its asynchronous invocations, which keeps the event with its error; a DeadLetterConfig would keep less.',
    },
  ]);
  return queue;
}
