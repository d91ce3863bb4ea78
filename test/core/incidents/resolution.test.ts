import { analyzeMessages, StreamingAnalyzer } from '../../../lambdas/core/analyze';
import { parseMessage } from '../../../lambdas/core/parse/parse-message';
import { DEFAULT_MAX_HELD_CHARS, placedPodOf } from '../../../lambdas/core/incidents/resolution';

const INSUFFICIENT_CPU =
  '0/3 nodes are available: 3 Insufficient cpu. preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod.';

const podEvent = (
  pod: string,
  reason: string,
  message: string,
  time: string,
  type = reason === 'FailedScheduling' ? 'Warning' : 'Normal',
) =>
  JSON.stringify({
    metadata: { name: `${pod}.${reason}.${time}`, namespace: 'shop' },
    involvedObject: { kind: 'Pod', namespace: 'shop', name: pod },
    reason,
    type,
    message,
    source: { component: reason === 'Nominated' ? 'karpenter' : 'default-scheduler' },
    lastTimestamp: time,
  });

const failed = (pod: string, time: string) => podEvent(pod, 'FailedScheduling', INSUFFICIENT_CPU, time);
// sigs.k8s.io/karpenter@v1.14.1 pkg/controllers/provisioning/scheduling/events.go NominatePodEvent
const nominated = (pod: string, time: string) =>
  podEvent(pod, 'Nominated', 'Pod should schedule on: nodeclaim/default-x7k2p', time);
const scheduled = (pod: string, time: string) =>
  podEvent(pod, 'Scheduled', `Successfully assigned shop/${pod} to ip-10-0-31-17.us-west-2.compute.internal`, time);

const analyse = (messages: string[]) =>
  analyzeMessages(
    messages.map((message, i) => ({ message, origin: { file: 'events', line: i + 1 } })),
    'prod',
  );

const A = 'api-7d4b9c6f5d-x2x9k';
const B = 'api-7d4b9c6f5d-q8r7t';

describe('scheduling failures resolved in the same delivery', () => {
  it("drops a failure that Karpenter's Nominated event resolves a second later", () => {
    const analysis = analyse([failed(A, '2026-11-30T10:00:00Z'), nominated(A, '2026-11-30T10:00:01Z')]);
    expect(analysis.incidents).toEqual([]);
    expect(analysis.stats.resolvedSignals).toBe(1);
  });

  it("drops a failure that the scheduler's binding resolves", () => {
    const analysis = analyse([failed(A, '2026-11-30T10:00:00Z'), scheduled(A, '2026-11-30T10:00:05Z')]);
    expect(analysis.incidents).toEqual([]);
  });

  it('keeps the failures of pods nobody placed, and counts only those', () => {
    const analysis = analyse([
      failed(A, '2026-11-30T10:00:00Z'),
      failed(B, '2026-11-30T10:00:00Z'),
      nominated(A, '2026-11-30T10:00:01Z'),
    ]);
    expect(analysis.incidents.map((i) => [i.rule, i.occurrences, i.entities.pods])).toEqual([
      ['scheduling-insufficient-resources', 1, [`shop/${B}`]],
    ]);
  });

  it('keeps a failure logged after the placement: the pod failed again', () => {
    // Arrival order and time order both say the nomination came first.
    const analysis = analyse([nominated(A, '2026-11-30T10:00:00Z'), failed(A, '2026-11-30T10:00:20Z')]);
    expect(analysis.incidents.map((i) => i.rule)).toEqual(['scheduling-insufficient-resources']);
    // Delivered out of order: the nomination is later in time, so it still resolves the failure.
    expect(analyse([nominated(A, '2026-11-30T10:00:30Z'), failed(A, '2026-11-30T10:00:20Z')]).incidents).toEqual([]);
  });

  it("resolves Karpenter's own could-not-schedule line for the pod it names", () => {
    const karpenter = JSON.stringify({
      level: 'ERROR',
      time: '2026-11-30T10:00:00.100Z',
      logger: 'controller',
      message: 'could not schedule pod',
      Pod: { name: A, namespace: 'shop' },
      error:
        'incompatible with nodepool "default", no instance type satisfied resources {"cpu":"96","pods":"1"} and requirements karpenter.sh/capacity-type In [on-demand spot]',
    });
    expect(analyse([karpenter]).incidents.map((i) => i.rule)).toEqual(['scheduling-insufficient-resources']);
    expect(analyse([karpenter, nominated(A, '2026-11-30T10:00:01Z')]).incidents).toEqual([]);
  });

  it('never lets a placement resolve other rules, or a Warning event pass for one', () => {
    const subnet =
      "InsufficientFreeAddressesInSubnet: There are not enough free addresses in subnet 'subnet-0a1b2c3d4e5f60718' to satisfy the requested number of instances.";
    const analysis = analyse([subnet, nominated(A, '2026-11-30T10:00:01Z')]);
    expect(analysis.incidents.map((i) => i.rule)).toEqual(['subnet-ip-exhaustion']);
    expect(
      placedPodOf(parseMessage(podEvent(A, 'Nominated', 'x', '2026-11-30T10:00:01Z', 'Warning'), {})!),
    ).toBeUndefined();
  });

  it('reads placements from kubectl rows, with or without a namespace', () => {
    const row = `shop   1s   Normal   Nominated   Pod/${A}   Pod should schedule on: nodeclaim/default-x7k2p`;
    expect(placedPodOf(parseMessage(row, {})!)).toBe(`shop/${A}`);
    const bare = `1s   Normal   Scheduled   pod/${A}   Successfully assigned shop/${A} to ip-10-0-31-17`;
    expect(placedPodOf(parseMessage(bare, {})!)).toBe(A);
    expect(
      analyse([`shop   5s   Warning   FailedScheduling   Pod/${A}   ${INSUFFICIENT_CPU}`, bare]).incidents,
    ).toEqual([]);
  });

  it('while following a stream, releases a held failure once the records move a window past it', () => {
    const opened: string[] = [];
    const analyzer = new StreamingAnalyzer({
      cluster: 'prod',
      onChange: (_change, signal) => opened.push(signal.rule),
      resolution: { windowMs: 60_000 },
    });
    const stream = analyzer.stream();
    const push = (message: string) => stream.push({ message, origin: { file: 'events' } });
    push(failed(A, '2026-11-30T10:00:00Z'));
    push(failed(B, '2026-11-30T10:00:10Z'));
    push(nominated(B, '2026-11-30T10:00:11Z'));
    stream.flush();
    expect(opened).toEqual([]);
    push(scheduled('other-0', '2026-11-30T10:01:30Z'));
    stream.flush();
    expect(opened).toEqual(['scheduling-insufficient-resources']);
    const analysis = analyzer.finish();
    expect(analysis.incidents.map((i) => i.entities.pods)).toEqual([[`shop/${A}`]]);
    expect(analysis.stats.resolvedSignals).toBe(1);
  });
});

