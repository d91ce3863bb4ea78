import type { Logger } from '@aws-lambda-powertools/logger';
import type { CloudWatchLogsEvent, Context, KinesisStreamEvent } from 'aws-lambda';
import { MetricUnit, type Metrics } from '@aws-lambda-powertools/metrics';
import type { FindingEnricher } from '../adapters/accounts';
import { accountOfOwner, keyAccountOf } from '../core/decode/account';
import { clusterResolver, type ClusterResolver } from '../core/decode/cluster';
import { isObject } from '../core/common/json';
import { sourcesOfGroup } from '../core/parse/karpenter-source';
import { decodeSubscriptionData, type SubscriptionDocument } from '../core/decode/subscription-payload';
import { scopeOfArn } from '../core/findings/bus-entries';
import { emptyInputStats, fromDocument } from '../core/decode/local-input';
import { isKinesisEvent } from '../core/decode/kinesis';
import type { AwsClients } from '../shared/aws-clients';
import { METRIC } from '../../contracts/names';
import { PublishError, type InvocationContext } from '../shared/invocation';
import { observability, observeInvocation, recordCounts } from '../shared/observability';
import { analyzerSettings, type AnalyzerSettings } from '../shared/settings';
import { emptyAnalyzerResult, type AnalyzerDeps, type AnalyzerResult } from './analyzer-deps';

export { PublishError, type InvocationContext };
export type { AnalyzerDeps, AnalyzerResult } from './analyzer-deps';

/**
 * One CloudWatch Logs subscription delivery: decode → classify and aggregate → count in the incident store →
 * enrich what will notify → diagnose → publish to SNS and EventBridge. Bad input is counted and never throws;
 * only a failure to record or publish does, after the store lets the retry skip what is done
 * (docs/architecture.md, One delivery, step by step).
 */
export async function analyzeSubscription(
  event: unknown,
  context: InvocationContext,
  deps: AnalyzerDeps,
): Promise<AnalyzerResult> {
  const { logger, metrics } = deps;
  const decoded = decodeSubscriptionData(isObject(event) && isObject(event.awslogs) ? event.awslogs.data : undefined);
  if (!decoded.ok) {
    logger.error('Undecodable subscription payload skipped', { reason: decoded.reason });
    metrics.addMetric(METRIC.malformedRecords, MetricUnit.Count, 1);
    return { ...emptyAnalyzerResult(), outcome: 'malformed', malformed: 1 };
  }
  return analyzeDocument(decoded.document, context, deps);
}

/**
 * One decoded CloudWatch Logs document, from a direct subscription or from a record of the
 * organisation stream: the same analysis either way, in the account the document names (`owner`).
 */
export async function analyzeDocument(
  document: SubscriptionDocument,
  context: InvocationContext,
  deps: AnalyzerDeps,
): Promise<AnalyzerResult> {
  const { logger, metrics, settings } = deps;
  const result = emptyAnalyzerResult();
  if (document.messageType === 'CONTROL_MESSAGE') return { ...result, outcome: 'control' };

  const home = scopeOfArn(context.invokedFunctionArn)?.account;
  const owner = accountOfOwner(document.owner);
  // The cluster comes from the configured log groups alone, never from the filter's name.
  const cluster = resolverFor(settings, home)({ logGroup: document.logGroup, account: owner });
  if (cluster === undefined) {
    // Expected with the account policy, which delivers from every log group of the account.
    logger.info('Delivery from a log group no configured cluster lists, skipped', {
      logGroup: document.logGroup,
      owner: document.owner,
    });
    metrics.addMetric(METRIC.unmappedDeliveries, MetricUnit.Count, 1);
    return { ...result, outcome: 'unmapped' };
  }
  const account = keyAccountOf(owner, home);
  logger.appendKeys({ cluster, logGroup: document.logGroup, ...(account ? { account } : {}) });
  const stats = emptyInputStats();
  const analysis = corePhase().analyzeMessages(fromDocument(document, stats), cluster, {
    // Who may write to this log group decides which of its records are Karpenter's (issue 32).
    sources: sourcesOfGroup(settings.sources, document.logGroup),
    account,
  });
  result.cluster = cluster;
  if (account) result.account = account;
  result.records = analysis.stats.records;
  result.foreign = analysis.stats.foreignRecords;
  if (result.foreign > 0) metrics.addMetric(METRIC.foreignRecords, MetricUnit.Count, result.foreign);
  result.malformed = stats.malformed;
  result.incidents = analysis.incidents.length;
  metrics.addMetric(METRIC.recordsProcessed, MetricUnit.Count, analysis.stats.records);
  if (stats.malformed > 0) {
    metrics.addMetric(METRIC.malformedRecords, MetricUnit.Count, stats.malformed);
    logger.warn('Malformed log events skipped', { malformed: stats.malformed, logStream: document.logStream });
  }
  if (analysis.unrecognised.count > 0) {
    // Failures no rule knows: measured and logged for whoever improves the rules, never notified.
    metrics.addMetric(METRIC.unrecognisedRecords, MetricUnit.Count, analysis.unrecognised.count);
    logger.info('Unrecognised failure-shaped records', { ...analysis.unrecognised });
  }
  for (const [rule, count] of Object.entries(analysis.stats.signalsByRule)) {
    recordCounts(metrics, { rule }, { [METRIC.signals]: count });
  }
  if (analysis.incidents.length === 0) return { ...result, outcome: 'no-findings' };

  // From here on AWS is involved. Its code (and the AWS SDK) is loaded now, on the first batch that
  // has an incident, so that a cold start and a batch without one never pay for it.
  return awsPhase().recordAndNotify(document, analysis.incidents, result, context, deps);
}

