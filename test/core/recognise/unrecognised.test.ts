import { analyzeMessages } from '../../../lambdas/core/analyze';
import { worthParsing } from '../../../lambdas/core/recognise/classify';
import { parseMessage } from '../../../lambdas/core/parse/parse-message';
import { looksLikeFailure, normaliseMessage } from '../../../lambdas/core/recognise/unrecognised';
import { runCli } from '../../support/cli';

const analyse = (lines: string[]) =>
  analyzeMessages(
    lines.map((message, index) => ({ message, origin: { file: 'test.log', line: index + 1 } })),
    'demo',
  );

/** A Karpenter error no rule knows, in Karpenter's wrapping, with the ids of one occurrence. */
const unknownError = (claim: string, instance: string, attempt: number) =>
  JSON.stringify({
    level: 'ERROR',
    time: '2026-11-30T13:00:00.000Z',
    logger: 'controller',
    message: 'failed to reconcile widget',
    NodeClaim: { name: claim },
    error: `syncing widget for nodeclaim ${claim}, widget ${attempt} of 40 unavailable on ${instance}`,
  });

describe('failure-shaped records', () => {
  it.each([
    ['zap JSON at ERROR', '{"level":"ERROR","message":"failed to frobnicate"}'],
    ['zap console at ERROR', '2026-11-30T13:00:00.000Z\tERROR\tcontroller\tfailed to frobnicate\t{"commit":"x"}'],
    [
      'zap console at ERROR, space aligned',
      '2022-02-16T17:58:09.522Z        ERROR   controller.provisioning      failed to frobnicate',
    ],
    ['klog at error level', 'E1105 10:00:00.000000       1 controller.go:42] failed to frobnicate'],
    [
      'Warning event JSON',
      '{"involvedObject":{"kind":"Pod","name":"web-1"},"type":"Warning","reason":"Frobnicated","message":"x"}',
    ],
    ['kubectl Warning row', '5m   Warning   Frobnicated   pod/web-1   something failed'],
    ['describe Warning row', '  Warning  Frobnicated  5m  kubelet  something failed'],
    ['seed-style Warning line', 'Warning Frobnicated pod/web-1 something failed'],
    ['an error field at INFO', '{"level":"INFO","message":"retrying","error":"widget unavailable"}'],
    [
      'an AWS API error',
      'operation error EC2: CreateWidget, https response error StatusCode: 400, RequestID: 1, api error WidgetMissing: gone',
    ],
    ['an EC2 fleet error', 'creating instance, with fleet error(s), SomeNewFleetCode: details'],
    [
      'Fluent Bit around zap JSON',
      JSON.stringify({ log: `2026-11-30T13:00:00Z stderr F ${JSON.stringify({ level: 'ERROR', message: 'x' })}` }),
    ],
    // The record's JSON writes the console line's tabs as `\t` escapes.
    [
      'Fluent Bit around zap console at ERROR',
      JSON.stringify({
        log: '2026-11-30T13:00:00Z stderr F 2026-11-30T13:00:00.000Z\tERROR\tcontroller\tfailed to frobnicate',
      }),
    ],
    [
      'Fluent Bit around a Fluent Bit record of zap console at FATAL',
      JSON.stringify({
        log: JSON.stringify({
          log: '2026-11-30T13:00:00Z stderr F 2026-11-30T13:00:00.000Z\tFATAL\tcontroller\tgave up',
        }),
      }),
    ],
  ])('%s is parsed and looks like a failure', (_shape, line) => {
    expect(worthParsing(line)).toBe(true);
    expect(looksLikeFailure(parseMessage(line, {})!)).toBe(true);
  });

  it.each([
    '{"level":"INFO","time":"2026-11-30T13:00:00.000Z","logger":"controller","message":"found provisionable pod(s)","Pods":"default/web-1"}',
    '{"level":"DEBUG","message":"discovered subnets","subnets":["subnet-05d3276"]}',
    '2023-09-21T13:14:01.659Z\tINFO\tcontroller.provisioner\tcomputed new machine(s) to fit pod(s)\t{"commit": "637a642"}',
    '{"level":"WARN","message":"at least 5 instance types are recommended"}',
    'I1105 10:00:00.000000       1 leaderelection.go:258] successfully acquired lease karpenter/karpenter-leader-election',
    '3m   Normal   Nominated   pod/web-1   Pod should schedule on: nodeclaim/default-abcde',
  ])('a healthy line is not parsed for it: %s', (line) => {
    expect(worthParsing(line)).toBe(false);
  });
});

