import { gzipSync } from 'node:zlib';
import { accountOfOwner } from '../../../lambdas/core/decode/account';
import { decodeKinesisRecord, isKinesisEvent, positionOf } from '../../../lambdas/core/decode/kinesis';
import {
  awslogsEvent,
  controlMessageEvent,
  kinesisEvent,
  kinesisRecord,
  subnetExhaustionLine,
} from '../../support/awslogs';

const SPOKE = '444455556666';
const line = subnetExhaustionLine('subnet-0a1b2c3d4e5f60718');
const dataOf = (event: { awslogs: { data: string } }) => event.awslogs.data;

describe('decodeKinesisRecord', () => {
  it('reads the CloudWatch Logs document of a destination record, with the source account as owner', () => {
    const record = kinesisRecord(dataOf(awslogsEvent([line, line], { owner: SPOKE, logGroup: '/eks/prod' })), 7);

    const decoded = decodeKinesisRecord(record);

    expect(decoded.ok).toBe(true);
    if (!decoded.ok) return;
    expect(decoded.document).toMatchObject({ messageType: 'DATA_MESSAGE', owner: SPOKE, logGroup: '/eks/prod' });
    expect(decoded.document.logEvents.map((e) => e.message)).toEqual([line, line]);
    expect(accountOfOwner(decoded.document.owner)).toBe(SPOKE);
  });

  it('reads the destination health check as a CONTROL_MESSAGE whose owner is no account', () => {
    const decoded = decodeKinesisRecord(kinesisRecord(dataOf(controlMessageEvent()), 1));

    expect(decoded).toMatchObject({ ok: true, document: { messageType: 'CONTROL_MESSAGE' } });
    if (decoded.ok) expect(accountOfOwner(decoded.document.owner)).toBeUndefined();
  });

  it.each([
    ['bad base64', '%%% not base64 %%%', /kinesis\.data is not base64/],
    ['base64 that is not gzip', Buffer.from('plain text, no gzip').toString('base64'), /kinesis\.data is not gzip/],
    ['gzip that is not JSON', gzipSync('not json').toString('base64'), /not JSON/],
    ['JSON that is not a log document', gzipSync('{"hello":1}').toString('base64'), /unknown messageType/],
    ['an empty record', '', /not a non-empty string/],
  ])('refuses %s with the reason, without throwing', (_, data, reason) => {
    const decoded = decodeKinesisRecord(kinesisRecord(data, 1));

    expect(decoded.ok).toBe(false);
    if (!decoded.ok) expect(decoded.reason).toMatch(reason);
  });

  it('refuses a record without a kinesis field', () => {
    expect(decodeKinesisRecord({ eventSource: 'aws:kinesis' })).toEqual({
      ok: false,
      reason: 'the record has no kinesis field',
    });
    expect(decodeKinesisRecord(null)).toMatchObject({ ok: false });
  });
});

describe('isKinesisEvent', () => {
  it('tells a Kinesis batch from a subscription delivery and from other events', () => {
    expect(isKinesisEvent(kinesisEvent([dataOf(awslogsEvent([line]))]))).toBe(true);
    expect(isKinesisEvent(awslogsEvent([line]))).toBe(false);
    expect(isKinesisEvent({ Records: [] })).toBe(false);
    expect(isKinesisEvent({ Records: [{ eventSource: 'aws:sqs', body: '{}' }] })).toBe(false);
    expect(isKinesisEvent('Records')).toBe(false);
  });
});

describe('positionOf', () => {
  it('names the sequence number and event id of a record, and nothing of a broken one', () => {
    const record = kinesisRecord('x', 42);

    expect(positionOf(record)).toEqual({
      sequenceNumber: record.kinesis.sequenceNumber,
      eventId: record.eventID,
    });
    expect(positionOf({ kinesis: { sequenceNumber: 5 } })).toEqual({});
    expect(positionOf(undefined)).toEqual({});
  });
});
