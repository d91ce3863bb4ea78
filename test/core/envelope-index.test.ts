import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { analyzeMessages, StreamingAnalyzer } from '../../lambdas/core/analyze';
import { assembleRecords } from '../../lambdas/core/assemble';
import { worthParsingOrPlacement } from '../../lambdas/core/classify';
import { EventKind, indexEnvelope, parsedInPieces, readEnvelope } from '../../lambdas/core/envelope-index';
import { emptyInputStats, fromDocument } from '../../lambdas/core/input';
import {
  batchIdOf,
  decodeSubscriptionData,
  envelopeIndexOf,
  toSubscriptionDocument,
  type DecodeResult,
} from '../../lambdas/core/subscription-payload';
import { loadSamples, ROOT } from '../helpers';

/**
 * A delivery laid out as CloudWatch Logs writes it is read from its bytes (envelope-index.ts), any
 * other one is parsed whole. Both must give the same document and the same analysis: these compare
 * the decoder with `JSON.parse` of the whole document on generated envelopes of the project's real
 * lines, healthy and failing, in every record format, with what a JSON string can hold.
 */

const read = (path: string) => readFileSync(join(ROOT, path), 'utf8').split('\n').filter(Boolean);
const corpus = [
  ...read('examples/karpenter-controller.log'),
  ...read('examples/kubernetes-events.jsonl'),
  ...loadSamples().samples.map((sample) => sample.raw),
];

const fluentBit = (line: string) =>
  JSON.stringify({
    log: `2026-11-28T02:20:49.824913Z stdout F ${line}`,
    stream: 'stdout',
    kubernetes: { pod_name: 'karpenter-6d8f7b9c54-8zr7n', namespace_name: 'karpenter', container_name: 'controller' },
  });

function consoleForm(line: string): string {
  try {
    const { time, level, logger, message, ...rest } = JSON.parse(line) as Record<string, unknown>;
    return `${String(time)}\t${String(level)}\t${String(logger)}\t${String(message)}\t${JSON.stringify(rest)}`;
  } catch {
    return line;
  }
}

/** Lines the assembler and the prefilter treat apart: blank, continuations, describe output, klog, Warning. */
const SPECIAL_LINES = [
  '',
  ' ',
  '\t',
  '  \n',
  '\tstatus code: 403, request id: 8a1f',
  'caused by: operation error EC2: CreateFleet',
  'goroutine 1 [running]:',
  '\tgithub.com/aws/karpenter/pkg/controllers/provisioning.go:42',
  'Name:         web-7d9f8c6b5-x2x9q',
  'Namespace:    default',
  'Kind:         Pod',
  'StorageClass: gp3',
  'Claim:        default/data-0',
  'Provisioner:  ebs.csi.aws.com',
  'Events:',
  '  Type     Reason            Age   From               Message',
  '  Warning  FailedScheduling  2m    default-scheduler  0/3 nodes are available: 3 Insufficient cpu.',
  'E1105 10:00:00.000000       1 controller.go:42] failed to sync',
  'Warning FailedScheduling pod/web-1 0/3 nodes are available',
  'some healthy line',
  'containers started',
];

/** Text that JSON escapes, that is not ASCII, or that looks like the envelope's own structure. */
const PIECES = [
  '"',
  '\\',
  '\\"',
  '<',
  '>',
  '&',
  "'",
  '/',
  'é',
  '日本',
  '😀',
  '\t',
  '\n',
  '\r',
  '\u0001',
  '\u001b[31m',
  '\u2028',
  '{"id":"1","timestamp":1,"message":"x"}',
  '"},{"id":"',
  '","timestamp":',
  ',"message":"',
  ',"logEvents":[',
  '\\u0027',
  "didn't register on the node",
  'out of memory',
  'Nominated',
  ' ',
];

const withPieces = fc
  .tuple(fc.constantFrom(...corpus), fc.array(fc.tuple(fc.nat(), fc.constantFrom(...PIECES)), { maxLength: 4 }))
  .map(([line, pieces]) => {
    let text = line;
    for (const [at, piece] of pieces) {
      const i = at % (text.length + 1);
      text = text.slice(0, i) + piece + text.slice(i);
    }
    return text;
  });

