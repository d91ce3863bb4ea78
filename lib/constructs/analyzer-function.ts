import { Duration } from 'aws-cdk-lib';
import type { IRole } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { ILogGroup } from 'aws-cdk-lib/aws-logs';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { FunctionSettings } from '../../contracts/settings';
import { enrichmentAccess } from './aws-access';
import {
  bundledFunction,
  grantWiring,
  onFailureQueue,
  suppressOnRole,
  wiringEnvironment,
  type FunctionWiring,
} from './lambda-function';
import { reservedConcurrencySchema } from '../../contracts/config';
import { DEFAULT_RESERVED_CONCURRENCY } from '../../contracts/defaults';
import { requireSettings, requireValid } from './validate';

export interface AnalyzerFunctionProps extends FunctionWiring {
  /** Clusters, windows, limits and sources, as the function reads them. */
  readonly settings: FunctionSettings;
  /**
   * Concurrent executions reserved for (and capped at) the analyzer, 0 to 100; 0 stops it.
   * @default DEFAULT_RESERVED_CONCURRENCY (5)
   */
  readonly reservedConcurrency?: number;
  /**
   * Retries of a failed asynchronous invocation before it goes to the failure queue.
   * @default 2
   */
  readonly retryAttempts?: number;
  /**
   * How long a subscription delivery may wait for a successful run.
   * @default Duration.hours(6)
   */
  readonly maxEventAge?: Duration;
}

/**
 * The analyzer's classifier half (the pipeline, rules and vocabularies) loads on the first delivery
 * with log events of a configured cluster, its AWS half (and the SDK) on the first batch with an
 * incident, its stream half (and Powertools batch) on the first Kinesis batch: never on a cold start.
 */
export const ANALYZER_LAZY_MODULES = ['analyzer-core', 'analyzer-aws', 'stream-analyzer'];

/**
 * What a batch without a finding runs, index.js and the classifier half, loads node:crypto only when
 * it is called (a finding's id, Powertools' debug sampling): see `DEFERRED_CRYPTO`.
 */
export const ANALYZER_CRYPTO_ON_FIRST_USE = ['index', 'analyzer-core'];

/**
 * The analyzer Lambda: Node.js 24 on arm64, bundled by the local esbuild (no Docker) with the AWS
 * SDK inside, so what runs is what the tests ran. Its own log group with retention, reserved
 * concurrency, explicit asynchronous retry settings and an encrypted SQS on-failure destination that
 * keeps the error of every dropped delivery. Its role can describe what the enrichment reads, write
 * its own table, publish to its own topic and bus, and nothing else.
 */
export class AnalyzerFunction extends Construct {
  public readonly function: IFunction;
  public readonly role: IRole;
  public readonly logGroup: ILogGroup;
  public readonly failureQueue: IQueue;

  constructor(scope: Construct, id: string, props: AnalyzerFunctionProps) {
    super(scope, id);
    validateAnalyzerProps(props);

    const lambda = bundledFunction(this, {
      handlerFile: 'analyzer.ts',
      lazyModules: ANALYZER_LAZY_MODULES,
      cryptoOnFirstUse: ANALYZER_CRYPTO_ON_FIRST_USE,
      description: 'karpenter-doctor analyzer: Karpenter logs and Kubernetes events in, findings out',
      environment: wiringEnvironment(props, 'analyzer'),
      settings: props.settings,
      timeout: Duration.seconds(60),
      reservedConcurrency: props.reservedConcurrency ?? DEFAULT_RESERVED_CONCURRENCY,
      logRetention: props.logRetention,
    });
    this.function = lambda.function;
    this.role = lambda.role;
    this.logGroup = lambda.logGroup;

    this.failureQueue = onFailureQueue(this, lambda.function, {
      retryAttempts: props.retryAttempts ?? 2,
      maxEventAge: props.maxEventAge ?? Duration.hours(6),
      of: "the analyzer's asynchronous invocations, with the error of every delivery that failed all retries",
    });

    grantWiring(this.role, props, [
      'dynamodb:GetItem',
      'dynamodb:BatchGetItem',
      'dynamodb:PutItem',
      'dynamodb:UpdateItem',
    ]);
    // What the enrichment reads: the same statements the spoke stack grants its enrichment role.
    const access = enrichmentAccess(this, props.settings.clusters);
    for (const statement of access.statements) this.role.addToPrincipalPolicy(statement);
    suppressOnRole(this.role, access.suppressions);
  }
}

/** Fails the synth on props the analyzer cannot run with, naming the prop and what is allowed. */
function validateAnalyzerProps(props: AnalyzerFunctionProps): void {
  const name = 'AnalyzerFunction';
  requireSettings(name, props.settings);
  if (props.reservedConcurrency !== undefined) {
    requireValid(name, 'reservedConcurrency', reservedConcurrencySchema, props.reservedConcurrency);
  }
}
