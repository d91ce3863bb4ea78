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
 * A batch of the organisation stream, one delivery a record in shard order: unreadable records are
 * counted and skipped, AWS failures reported for retry
 * (docs/architecture.md, Batches of the organisation stream).
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