describe('bounded holding', () => {
  const at = (second: number) => new Date(Date.UTC(2026, 10, 30, 10, 0, second % 60, second)).toISOString();

  it('holds at most maxHeld failures: past it the oldest is released and counted, the rest still resolve', () => {
    const analyzer = new StreamingAnalyzer({ cluster: 'prod', resolution: { maxHeld: 100 } });
    const stream = analyzer.stream();
    const pod = (i: number) => `web-${i}`;
    for (let i = 0; i < 1000; i++) stream.push({ message: failed(pod(i), at(0)), origin: { file: 'events' } });
    for (let i = 0; i < 1000; i++) stream.push({ message: nominated(pod(i), at(1)), origin: { file: 'events' } });
    const analysis = analyzer.finish();
    // The 900 released before their nomination arrived were counted; the last 100 were resolved.
    expect(analysis.stats.resolvedSignals).toBe(100);
    expect(analysis.incidents.map((i) => [i.rule, i.occurrences])).toEqual([
      ['scheduling-insufficient-resources', 900],
    ]);
  });

  it('by default a long input of unresolved failures is not held to its end', () => {
    const opened: string[] = [];
    const analyzer = new StreamingAnalyzer({
      cluster: 'prod',
      onChange: (_change, signal) => opened.push(signal.rule),
    });
    const stream = analyzer.stream();
    // Far more failures than one delivery holds, none ever placed: they are released as they come.
    for (let i = 0; i < 10_050; i++) stream.push({ message: failed(`batch-${i}`, at(0)), origin: { file: 'events' } });
    stream.flush();
    expect([...new Set(opened)]).toEqual(['scheduling-insufficient-resources']);
    expect(analyzer.snapshot().incidents[0]!.occurrences).toBe(50);
    expect(analyzer.finish().incidents[0]!.occurrences).toBe(10_050);
  });

  it('holds at most DEFAULT_MAX_HELD_CHARS of record text: very long failures are released as they come', () => {
    const analyzer = new StreamingAnalyzer({ cluster: 'prod' });
    const stream = analyzer.stream();
    // 200 failures of 100,000 characters each (a scheduler message with a long tail), none placed.
    const tail = ` ${'x'.repeat(100_000)}`;
    for (let i = 0; i < 200; i++) {
      stream.push({ message: podEvent(`long-${i}`, 'FailedScheduling', INSUFFICIENT_CPU + tail, at(0)), origin: {} });
    }
    stream.flush();
    const heldAtMost = Math.floor(DEFAULT_MAX_HELD_CHARS / 100_000);
    expect(analyzer.snapshot().incidents[0]!.occurrences).toBeGreaterThanOrEqual(200 - heldAtMost);
    expect(analyzer.finish().incidents[0]!.occurrences).toBe(200);
  });

  it('a placement resolves only the failures still waiting for that pod, among many held', () => {
    const analysis = analyse(
      [
        ...Array.from({ length: 500 }, (_, i) => failed(`db-${i}`, '2026-11-30T10:00:00Z')),
        ...Array.from({ length: 500 }, (_, i) => (i % 2 === 0 ? nominated(`db-${i}`, '2026-11-30T10:00:01Z') : '')),
      ].filter(Boolean),
    );
    expect(analysis.stats.resolvedSignals).toBe(250);
    expect(analysis.incidents[0]!.occurrences).toBe(250);
  });
});