const message = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...corpus) },
  { weight: 2, arbitrary: fc.constantFrom(...corpus).map(fluentBit) },
  { weight: 2, arbitrary: fc.constantFrom(...corpus).map(consoleForm) },
  { weight: 3, arbitrary: withPieces },
  { weight: 2, arbitrary: fc.constantFrom(...SPECIAL_LINES) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
);

/**
 * How a string is written into the envelope: as `JSON.stringify` writes it (what CloudWatch Logs
 * does), or with other escapes JSON allows (`\u` for any character, `\/`).
 */
type Escapes = 'canonical' | 'unicode' | 'slash';
function writeString(text: string, escapes: Escapes): string {
  const canonical = JSON.stringify(text);
  if (escapes === 'canonical') return canonical;
  if (escapes === 'slash') return canonical.replace(/\//g, '\\/');
  return canonical.replace(/[<>&'é]|[^\x00-\x7f]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** An event as CloudWatch Logs writes it, or in a layout it does not write (each is still valid JSON). */
const eventShape = fc.oneof(
  { weight: 100, arbitrary: fc.constant('cloudwatch') },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      'key-order',
      'extra-key',
      'extra-number',
      'number-message',
      'no-message',
      'number-id',
      'string-timestamp',
      'float-timestamp',
      'negative-timestamp',
      'exponent-timestamp',
      'leading-zero-id',
      'spaces',
      'null',
      'id-with-escapes',
    ),
  },
);

function writeEvent(shape: string, id: string, timestamp: number, text: string, escapes: Escapes): string {
  const m = writeString(text, escapes);
  const i = JSON.stringify(id);
  switch (shape) {
    case 'key-order':
      return `{"id":${i},"message":${m},"timestamp":${timestamp}}`;
    case 'extra-key':
      return `{"id":${i},"timestamp":${timestamp},"message":${m},"extra":"x"}`;
    case 'extra-number':
      return `{"id":${i},"timestamp":${timestamp},"message":${m},"n":5}`;
    case 'number-message':
      return `{"id":${i},"timestamp":${timestamp},"message":42}`;
    case 'no-message':
      return `{"id":${i},"timestamp":${timestamp}}`;
    case 'number-id':
      return `{"id":7,"timestamp":${timestamp},"message":${m}}`;
    case 'string-timestamp':
      return `{"id":${i},"timestamp":"${timestamp}","message":${m}}`;
    case 'float-timestamp':
      return `{"id":${i},"timestamp":${timestamp}.5,"message":${m}}`;
    case 'negative-timestamp':
      return `{"id":${i},"timestamp":-${timestamp},"message":${m}}`;
    case 'exponent-timestamp':
      return `{"id":${i},"timestamp":1e3,"message":${m}}`;
    case 'leading-zero-id':
      return `{"id":"0${id}","timestamp":${timestamp},"message":${m}}`;
    case 'spaces':
      return `{ "id": ${i}, "timestamp": ${timestamp}, "message": ${m} }`;
    case 'null':
      return 'null';
    case 'id-with-escapes':
      return `{"id":${JSON.stringify(`${id}"\\é\u0001`)},"timestamp":${timestamp},"message":${m}}`;
    default:
      return `{"id":${i},"timestamp":${timestamp},"message":${m}}`;
  }
}

const HEADER = {
  owner: '111122223333',
  logGroup: '/aws/containerinsights/prod/application',
  logStream: 'karpenter-6d8f7b9c54-8zr7n',
  subscriptionFilters: ['karpenter-doctor.prod'],
};

/** A whole document: header and events, in CloudWatch's layout or another. */
const documentArbitrary = fc
  .record({
    events: fc.array(
      fc.record({
        text: message,
        shape: eventShape,
        id: fc.bigInt({ min: 0n, max: 10n ** 56n }).map(String),
        // Epoch milliseconds (13 digits), small ones, and the last valid date (16 digits: read whole).
        timestamp: fc.oneof(
          { weight: 30, arbitrary: fc.integer({ min: 1_700_000_000_000, max: 1_900_000_000_000 }) },
          { weight: 5, arbitrary: fc.nat() },
          { weight: 1, arbitrary: fc.constant(8_640_000_000_000_000) },
        ),
      }),
      { maxLength: 40 },
    ),
    escapes: fc.oneof(
      { weight: 8, arbitrary: fc.constant<Escapes>('canonical') },
      { weight: 1, arbitrary: fc.constantFrom<Escapes>('unicode', 'slash') },
    ),
    layout: fc.oneof(
      { weight: 12, arbitrary: fc.constant('cloudwatch') },
      {
        weight: 1,
        arbitrary: fc.constantFrom(
          'control',
          'events-first',
          'policy-after',
          'policy-before',
          'trailing-newline',
          'logGroup-escapes',
        ),
      },
    ),
  })
  .map(({ events, escapes, layout }) => {
    const written = events.map((e) => writeEvent(e.shape, e.id, e.timestamp, e.text, escapes)).join(',');
    const messageType = layout === 'control' ? 'CONTROL_MESSAGE' : 'DATA_MESSAGE';
    const logGroup = layout === 'logGroup-escapes' ? '/aws/"quoted"\\é/日本' : HEADER.logGroup;
    const header =
      `"messageType":"${messageType}","owner":"${HEADER.owner}","logGroup":${JSON.stringify(logGroup)},` +
      `"logStream":"${HEADER.logStream}","subscriptionFilters":${JSON.stringify(HEADER.subscriptionFilters)}`;
    switch (layout) {
      case 'events-first':
        return `{"logEvents":[${written}],${header}}`;
      case 'policy-after':
        return `{${header},"logEvents":[${written}],"policyLevel":"ACCOUNT_LEVEL_POLICY"}`;
      case 'policy-before':
        return `{${header},"policyLevel":"ACCOUNT_LEVEL_POLICY","logEvents":[${written}]}`;
      case 'trailing-newline':
        return `{${header},"logEvents":[${written}]}\n`;
      default:
        return `{${header},"logEvents":[${written}]}`;
    }
  });

const encode = (json: string) => gzipSync(Buffer.from(json, 'utf8')).toString('base64');

/** What the decoder gave before: `JSON.parse` of the whole document. */
function parsedWhole(json: string): DecodeResult {
  try {
    return toSubscriptionDocument(JSON.parse(json));
  } catch {
    return { ok: false, reason: 'not JSON' };
  }
}

function analysed(decoded: DecodeResult) {
  if (!decoded.ok) return undefined;
  const stats = emptyInputStats();
  const analysis = analyzeMessages(fromDocument(decoded.document, stats), 'prod');
  return { analysis, stats };
}

/** The document as plain data, its lazy events read. */
function plain(decoded: DecodeResult) {
  if (!decoded.ok) return undefined;
  const { messageType, owner, logGroup, logStream, subscriptionFilters, logEvents, malformedEvents } = decoded.document;
  return {
    messageType,
    owner,
    logGroup,
    logStream,
    subscriptionFilters,
    logEvents: logEvents.map(({ id, timestamp, message }) => ({ id, timestamp, message })),
    malformedEvents,
    batchId: batchIdOf(decoded.document, '444455556666'),
  };
}

describe('a delivery read from its bytes', () => {
  it('gives the document and the analysis of the whole document parsed, on any envelope', () => {
    let indexed = 0;
    let settled = 0;
    let runs = 0;
    fc.assert(
      fc.property(documentArbitrary, (json) => {
        runs++;
        const fast = decodeSubscriptionData(encode(json));
        const whole = parsedWhole(json);
        expect(fast.ok).toBe(whole.ok);
        const index = fast.ok ? envelopeIndexOf(fast.document) : undefined;
        if (index) {
          indexed++;
          for (let i = 0; i < index.count; i++) if (index.kinds[i] === EventKind.Settled) settled++;
        }
        // The analysis first (the index's events), then the document (its lazy events).
        expect(analysed(fast)).toEqual(analysed(whole));
        expect(plain(fast)).toEqual(plain(whole));
      }),
      { numRuns: 600 },
    );
    // Most envelopes are laid out as CloudWatch writes them: the fast path is what was compared.
    expect(indexed).toBeGreaterThan(runs / 3);
    expect(settled).toBeGreaterThan(runs);
  });

  it('gives the same records and analysis to a pipeline with another prefilter, or none', () => {
    fc.assert(
      fc.property(documentArbitrary, (json) => {
        const fast = decodeSubscriptionData(encode(json));
        const whole = parsedWhole(json);
        if (!fast.ok || !whole.ok) return;
        // Every record parsed (no prefilter): settled messages give their text when asked.
        const records = (decoded: typeof fast) => [
          ...assembleRecords(fromDocument(decoded.document, emptyInputStats())),
        ];
        expect(records(fast)).toEqual(records(whole));
        // A prefilter that keeps what worthParsingOrPlacement does not: settled messages are tested too.
        const kept = (decoded: typeof fast) => {
          const prefilter = { keep: (text: string) => text.length % 2 === 0, skipped: 0 };
          const built = [...assembleRecords(fromDocument(decoded.document, emptyInputStats()), prefilter)];
          return { records: built, skipped: prefilter.skipped };
        };
        expect(kept(fast)).toEqual(kept(whole));
        // Launch rounds followed (the CLI with Kubernetes events): a prefilter of its own.
        const launches = (decoded: typeof fast) => {
          const analyzer = new StreamingAnalyzer({ cluster: 'prod', resolution: { launches: true } });
          analyzer.analyzeAll(fromDocument(decoded.document, emptyInputStats()));
          return analyzer.finish();
        };
        expect(launches(fast)).toEqual(launches(whole));
      }),
      { numRuns: 150 },
    );
  });

  it('reads large deliveries (sampled first) the same way, healthy or mostly failing', () => {
    const failing = corpus.filter((line) => worthParsingOrPlacement(line));
    const healthy = corpus.filter((line) => !worthParsingOrPlacement(line));
    expect(failing.length).toBeGreaterThan(10);
    expect(healthy.length).toBeGreaterThan(10);
    for (const [share, expectIndexed] of [
      [0.03, true],
      [0.9, false],
    ] as const) {
      const lines = Array.from({ length: 1500 }, (_, i) =>
        (i * 37) % 100 < share * 100 ? failing[i % failing.length]! : healthy[i % healthy.length]!,
      );
      const json = JSON.stringify({
        messageType: 'DATA_MESSAGE',
        ...HEADER,
        logEvents: lines.map((line, i) => ({
          id: `3${String(i).padStart(55, '0')}`,
          timestamp: 1_795_000_000_000 + i,
          message: line,
        })),
      });
      const fast = decodeSubscriptionData(encode(json));
      expect(fast.ok && envelopeIndexOf(fast.document) !== undefined).toBe(expectIndexed);
      expect(analysed(fast)).toEqual(analysed(parsedWhole(json)));
      expect(plain(fast)).toEqual(plain(parsedWhole(json)));
    }
  });

  it('parses whole a delivery whose first event, longer than the probe, is already flagged in it', () => {
    const long = 'x'.repeat(256 * 1024);
    for (const [message, expectIndexed] of [
      [`{"level":"ERROR","message":"failed launching nodeclaim","error":"${long}"}`, false],
      [`{"level":"INFO","message":"${long}"}`, true],
      [`{"level":"INFO","message":"${long} failed launching nodeclaim"}`, true],
    ] as const) {
      const json = JSON.stringify({
        messageType: 'DATA_MESSAGE',
        ...HEADER,
        logEvents: [
          { id: '1', timestamp: 1_795_000_000_000, message },
          { id: '2', timestamp: 1_795_000_000_001, message: corpus.find((line) => !worthParsingOrPlacement(line))! },
        ],
      });
      const fast = decodeSubscriptionData(encode(json));
      expect(fast.ok && envelopeIndexOf(fast.document) !== undefined).toBe(expectIndexed);
      expect(analysed(fast)).toEqual(analysed(parsedWhole(json)));
      expect(plain(fast)).toEqual(plain(parsedWhole(json)));
    }
  });

  it('never settles a message the prefilter keeps or that a test on its first character needs', () => {
    fc.assert(
      fc.property(fc.array(message, { minLength: 1, maxLength: 30 }), (texts) => {
        const json = JSON.stringify({
          messageType: 'DATA_MESSAGE',
          ...HEADER,
          logEvents: texts.map((text, i) => ({ id: String(i), timestamp: i, message: text })),
        });
        const index = indexEnvelope(Buffer.from(json, 'utf8'));
        expect(index).toBeDefined();
        texts.forEach((text, i) => {
          if (index!.kinds[i] !== EventKind.Settled) return;
          expect(worthParsingOrPlacement(text)).toBe(false);
          // The assembler's and the prefilter's tests look at the first UTF-16 unit: ≤ 0x20 is blank or
          // a continuation, these letters open continuations, describe headers, klog errors, Warnings.
          expect(/^[\x00-\x20cgsNKPSCEW]/.test(text) || text === '').toBe(false);
        });
      }),
      { numRuns: 300 },
    );
  });

  it('settles the healthy bulk: most healthy lines are counted without a string built for them', () => {
    const healthy = corpus.filter((line) => !worthParsingOrPlacement(line));
    const json = JSON.stringify({
      messageType: 'DATA_MESSAGE',
      ...HEADER,
      logEvents: healthy.map((text, i) => ({ id: String(i), timestamp: i, message: text })),
    });
    const index = indexEnvelope(Buffer.from(json, 'utf8'))!;
    let settled = 0;
    for (let i = 0; i < index.count; i++) if (index.kinds[i] === EventKind.Settled) settled++;
    expect(settled).toBeGreaterThan(index.count * 0.8);
  });

  it('falls back to the whole document for a layout it does not read', () => {
    const event = '{"id":"1","timestamp":1,"message":"healthy"}';
    const header = '"messageType":"DATA_MESSAGE","owner":"1","logGroup":"g","logStream":"s","subscriptionFilters":[]';
    for (const json of [
      `{${header},"logEvents":[${event}],"policyLevel":"ACCOUNT_LEVEL_POLICY"}`,
      `{${header},"logEvents":[{"id":"1","message":"healthy","timestamp":1}]}`,
      `{${header},"logEvents":[{"id":"1","timestamp":1,"message":"a","extra":5},${event}]}`,
      `{"messageType":"CONTROL_MESSAGE","owner":"CloudwatchLogs","logGroup":"","logStream":"","subscriptionFilters":[],"logEvents":[${event}]}`,
      `{${header},"logEvents":[${event}]} `,
    ]) {
      const fast = decodeSubscriptionData(encode(json));
      expect(fast.ok && envelopeIndexOf(fast.document)).toBeFalsy();
      expect(plain(fast)).toEqual(plain(parsedWhole(json)));
    }
    // And reads the layout CloudWatch writes, empty or not.
    for (const json of [`{${header},"logEvents":[${event}]}`, `{${header},"logEvents":[]}`]) {
      const fast = decodeSubscriptionData(encode(json));
      expect(fast.ok && envelopeIndexOf(fast.document)).toBeTruthy();
      expect(plain(fast)).toEqual(plain(parsedWhole(json)));
    }
  });

  it('reads events replaced by the caller, not the index', () => {
    const json = JSON.stringify({
      messageType: 'DATA_MESSAGE',
      ...HEADER,
      logEvents: [{ id: '1', timestamp: 1, message: 'healthy' }],
    });
    const fast = decodeSubscriptionData(encode(json));
    if (!fast.ok) throw new Error(fast.reason);
    fast.document.logEvents = [{ id: '2', timestamp: 2, message: 'out of memory: kill process 1' }];
    expect(envelopeIndexOf(fast.document)).toBeUndefined();
    expect([...fromDocument(fast.document, emptyInputStats())].map((m) => m.message)).toEqual([
      'out of memory: kill process 1',
    ]);
  });
});

describe('a delivery of mostly kept events, parsed in pieces', () => {
  /**
   * `parsedInPieces` of a document, where `readEnvelope` would call it (CloudWatch's layout: the
   * header before `,"logEvents":[` parses, the document ends with `]}`), or 'other layout'. The bytes
   * must be as they were after it, whatever it found.
   */
  function inPieces(bytes: Buffer, pieceBytes: number) {
    const n = bytes.length;
    const key = bytes.indexOf(',"logEvents":[');
    if (key < 0 || bytes[n - 1] !== 125 || bytes[n - 2] !== 93) return 'other layout';
    let header: unknown;
    try {
      header = JSON.parse(`${bytes.toString('utf8', 0, key)}}`);
    } catch {
      return 'other layout';
    }
    if (typeof header !== 'object' || header === null || Array.isArray(header) || 'logEvents' in header) {
      return 'other layout';
    }
    const first = key + ',"logEvents":['.length;
    if (first >= n - 2) return 'other layout';
    const before = Buffer.from(bytes);
    const reading = parsedInPieces(bytes, header as Record<string, unknown>, first, n - 2, pieceBytes);
    expect(bytes.equals(before)).toBe(true);
    return reading && 'parsed' in reading ? reading.parsed : undefined;
  }

  const wholeOf = (bytes: Buffer): unknown => {
    try {
      return JSON.parse(bytes.toString('utf8'));
    } catch {
      return 'not JSON';
    }
  };

  it('property: gives what JSON.parse of the whole document gives, key order included, with pieces of any size', () => {
    let compared = 0;
    fc.assert(
      fc.property(documentArbitrary, fc.integer({ min: 1, max: 300 }), (json, pieceBytes) => {
        const bytes = Buffer.from(json, 'utf8');
        const parsed = inPieces(bytes, pieceBytes);
        if (parsed === 'other layout') return;
        // Valid JSON in CloudWatch's layout, whose events hold no nested `"},{"id":"`: every piece parses.
        expect(parsed).toBeDefined();
        expect(JSON.stringify(parsed)).toBe(JSON.stringify(wholeOf(bytes)));
        compared++;
      }),
      { numRuns: 1000 },
    );
    expect(compared).toBeGreaterThan(500);
  });

  it('property: on damaged bytes, gives the whole document’s value or nothing (and the decoder parses the whole)', () => {
    fc.assert(
      fc.property(
        documentArbitrary,
        fc.integer({ min: 1, max: 300 }),
        fc.array(fc.tuple(fc.nat(), fc.constantFrom(...'"\\{}[],:0 \u0001aé'.split(''))), {
          minLength: 1,
          maxLength: 3,
        }),
        (json, pieceBytes, damage) => {
          const text = damage.reduce((t, [at, char]) => {
            const i = at % (t.length + 1);
            return t.slice(0, i) + char + t.slice(i + 1);
          }, json);
          const bytes = Buffer.from(text, 'utf8');
          const parsed = inPieces(bytes, pieceBytes);
          if (parsed === 'other layout' || parsed === undefined) return;
          expect(JSON.stringify(parsed)).toBe(JSON.stringify(wholeOf(bytes)));
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('falls back to the whole parse where a piece does not parse: an event nesting `"},{"id":"`', () => {
    const events = `{"id":"1","timestamp":1,"message":"a","nested":[{"a":"b"},{"id":"2"}]},{"id":"3","timestamp":3,"message":"c"}`;
    const bytes = Buffer.from(
      `{"messageType":"DATA_MESSAGE","owner":"1","logGroup":"g","logStream":"s","subscriptionFilters":[],"logEvents":[${events}]}`,
    );
    expect(inPieces(bytes, 1)).toBeUndefined();
    expect(inPieces(bytes, 1000)).toEqual(wholeOf(bytes));
  });

  it('reads a large delivery of mostly kept events as the whole document, and a damaged one fails the same way', () => {
    const failing = corpus.filter((line) => worthParsingOrPlacement(line));
    const json = JSON.stringify({
      messageType: 'DATA_MESSAGE',
      ...HEADER,
      logEvents: Array.from({ length: 2000 }, (_, i) => ({
        id: `3${String(i).padStart(55, '0')}`,
        timestamp: 1_795_000_000_000 + i,
        message: failing[i % failing.length]!,
      })),
    });
    // More than one piece, and parsed in pieces (not indexed) by the decoder.
    expect(json.length).toBeGreaterThan(4 * 64 * 1024);
    const reading = readEnvelope(Buffer.from(json, 'utf8'));
    expect(reading && 'parsed' in reading).toBe(true);
    const fast = decodeSubscriptionData(encode(json));
    expect(plain(fast)).toEqual(plain(parsedWhole(json)));
    expect(analysed(fast)).toEqual(analysed(parsedWhole(json)));
    // A byte broken in the last piece: the decoder reports what JSON.parse of the whole reports.
    const broken = `${json.slice(0, json.length - 40)}\u0001${json.slice(json.length - 39)}`;
    let reason = '';
    try {
      JSON.parse(broken);
    } catch (error) {
      reason = `decoded payload is not JSON: ${(error as Error).message}`;
    }
    expect(reason).not.toBe('');
    expect(decodeSubscriptionData(encode(broken))).toEqual({ ok: false, reason });
  });
});