describe('unrecognised records in the analysis', () => {
  it('counts a zap console error shipped in a Fluent Bit record, its tabs escaped', () => {
    const console = '2026-11-30T13:00:00.000Z\tERROR\tcontroller\tfailed to frobnicate widget 7\t{"commit":"x"}';
    const record = JSON.stringify({ log: `2026-11-30T13:00:00Z stderr F ${console}`, kubernetes: {} });
    expect(analyse([record]).unrecognised).toEqual({
      count: 1,
      top: [{ message: 'failed to frobnicate widget <n>', count: 1 }],
    });
  });

  it('counts failure-shaped records no rule knows, grouped by a message without ids or numbers', () => {
    const { unrecognised, incidents } = analyse([
      unknownError('default-x7k2p', 'i-0abc12345def67890', 1),
      unknownError('default-b9zzq', 'i-0fff12345def67891', 2),
      unknownError('gpu-hmqzq', 'i-0aaa12345def67892', 3),
      '5m   Warning   Frobnicated   pod/web-6f7c9d8b4-x2x2x   widget 7 failed on ip-10-0-1-7.ec2.internal',
      '{"level":"INFO","message":"found provisionable pod(s)"}',
      '{"level":"ERROR","message":"Reconciler error","error":"no subnets found"}',
    ]);
    expect(incidents.map((i) => i.rule)).toEqual(['subnet-or-security-group-not-found']);
    expect(unrecognised).toEqual({
      count: 4,
      top: [
        {
          message:
            'failed to reconcile widget: syncing widget for nodeclaim default-<x>, widget <n> of <n> unavailable on <id>',
          count: 2,
        },
        { message: 'Warning Frobnicated: widget <n> failed on <node>', count: 1 },
        {
          message:
            'failed to reconcile widget: syncing widget for nodeclaim gpu-<x>, widget <n> of <n> unavailable on <id>',
          count: 1,
        },
      ],
    });
  });

  it('keeps the five most frequent messages and counts every record, in bounded memory', () => {
    const lines = Array.from(
      { length: 2000 },
      (_, i) => `{"level":"ERROR","message":"failure kind ${'x'.repeat(i % 700)}"}`,
    );
    const { unrecognised } = analyse(lines);
    expect(unrecognised.count).toBe(2000);
    expect(unrecognised.top).toHaveLength(5);
    expect(unrecognised.top.every((group) => group.count >= 2)).toBe(true);
  });

  it('sanitises the message it shows', () => {
    const record = parseMessage('{"level":"ERROR","message":"bad\\u001b[31m red\\u0007 \\u202e text"}', {})!;
    expect(normaliseMessage(record)).toBe('bad red text');
  });

  it('is empty when every failure-shaped record is recognised', () => {
    expect(analyse(['{"level":"ERROR","message":"Reconciler error","error":"no subnets found"}']).unrecognised).toEqual(
      {
        count: 0,
        top: [],
      },
    );
  });
});

describe('unrecognised records in analyze output', () => {
  const input = [
    unknownError('default-x7k2p', 'i-0abc12345def67890', 1),
    unknownError('default-b9zzq', 'i-0fff12345def67891', 2),
  ].join('\n');

  it('shows a short section in the text output', async () => {
    const { stdout, code } = await runCli(['analyze', '-'], { readStdin: () => input });
    expect(code).toBe(0);
    expect(stdout).toContain(
      '2 unrecognised error lines, most frequent:\n  2 × failed to reconcile widget: syncing widget for nodeclaim default-<x>, widget <n> of <n> unavailable on <id>',
    );
  });

  it('lists them in --format json', async () => {
    const { stdout } = await runCli(['analyze', '--format', 'json', '-'], { readStdin: () => input });
    expect(JSON.parse(stdout).unrecognised).toEqual({
      count: 2,
      top: [
        {
          message:
            'failed to reconcile widget: syncing widget for nodeclaim default-<x>, widget <n> of <n> unavailable on <id>',
          count: 2,
        },
      ],
    });
  });
});
