import { gzipSync } from 'node:zlib';
import {
  batchIdOf,
  decodeSubscriptionData,
  encodeSubscriptionData,
  type SubscriptionDocument,
} from '../../../lambdas/core/decode/subscription-payload';
import { controlMessageEvent } from '../../support/awslogs';

// The CloudWatch Logs test vector published in the Powertools for AWS Lambda (TypeScript) parser docs.
const POWERTOOLS_VECTOR =
  'H4sIAAAAAAAAAHWPwQqCQBCGX0Xm7EFtK+smZBEUgXoLCdMhFtKV3akI8d0bLYmibvPPN3wz00CJxmQnTO41whwWQRIctmEcB6sQbFC3CjW3XW8kxpOpP+OC22d1Wml1qZkQGtoMsScxaczKN3plG8zlaHIta5KqWsozoTYw3/djzwhpLwivWFGHGpAFe7DL68JlBUk+l7KSN7tCOEJ4M3/qOI49vMHj+zCKdlFqLaU2ZHV2a4Ct/an0/ivdX8oYc1UVX860fQDQiMdxRQEAAA==';

describe('decodeSubscriptionData', () => {
  it('decodes the published base64+gzip test vector', () => {
    const result = decodeSubscriptionData(POWERTOOLS_VECTOR);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.document).toMatchObject({
      messageType: 'DATA_MESSAGE',
      owner: '123456789123',
      logGroup: 'testLogGroup',
      logStream: 'testLogStream',
    });
    expect(result.document.logEvents).toEqual([
      { id: 'eventId1', timestamp: 1440442987000, message: '[ERROR] First test message' },
      { id: 'eventId2', timestamp: 1440442987001, message: '[ERROR] Second test message' },
    ]);
  });

  it('reads a CONTROL_MESSAGE as a control document with no data', () => {
    const data = controlMessageEvent().awslogs.data;
    const result = decodeSubscriptionData(data);
    expect(result.ok && result.document.messageType).toBe('CONTROL_MESSAGE');
  });

  it.each([
    ['an empty string', ''],
    ['a number', 42],
    ['text that is not base64', 'not base64!'],
    ['base64 that is not gzip', Buffer.from('plain text').toString('base64')],
    ['gzip that is not JSON', gzipSync('{"messageType":').toString('base64')],
    ['JSON that is not a document', gzipSync('[1,2,3]').toString('base64')],
    ['a document of an unknown type', gzipSync('{"messageType":"OTHER","logEvents":[]}').toString('base64')],
    ['truncated gzip', POWERTOOLS_VECTOR.slice(0, 60)],
  ])('refuses %s with a reason instead of throwing', (_name, data) => {
    const result = decodeSubscriptionData(data);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.reason).toMatch(/\w/);
  });

  it('skips and counts log events that are not {id, timestamp, message}', () => {
    const data = gzipSync(
      JSON.stringify({
        messageType: 'DATA_MESSAGE',
        logGroup: 'g',
        logStream: 's',
        logEvents: [{ id: '1', timestamp: 1, message: 'ok' }, { id: '2' }, null, 'x'],
      }),
    ).toString('base64');
    const result = decodeSubscriptionData(data);
    expect(result.ok && result.document.logEvents.map((e) => e.message)).toEqual(['ok']);
    expect(result.ok && result.document.malformedEvents).toBe(3);
  });

  it('decodes whatever the gzip trailer says of the decoded size (output chunks sized from it)', () => {
    const json = JSON.stringify({
      messageType: 'DATA_MESSAGE',
      owner: '1',
      logGroup: 'g',
      logStream: 's',
      subscriptionFilters: [],
      logEvents: [{ id: '1', timestamp: 1, message: 'x'.repeat(100_000) }],
    });
    const half = json.length >> 1;
    // Two gzip members: the trailer at the end gives the second one's size only.
    const members = Buffer.concat([gzipSync(json.slice(0, half)), gzipSync(json.slice(half))]);
    const decoded = decodeSubscriptionData(members.toString('base64'));
    expect(decoded.ok && decoded.document.logEvents[0]!.message).toBe('x'.repeat(100_000));
    // A trailer that lies: zlib checks it, the payload is refused as before.
    const lying = gzipSync(json);
    lying.writeUInt32LE(7, lying.length - 4);
    expect(decodeSubscriptionData(lying.toString('base64'))).toEqual({
      ok: false,
      reason: expect.stringMatching(/^awslogs\.data is not gzip: /),
    });
  });

  it('round-trips what encodeSubscriptionData writes', () => {
    const document = {
      messageType: 'DATA_MESSAGE' as const,
      owner: '1',
      logGroup: 'g',
      logStream: 's',
      subscriptionFilters: ['f'],
      logEvents: [{ id: 'a', timestamp: 2, message: 'm' }],
    };
    const result = decodeSubscriptionData(encodeSubscriptionData(document));
    expect(result.ok && result.document).toEqual({ ...document, malformedEvents: 0 });
  });
});

describe('batchIdOf', () => {
  const document = (ids: string[], logStream = 's'): SubscriptionDocument => ({
    messageType: 'DATA_MESSAGE',
    owner: '111122223333',
    logGroup: '/aws/containerinsights/prod/application',
    logStream,
    subscriptionFilters: ['f'],
    logEvents: ids.map((id, i) => ({ id, timestamp: i, message: 'ERROR launch failed' })),
    malformedEvents: 0,
  });

  it('is the same for the same delivery, re-delivered or decoded again (stable across releases)', () => {
    const delivery = document(['1', '2', '3']);
    const decoded = decodeSubscriptionData(encodeSubscriptionData(delivery));
    expect(decoded.ok && batchIdOf(decoded.document)).toBe(batchIdOf(delivery));
    expect(batchIdOf(delivery)).toBe('bce8c88e73b489729ebaf92707439fe3');
  });

  it.each([
    ['other event ids', document(['1', '2', '4'])],
    ['the same ids in another order', document(['2', '1', '3'])],
    ['another stream', document(['1', '2', '3'], 't')],
  ])('differs for %s', (_, other) => {
    expect(batchIdOf(other)).not.toBe(batchIdOf(document(['1', '2', '3'])));
  });

  it('keeps two accounts apart', () => {
    const delivery = document(['1']);
    expect(batchIdOf(delivery, '444455556666')).not.toBe(batchIdOf(delivery, '111122223333'));
    expect(batchIdOf(delivery, '444455556666')).not.toBe(batchIdOf(delivery));
  });
});
