import fc from 'fast-check';
import { gzipSync } from 'node:zlib';
import { analyzeMessages } from '../../lambdas/core/analyze';
import { classify } from '../../lambdas/core/recognise/classify';
import { decodeSubscriptionData } from '../../lambdas/core/decode/subscription-payload';
import { emptyInputStats, readInput } from '../../lambdas/core/decode/local-input';
import { parseMessage } from '../../lambdas/core/parse/parse-message';
import { fixture } from '../helpers';

const realLines = fixture('karpenter-samples.jsonl')
  .split('\n')
  .filter(Boolean)
  .map((line) => (JSON.parse(line) as { raw: string }).raw);

/** Strings built from pieces of real lines, so the generators reach deep into the parsers. */
const lineLike = fc.oneof(
  fc.string({ maxLength: 400 }),
  fc.string({ unit: 'binary', maxLength: 200 }),
  fc.constantFrom(...realLines),
  fc
    .tuple(fc.constantFrom(...realLines), fc.nat(), fc.nat())
    .map(([line, a, b]) => line.slice(Math.min(a, b) % line.length, Math.max(a, b) % (line.length + 1))),
  fc
    .tuple(fc.constantFrom(...realLines), fc.string({ maxLength: 20 }), fc.nat())
    .map(([line, insert, at]) => line.slice(0, at % line.length) + insert + line.slice(at % line.length)),
  fc.json({ maxDepth: 6 }),
  fc.jsonValue({ maxDepth: 4 }).map((value) =>
    JSON.stringify({
      log: value,
      kubernetes: value,
      involvedObject: value,
      reason: value,
      message: value,
      error: value,
      errorCauses: value,
      level: value,
      time: value,
    }),
  ),
);

describe('no input makes the core throw', () => {
  it('parse and classify accept any line', () => {
    fc.assert(
      fc.property(lineLike, (line) => {
        const record = parseMessage(line, { line: 1 });
        if (record) classify(record);
      }),
      { numRuns: 3000 },
    );
  });

  it('decode accepts any string and any bytes', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.uint8Array({ maxLength: 300 }).map((b) => Buffer.from(b).toString('base64')),
          fc.uint8Array({ maxLength: 300 }).map((b) => gzipSync(b).toString('base64')),
        ),
        (data) => {
          decodeSubscriptionData(data);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('decode accepts any JSON value inside a valid gzip envelope', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 5 }), (value) => {
        decodeSubscriptionData(gzipSync(JSON.stringify(value)).toString('base64'));
        decodeSubscriptionData(
          gzipSync(JSON.stringify({ messageType: 'DATA_MESSAGE', logEvents: value })).toString('base64'),
        );
      }),
      { numRuns: 1000 },
    );
  });

  it('survives __proto__ keys and wrong types in every field', () => {
    const hostile =
      '{"__proto__":{"polluted":true},"level":{"x":1},"message":["a"],"error":7,"errorCauses":"no","NodeClaim":{"name":{"__proto__":1}},"Pod":5,"time":{}}';
    const record = parseMessage(hostile, {})!;
    classify(record);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('a malformed record inside a batch', () => {
  it('is counted and skipped while the rest is analysed', () => {
    const good = gzipSync(
      JSON.stringify({
        messageType: 'DATA_MESSAGE',
        logGroup: 'g',
        logStream: 's',
        logEvents: [{ id: '1', timestamp: 1, message: 'no subnets found' }],
      }),
    ).toString('base64');
    const content = [
      JSON.stringify({ awslogs: { data: good } }),
      JSON.stringify({ awslogs: { data: 'H4sIAAAA-truncated' } }),
      '0/3 nodes are available: 3 Insufficient cpu.',
    ].join('\n');
    const stats = emptyInputStats();
    const messages = readInput(content, 'batch.jsonl', stats);
    const { incidents } = analyzeMessages(messages, 'prod');
    expect(stats.malformed).toBe(1);
    expect(stats.problems[0]).toMatch(/base64|gzip/);
    expect(incidents.map((i) => i.rule).sort()).toEqual([
      'scheduling-insufficient-resources',
      'subnet-or-security-group-not-found',
    ]);
  });
});