let resolver: { settings: AnalyzerSettings; home?: string; resolve: ClusterResolver } | undefined;

/** The log group → cluster mapping, compiled once per execution environment (per settings and home account). */
function resolverFor(settings: AnalyzerSettings, home: string | undefined): ClusterResolver {
  if (resolver?.settings !== settings || resolver.home !== home) {
    resolver = { settings, home, resolve: clusterResolver(settings.clusters, accountOfOwner(home)) };
  }
  return resolver.resolve;
}

/** The classifier side of the analyzer (analyzer-core.ts), loaded on the first delivery with log events of a configured cluster. */
function corePhase(): typeof import('./analyzer-core') {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require('./analyzer-core') as typeof import('./analyzer-core');
}

/** The AWS side of the analyzer, loaded on first use. */
function awsPhase(): typeof import('./analyzer-aws') {
  // A require, not an import: the bundle initialises this module (and the SDK) only when it runs.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require('./analyzer-aws') as typeof import('./analyzer-aws');
}

let warm: { logger: Logger; metrics: Metrics } | undefined;
let clients: AwsClients | undefined;
let enricher: FindingEnricher | undefined;

/** The organisation stream's half of the analyzer (and Powertools batch), loaded on the first Kinesis batch. */
function streamPhase(): typeof import('./stream-analyzer') {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require('./stream-analyzer') as typeof import('./stream-analyzer');
}

/**
 * The Lambda entry point, for both ways logs arrive: a CloudWatch Logs subscription delivery
 * (`{awslogs}`, asynchronous) and a batch of the organisation stream (`{Records}` of Kinesis, from the
 * event source mapping, answered with a partial batch response). Clients and the enrichment cache
 * live as long as the execution environment. The event is validated as `unknown` all the same: a
 * subscription can deliver anything, and one bad payload is counted, never thrown.
 */
export async function handler(
  event: CloudWatchLogsEvent | KinesisStreamEvent,
  context: Context,
): Promise<AnalyzerResult | import('./stream-analyzer').StreamResponse> {
  warm ??= observability('analyzer');
  const { logger, metrics } = warm;
  return observeInvocation(warm, context, async () => {
    const deps: AnalyzerDeps = {
      logger,
      metrics,
      now: Date.now,
      settings: analyzerSettings(),
      // Created (and the SDK loaded) on first use: a batch without an incident never asks for them.
      get clients(): AwsClients {
        return (clients ??= awsPhase().createClients());
      },
      // One per execution environment: its cache is what makes repeated Describe calls cheap.
      get enricher(): FindingEnricher {
        return (enricher ??= awsPhase().createEnricher(this));
      },
    };
    if (isKinesisEvent(event)) return streamPhase().analyzeStream(event, context, deps, analyzeDocument);
    return analyzeSubscription(event, context, deps);
  });
}
