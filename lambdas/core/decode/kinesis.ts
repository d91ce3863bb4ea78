import { isObject } from '../common/json';
import { decodeSubscriptionData, type DecodeResult } from './subscription-payload';

/**
 * The organisation path: a CloudWatch Logs destination puts each subscription delivery
 * into a Kinesis data stream as one record, and Lambda's event source mapping hands the analyzer a
 * batch of them, `{Records: [{kinesis: {data, sequenceNumber, …}, eventSourceARN, …}]}`. The record's
 * `data` is base64 of the very bytes CloudWatch Logs put — the gzip JSON document a direct
 * subscription delivers as `awslogs.data` — so it decodes the same way, `owner` naming the account.
 */

/** A Lambda event from a Kinesis event source mapping. */
export function isKinesisEvent(event: unknown): event is { Records: unknown[] } {
  if (!isObject(event) || !Array.isArray(event.Records) || event.Records.length === 0) return false;
  const first = event.Records[0];
  return isObject(first) && first.eventSource === 'aws:kinesis' && isObject(first.kinesis);
}

/** Where a record sits in its stream, for logs and the partial batch response. */
export interface RecordPosition {
  /** The record's sequence number, what `batchItemFailures[].itemIdentifier` names. */
  sequenceNumber?: string;
  /** `shardId-…:<sequence number>`. */
  eventId?: string;
}

/** The position of a Kinesis record, from whatever of it is there. */
export function positionOf(record: unknown): RecordPosition {
  if (!isObject(record)) return {};
  const kinesis = isObject(record.kinesis) ? record.kinesis : {};
  return {
    ...(typeof kinesis.sequenceNumber === 'string' ? { sequenceNumber: kinesis.sequenceNumber } : {}),
    ...(typeof record.eventID === 'string' ? { eventId: record.eventID } : {}),
  };
}

/**
 * Decodes one Kinesis record into the CloudWatch Logs document it carries. Never throws: a record
 * that is not one (bad base64, not gzip, not JSON, not a subscription document) comes back as
 * `{ok: false, reason}`.
 */
export function decodeKinesisRecord(record: unknown): DecodeResult {
  if (!isObject(record) || !isObject(record.kinesis)) return { ok: false, reason: 'the record has no kinesis field' };
  const decoded = decodeSubscriptionData(record.kinesis.data);
  if (!decoded.ok) return { ok: false, reason: decoded.reason.replace(/^awslogs\.data/, 'kinesis.data') };
  // On the shared stream the owner is the only word for whose logs these are: without one, refuse.
  if (decoded.document.messageType !== 'CONTROL_MESSAGE' && !ACCOUNT_ID.test(decoded.document.owner)) {
    return { ok: false, reason: 'the document has no owner that is an AWS account id' };
  }
  return decoded;
}

const ACCOUNT_ID = /^\d{12}$/;
