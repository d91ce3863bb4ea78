import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { METRIC } from '../../contracts/names';
import { errorMessage } from '../core/common/error-message';
import type { SubscriptionDocument } from '../core/decode/subscription-payload';
import { decodeKinesisRecord, positionOf } from '../core/decode/kinesis';
import type { InvocationContext } from '../shared/invocation';
import type { AnalyzerDeps, AnalyzerResult } from './analyzer-deps';

/** What Lambda's event source mapping reads back: the records to retry (from the first of them on). */
export interface StreamResponse {
  batchItemFailures: Array<{ itemIdentifier: string }>;
}

/** The per-document analysis, handed in by the analyzer so that this module does not bundle a copy of it. */
export type AnalyzeDocument = (
  document: SubscriptionDocument,
  context: InvocationContext,
  deps: AnalyzerDeps,
) => Promise<AnalyzerResult>;

/**
 * A batch of the organisation stream (Kinesis, through Lambda's event source mapping), one record at
 * a time in shard order: each record is one CloudWatch Logs delivery from some account of the
 * organisation, analysed exactly as a direct subscription delivery is.
 *
 * What fails and what is skipped:
 * - A record that can never be read — bad base64, not gzip, not a log document — is counted
 *   (`MalformedRecords`), logged with its sequence number, and skipped: reporting it as a failure
 *   would only make the mapping retry it until its retries run out, holding back every later record
 *   of its shard, and then drop it anyway. A CONTROL_MESSAGE (the destination's health check) is
 *   skipped as the no-op it is.
 * - A record whose analysis failed on AWS (the incident table, SNS, EventBridge) is reported in
 *   `batchItemFailures`: the mapping retries from it on (and bisects the batch), while the records
 *   before it are checkpointed. A retried record whose notices already went out is a duplicate for
 *   the incident table (its batch marker is done), so a retry never notifies twice.
 *
 * Records run one after the other (not in parallel), in shard order, so that one batch's AWS calls
 * stay bounded by the per-delivery limits whatever the batch size.
 */
export async function analyzeStream(
  event: { Records: unknown[] },
  context: InvocationContext,
  deps: AnalyzerDeps,
  analyze: AnalyzeDocument,
): Promise<StreamResponse> {
  const { logger, metrics } = deps;
  const counts = { records: event.Records.length, malformed: 0, control: 0, duplicates: 0, notified: 0 };

  const recordHandler = async (record: unknown): Promise<void> => {
    const position = positionOf(record);
    logger.resetKeys();
    logger.appendKeys({ ...position });
    const decoded = decodeKinesisRecord(record);
    if (!decoded.ok) {
      counts.malformed++;
      logger.error('Unreadable stream record skipped', { reason: decoded.reason });
      return;
    }
    if (decoded.document.messageType === 'CONTROL_MESSAGE') {
      counts.control++;
      return;
    }
    const result = await analyze(decoded.document, context, deps);
    if (result.outcome === 'duplicate') counts.duplicates++;
    counts.notified += result.notified.length;
  };

  const processor = new BatchProcessor(EventType.KinesisDataStreams);
  try {
    return await processPartialResponse(
      event as Parameters<typeof processPartialResponse>[0],
      recordHandler,
      processor,
      {
        context: context as never,
        processInParallel: false,
      },
    );
  } finally {
    logger.resetKeys();
    if (counts.malformed > 0) metrics.addMetric(METRIC.malformedRecords, MetricUnit.Count, counts.malformed);
    const failed = processor.failureMessages.length;
    if (failed > 0) {
      metrics.addMetric(METRIC.failedStreamRecords, MetricUnit.Count, failed);
      logger.warn('Stream records handed back for a retry', {
        failed,
        errors: [...new Set(processor.errors.map(errorMessage))].slice(0, 3),
      });
    }
    logger.info('Stream batch analysed', { ...counts, failed });
  }
}
