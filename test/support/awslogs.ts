import { encodeSubscriptionData } from '../../lambdas/core/decode/subscription-payload';

export interface AwslogsOptions {
  logGroup?: string;
  logStream?: string;
  /** Subscription filter names; the stack names its filters `karpenter-doctor`. */
  filters?: string[];
  owner?: string;
  /** First event id; ids count up from it so two batches never share one. */
  firstId?: number;
  /** Epoch ms of the first event; one second apart. */
  startMs?: number;
}

/**
 * A Lambda event exactly as a CloudWatch Logs subscription delivers it: `{awslogs: {data}}`, where
 * data is base64 of gzip of the JSON document.
 */
export function awslogsEvent(lines: string[], options: AwslogsOptions = {}): { awslogs: { data: string } } {
  const firstId = options.firstId ?? 1;
  const startMs = options.startMs ?? Date.parse('2026-11-28T02:20:00Z');
  return {
    awslogs: {
      data: encodeSubscriptionData({
        messageType: 'DATA_MESSAGE',
        owner: options.owner ?? '111122223333',
        logGroup: options.logGroup ?? '/eks/prod/karpenter',
        logStream: options.logStream ?? 'karpenter-6d8f9b7c4d-x2x9k_karpenter_controller',
        subscriptionFilters: options.filters ?? ['karpenter-doctor'],
        logEvents: lines.map((message, index) => ({
          id: `3${String(firstId + index).padStart(55, '0')}`,
          timestamp: startMs + index * 1000,
          message,
        })),
      }),
    },
  };
}

export function controlMessageEvent(): { awslogs: { data: string } } {
  return {
    awslogs: {
      data: encodeSubscriptionData({
        messageType: 'CONTROL_MESSAGE',
        owner: 'CloudwatchLogs',
        logGroup: '',
        logStream: '',
        subscriptionFilters: [],
        logEvents: [
          {
            id: '',
            timestamp: 1_764_000_000_000,
            message: 'CWL CONTROL MESSAGE: Checking health of destination Firehose.',
          },
        ],
      }),
    },
  };
}

/** A Karpenter v1 JSON line, as logged when a subnet has no free address left for a NodeClaim. */
export const subnetExhaustionLine = (subnet: string, claim = 'default-79vdd', time = '2026-11-28T02:20:49.824Z') =>
  JSON.stringify({
    level: 'ERROR',
    time,
    logger: 'controller',
    message: 'failed launching nodeclaim',
    commit: '0871602',
    controller: 'nodeclaim.lifecycle',
    NodeClaim: { name: claim },
    error: `creating instance, insufficient capacity, with fleet error(s), InsufficientFreeAddressesInSubnet: There are not enough free addresses in subnet '${subnet}' to satisfy the requested number of instances.`,
  });

/** A Lambda Kinesis record, as an event source mapping delivers one: `data` is base64 of what was put. */
export interface KinesisRecord {
  kinesis: {
    kinesisSchemaVersion: '1.0';
    partitionKey: string;
    sequenceNumber: string;
    data: string;
    approximateArrivalTimestamp: number;
  };
  eventSource: 'aws:kinesis';
  eventVersion: '1.0';
  eventID: string;
  eventName: 'aws:kinesis:record';
  invokeIdentityArn: string;
  awsRegion: string;
  eventSourceARN: string;
}

export const STREAM_ARN = 'arn:aws:kinesis:eu-west-1:111122223333:stream/karpenter-doctor-logs';

/**
 * A record of the organisation stream holding `data` — for a CloudWatch Logs destination, the same
 * base64 gzip document a direct subscription delivers as `awslogs.data`. Sequence numbers count up
 * from `sequence`.
 */
export function kinesisRecord(data: string, sequence: number): KinesisRecord {
  const sequenceNumber = `4959${String(sequence).padStart(52, '0')}`;
  return {
    kinesis: {
      kinesisSchemaVersion: '1.0',
      partitionKey: `partition-${sequence}`,
      sequenceNumber,
      data,
      approximateArrivalTimestamp: 1_764_296_400 + sequence,
    },
    eventSource: 'aws:kinesis',
    eventVersion: '1.0',
    eventID: `shardId-000000000000:${sequenceNumber}`,
    eventName: 'aws:kinesis:record',
    invokeIdentityArn: 'arn:aws:iam::111122223333:role/karpenter-doctor-analyzer',
    awsRegion: 'eu-west-1',
    eventSourceARN: STREAM_ARN,
  };
}

/** A Kinesis batch event of the given record data, in order. */
export function kinesisEvent(data: string[], firstSequence = 1): { Records: KinesisRecord[] } {
  return { Records: data.map((d, index) => kinesisRecord(d, firstSequence + index)) };
}
