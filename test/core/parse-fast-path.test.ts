import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import type { RecordOrigin } from '../../lambdas/core/model';
import {
  criPrefixEnd,
  type DescribeContext,
  isSpace,
  knownTailReads,
  parseMessage,
  timestampBeforeJsonEnd,
  trackDescribeHeader,
  zapConsoleLine,
} from '../../lambdas/core/parse';
import { logRules } from '../../lambdas/core/rules';
import { loadSamples, ROOT } from '../helpers';
import {
  PARSE_PATTERNS as REFERENCE_PATTERNS,
  parseMessage as referenceParse,
  trackDescribeHeader as referenceTrackDescribeHeader,
} from '../support/parse-reference';

/**
 * The parser tries each prefix pattern only where a cheap look at the first characters says it can
 * match, and builds every record in one shape. These tests hold it to the parser before those fast
 * paths (test/support/parse-reference.ts, every pattern tried on every line) on the lines the project
 * has and on generated ones, in every envelope: the same record for every line (members left
 * undefined aside) and the same `kubectl describe` state after it.
 */

const origin: RecordOrigin = { logGroup: '/aws/containerinsights/prod/application', logStream: 's', line: 3 };

/** JSON with every object's keys in order and undefined members left out, as toEqual compares. */
const canonical = (value: unknown): string =>
  JSON.stringify(value, (_, member: unknown) =>
    member && typeof member === 'object' && !Array.isArray(member)
      ? Object.fromEntries(Object.entries(member).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : member,
  );

function expectSameAsReference(lines: readonly string[]): void {
  const describe: DescribeContext = {};
  const referenceDescribe: DescribeContext = {};
  for (const line of lines) {
    const actual = parseMessage(line, origin, describe);
    const expected = referenceParse(line, origin, referenceDescribe);
    // The matcher's own comparison only where the canonical forms differ, for its message: it is slow.
    if (canonical(actual) !== canonical(expected)) expect({ line, record: actual }).toEqual({ line, record: expected });
    if (canonical(describe) !== canonical(referenceDescribe)) expect(describe).toEqual(referenceDescribe);
  }
}

const realLines = [
  ...loadSamples().samples.map((s) => s.raw),
  ...readFileSync(join(ROOT, 'examples', 'karpenter-controller.log'), 'utf8').split('\n'),
  ...readFileSync(join(ROOT, 'examples', 'kubernetes-events.jsonl'), 'utf8').split('\n'),
  ...logRules().flatMap((rule) => rule.examples.fires.map((example) => example.line)),
].filter(Boolean);

/** The envelopes a line can arrive in, alone or one around another. */
const ENVELOPES: ReadonlyArray<(line: string) => string> = [
  (line) => line,
  (line) => `2026-11-28T02:20:49.824913Z stdout F ${line}`,
  (line) => `2024-01-02T03:04:05+00:00 stderr P ${line}`,
  (line) => `[pod/karpenter-6d8f7b9c54-8zr7n/controller] ${line}`,
  (line) => `karpenter-6d8f7b9c54-8zr7n controller ${line}`,
  (line) => `2024-01-02 03:04:05.123Z   ${line}`,
  (line) => `Jan  2 15:04:05 ip-10-0-1-2 kubelet[1234]: ${line}`,
  (line) => `2024-01-02T15:04:05+0000 ip-10-0-1-2 nodeadm[99]: ${line}`,
  (line) => JSON.stringify({ log: `2026-11-28T02:20:49.824913Z stdout F ${line}\n`, stream: 'stdout' }),
  (line) =>
    JSON.stringify({
      log: `2026-11-28T02:20:49.824913Z stderr F ${line}`,
      kubernetes: { pod_name: 'karpenter-6d8f7b9c54-8zr7n', namespace_name: 'karpenter', container_name: 'c' },
    }),
  (line) => JSON.stringify({ systemd_unit: 'kubelet.service', hostname: 'ip-10-0-1-2', message: line }),
  (line) => JSON.stringify({ host: 'ip-10-0-1-2', ident: 'kernel', message: `${line}\n` }),
  (line) => `  ${line}\r\n`,
];

describe('parseMessage, fast paths', () => {
  it('reads every sample, example and rule line the same as the reference, in every envelope', () => {
    for (const envelope of ENVELOPES) expectSameAsReference(realLines.map(envelope));
  });

  it('reads a Fluent Bit record with merged JSON the same as the reference', () => {
    const kubernetes = { pod_name: 'karpenter-x', namespace_name: 'karpenter' };
    expectSameAsReference(
      realLines
        .filter((line) => line.startsWith('{'))
        .flatMap((line) => [
          JSON.stringify({ log: line, log_processed: JSON.parse(line) as unknown, kubernetes }),
          JSON.stringify({ data: JSON.parse(line) as unknown, kubernetes }),
        ]),
    );
  });

  // Pieces that begin or nearly begin each shape the fast paths look for, so that a check on the
  // first characters that is stricter than its pattern would show as a different record.
  const piece = fc.oneof(
    fc.constantFrom(
      '2024-01-02T03:04:05.123Z',
      '2024-01-02T03:04:05+07:00',
      '2024-01-02T03:04:05-0700',
      '2024-01-02 03:04:05',
      '2024-01-02T',
      '2024-1-02T03:04:05Z',
      '12345678901',
      'stdout',
      'stderr',
      'F',
      'P',
      '[pod/web-1/app]',
      '[pod/',
      '[pod/Web/app]',
      'web-6f7c9d8b4-x2x2x',
      'web-x2x2',
      'app',
      'Jan',
      'Jan  2 15:04:05',
      'Feb 12 01:02:03',
      'ip-10-0-1-2',
      'kubelet[1234]:',
      'nodeadm:',
      'I0206',
      'E0206 17:26:44.123456',
      'F1231 23:59:59.000001',
      'W0101 00:00:00.5',
      'I0206 17:26:44.1',
      '1 reconcile.go:12]',
      'INFO',
      'ERROR',
      'WARNING',
      'DPANIC',
      'PANIC',
      'FATAL',
      'DEBUG',
      'WARN',
      'controller.provisioner',
      'Normal',
      'Warning',
      'FailedScheduling',
      'pod/web-1',
      'node/ip-10-0-1-2',
      '3m (x12 over 1h)',
      '<unknown>',
      'default-scheduler',
      '0/3 nodes are available',
      '{}',
      '{"level":"ERROR","message":"m","error":"e"}',
      '{"error":"boom"}',
      '{"msg":"m","ts":1612205335.409803}',
      '{"reason":"FailedScheduling","message":"0/3 nodes","type":"Warning","involvedObject":{"kind":"Pod","name":"p"}}',
      '{"log":"x"}',
      '{',
      '}',
      'Name:         web-1',
      'Namespace:    default',
      'Kind:  PersistentVolumeClaim',
      'Provisioner:  ebs.csi.aws.com',
      'Claim:  default/data',
      'StorageClass:  gp3',
      'Name:   ip-10-0-1-2.ec2.internal',
    ),
    fc.string({ maxLength: 8 }),
    fc.string({ unit: fc.constantFrom(...'0123456789-:.TZ +[]{}/"\tIWEFDPNa'), maxLength: 14 }),
  );
  const separator = fc.constantFrom(' ', '  ', '\t', '', ' | ', ': ', '\n');
  const pieces = fc
    .array(fc.tuple(piece, separator), { minLength: 1, maxLength: 9 })
    .map((parts) => parts.map(([p, s]) => p + s).join(''));
  // Lines of each text shape, built from their parts (each part sometimes replaced by a piece).
  const part = (...choices: string[]) => fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...choices) }, piece);
  const shaped = fc.oneof(
    fc
      .tuple(part('I', 'W', 'E', 'F', 'X'), part('0206 17:26:44.123456', '1231 23:59:59.1'), part('  1 ', ' 42 '))
      .chain(([severity, stamp, pid]) =>
        fc.tuple(part('reconcile.go:12] ', 'x] '), pieces).map(([file, rest]) => severity + stamp + pid + file + rest),
      ),
    fc
      .tuple(
        part('2022-02-16T17:58:09.522Z\t', '2022-02-16T17:58:09.522+0100 ', ''),
        part('DEBUG', 'INFO', 'WARN', 'WARNING', 'ERROR', 'DPANIC', 'PANIC', 'FATAL', 'TRACE'),
        part('\t', ' ', '  '),
        pieces,
        part('\t{"error":"e","commit":"1"}', ' {"a":{"b":1}}', ' {', ''),
      )
      .map((parts) => parts.join('')),
    fc
      .tuple(
        part('default ', '', 'kube-system   '),
        part('4m', '4m (x31 over 50m)', '<unknown>'),
        part('  Warning  ', ' Normal ', '  Info  '),
        part('FailedScheduling', 'Nominated'),
        part('  pod/web-1  ', ' nodeclaim/"default-x" ', '  default-scheduler  '),
        pieces,
      )
      .map((parts) => parts.join('')),
  );
  const text = fc.oneof(pieces, shaped);
  const line = fc.tuple(fc.constantFrom(...ENVELOPES), text).map(([envelope, inner]) => envelope(inner));

  it('property: a generated line in any envelope gives the record the reference gives', () => {
    fc.assert(
      fc.property(fc.array(line, { minLength: 1, maxLength: 6 }), (lines) => expectSameAsReference(lines)),
      { numRuns: 3000 },
    );
  });

  it('property: the describe headers of generated lines give the state the reference gives', () => {
    const header = fc.oneof(
      fc
        .tuple(
          fc.constantFrom(
            'Name',
            'Namespace',
            'Kind',
            'Provisioner',
            'StorageClass',
            'Claim',
            'Labels',
            'name',
            ' Name',
          ),
          fc.constantFrom(':', ': ', ':   ', ' :'),
          fc.constantFrom('web-1', 'ip-10-0-1-2', 'default', 'PersistentVolume', 'gp3', 'a b', ''),
        )
        .map((parts) => parts.join('')),
      text,
    );
    fc.assert(
      fc.property(fc.array(header, { maxLength: 8 }), (lines) => {
        const describe: DescribeContext = {};
        const referenceDescribe: DescribeContext = {};
        for (const line of lines) {
          trackDescribeHeader(line, describe);
          referenceTrackDescribeHeader(line, referenceDescribe);
          if (canonical(describe) !== canonical(referenceDescribe)) expect(describe).toEqual(referenceDescribe);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('property: a generated zap JSON, event or journal object gives the record the reference gives', () => {
    const value = fc.oneof(fc.string({ maxLength: 6 }), fc.integer(), fc.constant(null), text);
    const object = fc.record(
      {
        level: fc.constantFrom('error', 'INFO', 'warn'),
        logger: fc.constantFrom('controller', 'webhook'),
        message: value,
        msg: value,
        error: value,
        err: value,
        errorCauses: fc.array(fc.oneof(fc.record({ error: value }), value), { maxLength: 3 }),
        time: fc.oneof(fc.constantFrom('2024-08-21T12:03:10.958Z'), fc.double(), fc.integer()),
        ts: fc.oneof(fc.double(), fc.integer({ min: 0, max: 2e12 })),
        reason: value,
        type: fc.constantFrom('Warning', 'Normal'),
        involvedObject: fc.record({ kind: value, name: value, namespace: value }, { requiredKeys: [] }),
        regarding: fc.record({ kind: value, name: value }, { requiredKeys: [] }),
        note: value,
        count: fc.oneof(fc.integer(), fc.double()),
        series: fc.record({ count: fc.integer() }),
        metadata: fc.record({ uid: value, name: value, namespace: value }, { requiredKeys: [] }),
        systemd_unit: value,
        ident: value,
        hostname: value,
        MESSAGE: value,
        log: value,
        kubernetes: fc.record({ pod_name: value, namespace_name: value, container_name: value }, { requiredKeys: [] }),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(fc.constantFrom(...ENVELOPES), object, (envelope, fields) =>
        expectSameAsReference([envelope(JSON.stringify(fields))]),
      ),
      { numRuns: 3000 },
    );
  });

  it('property: lines at the edges of the one-read timestamp, the row and pod-name checks give the reference record', () => {
    // Each check decides from a few characters whether a pattern is tried: a `/` with letters and a
    // space before it (kubectl get events' object column), a first word of pod-name characters up to
    // a space, a timestamp read once for the CRI, JSON, syslog and zap console readers. These pieces
    // sit right at those edges, and the line goes through every envelope, Fluent Bit's with line
    // breaks of every kind after it.
    const edge = fc.constantFrom(
      '/',
      'a/b',
      ' pod/x',
      '\u00a0pod/x',
      '\tnode/ip-1',
      '"pod/x"',
      '0/3',
      '.x/y',
      'Pod.v1/x',
      'NodeClaim.karpenter.sh/"a"',
      'pod/"',
      'pod/""',
      'POD/x"',
      'x-1/y',
      '/pod/x',
      'web-6f7c9d8b4-x2x2x',
      'Web-6f7c9d8b4-x2x2x',
      '-6f7c9d8b4-x2x2x',
      'web.6f7c9d8b4-x2x2x',
      'web_6f7c9d8b4-x2x2x',
      'app',
      'app-1',
      '2024-01-02T03:04:05.1Z',
      '2024-01-02 03:04:05',
      '2024-01-02T03:04:05+0100',
      '2024-01-02T03:04:05',
      'stdout F',
      'stderr P',
      'Jan  2 15:04:05',
      'ip-10-0-1-2',
      'kubelet[12]:',
      'Warning',
      'Normal',
      'FailedScheduling',
      '4m (x2 over 9m)',
      'ERROR',
      'controller',
      '{"a":1}',
      '{"error":"e"}',
      '{',
      '}',
    );
    const gap = fc.constantFrom(' ', '  ', '\t', '', '\u00a0');
    const edgeLine = fc
      .array(fc.tuple(edge, gap), { minLength: 1, maxLength: 8 })
      .map((parts) => parts.map(([p, g]) => p + g).join(''));
    const ending = fc.constantFrom('', '\n', '\r\n', '\n\n', '\r', ' \n');
    const inFluentBit = fc
      .tuple(
        fc.constantFrom('', '2026-11-28T02:20:49.824913Z stdout F ', '2026-11-28T02:20:49Z stderr P '),
        edgeLine,
        ending,
      )
      .map(([cri, inner, end]) =>
        JSON.stringify({ log: `${cri}${inner}${end}`, kubernetes: { pod_name: 'p', namespace_name: 'n' } }),
      );
    const inJournal = fc
      .tuple(edgeLine, ending)
      .map(([inner, end]) => JSON.stringify({ systemd_unit: 'kubelet.service', message: `${inner}${end}` }));
    const anyLine = fc.oneof(
      fc.tuple(fc.constantFrom(...ENVELOPES), edgeLine).map(([envelope, inner]) => envelope(inner)),
      inFluentBit,
      inJournal,
    );
    fc.assert(
      fc.property(fc.array(anyLine, { minLength: 1, maxLength: 4 }), (lines) => expectSameAsReference(lines)),
      { numRuns: 5000 },
    );
  });

  // The prefixes and the zap console line, read by hand, against the reference's own patterns.
  const referencePattern = (source: string): RegExp => {
    const pattern = REFERENCE_PATTERNS.find((p) => p.source === source);
    if (!pattern) throw new Error(`the reference has no pattern ${source}`);
    return pattern;
  };
  const CRI_PREFIX = referencePattern(
    String.raw`^\d{4}-\d\d-\d\dT[0-9:.]+(?:Z|[+-]\d\d:?\d\d)? (?:stdout|stderr) [FP] `,
  );
  const TIMESTAMP_BEFORE_JSON = referencePattern(String.raw`^\d{4}-\d\d-\d\d[T ][0-9:.]+Z?\s+(?=\{)`);
  const ZAP_CONSOLE = referencePattern(
    String.raw`^(?:(\d{4}-\d\d-\d\dT[0-9:.]+(?:Z|[+-]\d\d:?\d\d)?)\s+)?(DEBUG|INFO|WARN|WARNING|ERROR|DPANIC|PANIC|FATAL)\s+(.*)$`,
  );

  // Strings made of the parts these readers look at, each part sometimes bent by a character.
  const spaces = fc.constantFrom(' ', '  ', '\t', '\u00a0', '\u2003', '\u3000', '\ufeff', '\n', '', ' \t ');
  const timeLike = fc
    .tuple(
      fc.constantFrom('2024-01-02', '2024-1-02', '12345-01-02', '2024/01/02', '２０２４-01-02', '2024-01-0'),
      fc.constantFrom('T', ' ', 't', ''),
      fc.constantFrom('03:04:05', '03:04:05.123456789', '0', ':', '.', '', '03:04', '3:4:5..'),
      fc.constantFrom('Z', 'z', '+07:00', '-0700', '+07', '+07:0', '-07:00:', '+0', 'ZZ', '', '+ab:cd'),
    )
    .map((parts) => parts.join(''));
  const afterTime = fc.constantFrom(
    'stdout F ',
    'stderr P ',
    'stdout  F ',
    'stdout X ',
    'stdin F ',
    'stdout F',
    '{"a":1}',
    '{',
    'ERROR',
    'WARNING',
    'WARN',
    'WARNINGS',
    'INFO',
    'DPANIC',
    'PANIC',
    'FATAL',
    'DEBUG',
    'TRACE',
    'error',
    'x',
    '',
  );
  const readerInput = fc
    .array(fc.oneof(timeLike, spaces, afterTime, fc.string({ maxLength: 4 })), { minLength: 1, maxLength: 7 })
    .map((parts) => parts.join(''));

  it('isSpace is \\s (and what trim removes) for every UTF-16 code unit', () => {
    for (let code = 0; code < 0x10000; code++) {
      const char = String.fromCharCode(code);
      const expected = /\s/.test(char);
      const trimmed = char.trim() === '';
      if (isSpace(code) !== expected || trimmed !== expected) {
        expect({ code, isSpace: isSpace(code), trimmed }).toEqual({
          code,
          isSpace: expected,
          trimmed: expected,
        });
      }
    }
    expect(isSpace(Number.NaN)).toBe(false);
  });

  it('property: the CRI, timestamp and zap console readers match what their patterns match', () => {
    fc.assert(
      fc.property(readerInput, (line) => {
        expect(criPrefixEnd(line)).toBe(CRI_PREFIX.exec(line)?.[0].length ?? -1);
        expect(timestampBeforeJsonEnd(line)).toBe(TIMESTAMP_BEFORE_JSON.exec(line)?.[0].length ?? -1);
        const zap = ZAP_CONSOLE.exec(line);
        expect(zapConsoleLine(line)).toEqual(zap ? { time: zap[1], level: zap[2], rest: zap[3] } : undefined);
      }),
      { numRuns: 20_000 },
    );
  });

  it('property: a zap console line with nested, spaced, quoted or broken fields gives the reference record', () => {
    // Trailing fields the way people and encoders write them: spaces before inner objects (so an
    // inner `{` is a candidate the reader tries first), strings with braces, quotes, escapes and
    // non-ASCII text, arrays, and objects that do not parse.
    const scalar = fc.oneof(
      fc.string({ maxLength: 6 }),
      fc.constantFrom('{', '}', '"', '\\', '{"a": 1}', 'ünïcødé ✓', '\u2028', '} {', 'a\\"b'),
      fc.integer(),
    );
    const member: fc.Arbitrary<string> = fc.letrec<{ value: string }>((tie) => ({
      value: fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        scalar.map((v) => JSON.stringify(v)),
        fc
          .array(fc.tuple(fc.string({ maxLength: 4 }), tie('value'), spaces), { maxLength: 3 })
          .map((members) => `{${members.map(([k, v, s]) => `${JSON.stringify(k)}:${s}${v}`).join(`,${' '}`)}}`),
        fc.array(tie('value'), { maxLength: 2 }).map((items) => `[${items.join(', ')}]`),
      ),
    })).value;
    const broken = fc.constantFrom('{"a": 1', '{"a": 1}}', '{"a": {"b": 2}, "c"}', '{} {}', '{"s": "}"', '{"\\"": {}}');
    const fields = fc.oneof(
      member,
      broken,
      fc.tuple(member, broken).map(([a, b]) => `${a} ${b}`),
    );
    const consoleLine = fc
      .tuple(
        fc.constantFrom('2022-02-16T17:58:09.522Z', '2022-02-16T17:58:09.522+0100', ''),
        fc.constantFrom('\t', ' ', '  '),
        fc.constantFrom('ERROR', 'INFO', 'WARN', 'WARNING', 'DEBUG'),
        fc.constantFrom('\t', ' '),
        fc.constantFrom('controller.provisioner', 'webhook', 'Controller', 'a.b', 'x', ''),
        fc.constantFrom('\t', ' ', ''),
        fc.string({ maxLength: 12 }),
        fc.constantFrom('\t', ' ', '  ', ''),
        fields,
        fc.constantFrom('', ' ', '\t', '\u00a0'),
      )
      .map(([time, a, level, b, logger, c, message, d, json, end]) =>
        [time ? `${time}${a}` : '', level, b, logger, c, message, d, json, end].join(''),
      );
    fc.assert(
      fc.property(fc.constantFrom(...ENVELOPES), consoleLine, (envelope, line) =>
        expectSameAsReference([envelope(line)]),
      ),
      { numRuns: 5000 },
    );
  });

  it('property: Fluent Bit records read with the tail of the one before give the reference record', () => {
    // Sequences of records whose members after `log` repeat (the Kubernetes metadata of one
    // container), with heads before `log` (CRI fields, nested objects, keys holding `log`, merged
    // JSON), tails that must not be trusted (another `log`, spelt plainly or with escapes, merged JSON, no
    // `kubernetes`), `log`
    // values with escapes JSON.stringify does not write, and literals that a raw quote ends early.
    const kubernetes = fc.constantFrom(
      '{"pod_name":"karpenter-6d8f7b9c54-8zr7n","namespace_name":"karpenter","container_name":"controller","host":"ip-10-0-12-4"}',
      '{"pod_name":"web-1","namespace_name":"default"}',
      '{"pod_name":"","container_name":"c"}',
      '{"labels":{"log":"x"},"pod_name":"p","namespace_name":"kube-system","container_name":"controller"}',
      '{}',
      '"not an object"',
    );
    const tail = fc.oneof(
      { weight: 12, arbitrary: kubernetes.map((k) => `,"stream":"stdout","kubernetes":${k}}`) },
      kubernetes.map((k) => `, "kubernetes" : ${k} }`),
      kubernetes.map((k) => `,"kubernetes":${k},"log":"again"}`),
      // A key JSON.parse reads as `log` that the tail's text does not spell so.
      kubernetes.map((k) => `,"kubernetes":${k},"lo\\u0067":"escaped"}`),
      kubernetes.map((k) => `,"kubernetes":${k},"log_processed":{"level":"error","message":"merged"}}`),
      kubernetes.map((k) => `,"kubernetes":${k},"data":"text"}`),
      fc.constantFrom(
        ',"stream":"stdout"}',
        '}',
        ',"kubernetes":{"pod_name":"p"},"x":[1,{"y":"}"}]}',
        ',"kubernetes":{',
      ),
    );
    const head = fc.constantFrom(
      '',
      '"time":"2025-06-25T07:59:24.583353879Z","stream":"stdout","_p":"F",',
      '"log":"earlier",',
      '"x\\"log":"y",',
      '"nested":{"log":"inner"},',
      '"list":["\\"log\\":\\"",{"log":"z"}],',
      '"log_processed":{"level":"error","message":"head"},',
      '"data":{"message":"head"},',
      '"kubernetes":{"pod_name":"head-pod"},',
      '"broken":',
    );
    const escaped = (value: string) =>
      fc.constantFrom(
        JSON.stringify(value),
        JSON.stringify(value).replaceAll('/', '\\/'),
        JSON.stringify(value).replace(/[a-z]/, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`),
        `"${value}"`,
      );
    const log = fc
      .tuple(fc.constantFrom(...ENVELOPES.slice(0, 3)), fc.oneof(text, fc.constantFrom(...realLines.slice(0, 40))))
      .chain(([envelope, inner]) => escaped(envelope(inner)));
    // Most records of a sequence share its tail, as the records of one container do.
    const record = fc.tuple(
      head,
      log,
      fc.oneof({ weight: 4, arbitrary: fc.constant(undefined) }, tail),
      fc.constantFrom('', ' ', '\n'),
    );
    const records = fc
      .tuple(tail, fc.array(record, { minLength: 1, maxLength: 8 }))
      .map(([shared, parts]) => parts.map(([h, l, t, end]) => `{${h}"log":${l}${t ?? shared}${end}`));
    const before = knownTailReads();
    fc.assert(
      fc.property(records, (lines) => expectSameAsReference(lines)),
      { numRuns: 3000 },
    );
    // The path under test was taken, many times.
    expect(knownTailReads() - before).toBeGreaterThan(1000);
  });
});
