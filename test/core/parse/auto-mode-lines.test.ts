import { analyzeMessages } from '../../../lambdas/core/analyze';
import { parseMessage } from '../../../lambdas/core/parse/parse-message';

/**
 * EKS Auto Mode's managed Karpenter logs, delivered as AUTO_MODE_COMPUTE_LOGS vended logs. No public
 * sample of a delivered line exists (docs/auto-mode.md), so the parser is held to the
 * lines Karpenter v1.x itself writes, bare and inside the envelopes a JSON log delivery may add; and
 * to never throwing, and counting what it cannot read, on any other shape.
 */

// Real zap JSON lines of Karpenter v1.x (test/fixtures/karpenter-samples.jsonl).
/** ref-018, Karpenter v1.0.0, aws/karpenter-provider-aws#6821. */
const STARTUP_TAINT =
  '{"level":"ERROR","time":"2024-08-21T12:03:10.958Z","logger":"controller","caller":"controller/controller.go:261","message":"Reconciler error","commit":"5bdf9c3","controller":"nodeclaim.lifecycle","controllerGroup":"karpenter.sh","controllerKind":"NodeClaim","NodeClaim":{"name":"default-v64qz"},"namespace":"","name":"default-v64qz","reconcileID":"30d5bee9-399d-42fa-87a0-533677cbb908","error":"missing required startup taint, karpenter.sh/unregistered"}';
/** ref-060, Karpenter v1.5.0, kubernetes-sigs/karpenter#2332: healthy. */
const DELETED =
  '{"level":"INFO","time":"2025-06-25T07:59:24.583Z","logger":"controller","message":"deleted nodeclaim","commit":"9458bb5","controller":"nodeclaim.lifecycle","controllerGroup":"karpenter.sh","controllerKind":"NodeClaim","NodeClaim":{"name":"flux-system-karpenter--riff--on-demand-zp78h"},"namespace":"","name":"flux-system-karpenter--riff--on-demand-zp78h","reconcileID":"d1a9f9d4-c1ae-4763-98ae-8057536a87b5","provider-id":"aws:///eu-central-1c/i-03d3728ddaea9a1e4","Node":{"name":"ip-10-110-106-175.eu-central-1.compute.internal"}}';
/** The shape of ref-018 with an error no rule knows (constructed): an unrecognised failure. */
const UNKNOWN_ERROR =
  '{"level":"ERROR","time":"2026-03-01T10:00:00.000Z","logger":"controller","message":"Reconciler error","commit":"1a2b3c4","controller":"nodepool.readiness","controllerGroup":"karpenter.sh","controllerKind":"NodePool","NodePool":{"name":"general-purpose"},"namespace":"","name":"general-purpose","reconcileID":"0f6f1d2e-3a4b-4c5d-8e9f-0a1b2c3d4e5f","error":"frobnicating the widget: quux"}';

// Envelopes a JSON log delivery may put around the line (hypothetical: none is documented).
const ENVELOPES: ReadonlyArray<[string, (line: string) => string]> = [
  ['the bare zap line', (line) => line],
  ['a `message` string', (line) => JSON.stringify({ message: line })],
  ['a `log` string', (line) => JSON.stringify({ log: line })],
  ['a `message` object', (line) => JSON.stringify({ message: JSON.parse(line) as unknown })],
  [
    'an envelope with delivery metadata',
    (line) =>
      JSON.stringify({
        timestamp: 1772359200000,
        resourceArn: 'arn:aws:eks:eu-west-1:111122223333:cluster/auto',
        logType: 'AUTO_MODE_COMPUTE_LOGS',
        message: line,
      }),
  ],
];

const analyse = (...messages: string[]) =>
  analyzeMessages(
    messages.map((message, index) => ({
      message,
      origin: { logGroup: '/aws/vendedlogs/eks/auto/auto-mode-compute', line: index + 1 },
    })),
    'auto',
  );

describe.each(ENVELOPES)('an Auto Mode compute log line in %s', (_, wrap) => {
  it("reads Karpenter's own fields: level, logger, time, controller, NodeClaim", () => {
    const record = parseMessage(wrap(STARTUP_TAINT), { line: 1 })!;
    expect(record).toMatchObject({
      format: 'zap-json',
      level: 'ERROR',
      logger: 'controller',
      timeMs: Date.parse('2024-08-21T12:03:10.958Z'),
      text: 'Reconciler error | missing required startup taint, karpenter.sh/unregistered',
    });
    expect(record.fields).toMatchObject({ controller: 'nodeclaim.lifecycle', NodeClaim: { name: 'default-v64qz' } });
  });

  it('gives the rule, with the NodeClaim, as the bare line does', () => {
    const { incidents, unrecognised } = analyse(wrap(STARTUP_TAINT));
    expect(incidents.map((i) => i.rule)).toEqual(['node-not-initialized']);
    expect(incidents[0]!.entities.nodeclaims).toEqual(['default-v64qz']);
    expect(unrecognised.count).toBe(0);
  });

  it('stays silent on a healthy line', () => {
    const { incidents, unrecognised } = analyse(wrap(DELETED));
    expect(incidents).toEqual([]);
    expect(unrecognised.count).toBe(0);
  });

  it('counts an error no rule knows as unrecognised, with its message', () => {
    const { incidents, unrecognised } = analyse(wrap(UNKNOWN_ERROR));
    expect(incidents).toEqual([]);
    expect(unrecognised.count).toBe(1);
    expect(unrecognised.top[0]!.message).toContain('frobnicating the widget');
  });
});

describe('an Auto Mode compute log line in a shape the parser does not know', () => {
  it.each([
    ['a JSON array', '[{"level":"ERROR","message":"Reconciler error","error":"boom"}]'],
    ['a failure nested under an unknown key', JSON.stringify({ payload: JSON.parse(UNKNOWN_ERROR) as unknown })],
    ['an unknown level key', '{"severity":"ERROR","body":"Reconciler error","err":"frobnicating the widget"}'],
    ['truncated JSON', UNKNOWN_ERROR.slice(0, 200)],
    ['a wrapper whose message is cut-off JSON', JSON.stringify({ message: UNKNOWN_ERROR.slice(0, 200) })],
  ])('counts %s as unrecognised, never throwing', (_, line) => {
    const { incidents, unrecognised } = analyse(line);
    expect(incidents).toEqual([]);
    expect(unrecognised.count).toBe(1);
  });

  it.each([
    ['an empty object', '{}'],
    ['null', 'null'],
    ['a number', '42'],
    ['a message of the wrong type', '{"message":12,"log":false}'],
    ['deeply nested wrappers', `${'{"message":'.repeat(5000)}"x"${'}'.repeat(5000)}`],
    [
      'a string of wrappers',
      JSON.stringify({ message: JSON.stringify({ message: JSON.stringify({ message: DELETED }) }) }),
    ],
    ['control characters', '{"message":"\\u0000\\u001b[31m"}'],
  ])('reads %s without throwing, and without a finding', (_, line) => {
    expect(() => parseMessage(line, { line: 1 })).not.toThrow();
    expect(analyse(line).incidents).toEqual([]);
  });
});
