import { Aggregator, findingIdOf, MAX_EVIDENCE } from '../../../lambdas/core/incidents/aggregate';
import { classify } from '../../../lambdas/core/recognise/classify';
import { parseMessage } from '../../../lambdas/core/parse/parse-message';

const ice = (claim: string, type: string, time: string) =>
  JSON.stringify({
    level: 'ERROR',
    time,
    message: 'failed launching nodeclaim',
    NodeClaim: { name: claim },
    NodePool: { name: claim.split('-')[0] },
    error: `InsufficientInstanceCapacity: no ${type} capacity`,
  });
const signalsOf = (line: string, index = 0) =>
  classify(parseMessage(line, { logStream: 's', eventId: String(index) })!);

describe('Aggregator', () => {
  it('groups signals by cluster, rule and key entity, counting occurrences and first/last seen', () => {
    const aggregator = new Aggregator('prod');
    aggregator.addAll(signalsOf(ice('gpu-aaaaa', 'g5.xlarge', '2026-01-01T00:00:02Z')));
    aggregator.addAll(signalsOf(ice('gpu-bbbbb', 'g5.2xlarge', '2026-01-01T00:00:01Z')));
    aggregator.addAll(signalsOf(ice('web-ccccc', 'm5.large', '2026-01-01T00:00:03Z')));
    const incidents = aggregator.incidentsFound();
    expect(incidents.map((i) => [i.keyValue, i.occurrences])).toEqual([
      ['gpu', 2],
      ['web', 1],
    ]);
    const gpu = incidents[0]!;
    expect(gpu).toMatchObject({
      cluster: 'prod',
      rule: 'insufficient-instance-capacity',
      firstSeen: '2026-01-01T00:00:01.000Z',
      lastSeen: '2026-01-01T00:00:02.000Z',
    });
    expect(gpu.entities.instanceTypes).toEqual(['g5.2xlarge', 'g5.xlarge']);
    expect(gpu.findingId).toBe(findingIdOf('prod', 'insufficient-instance-capacity', 'gpu'));
  });

  it('keeps cluster-wide rules in one incident whose affected set grows', () => {
    const aggregator = new Aggregator('prod');
    for (const subnet of ['subnet-0aaaaaaaaaaaaaaaa', 'subnet-0bbbbbbbbbbbbbbbb']) {
      aggregator.addAll(
        signalsOf(`InsufficientFreeAddressesInSubnet: There are not enough free addresses in subnet '${subnet}'`),
      );
    }
    const [incident] = aggregator.incidentsFound();
    expect(incident!.keyValue).toBeUndefined();
    expect(incident!.entities.subnets).toEqual(['subnet-0aaaaaaaaaaaaaaaa', 'subnet-0bbbbbbbbbbbbbbbb']);
  });

  it(`keeps at most ${MAX_EVIDENCE} distinct, sanitised evidence lines with their origin`, () => {
    const aggregator = new Aggregator('prod');
    for (let i = 0; i < 10; i++)
      aggregator.addAll(
        signalsOf(
          ice(`gpu-${'abcde'[i % 5]!.repeat(5)}`, `g5.${i}xlarge\u001b[31m\r\nFORGED`, '2026-01-01T00:00:00Z'),
          i,
        ),
      );
    const [incident] = aggregator.incidentsFound();
    expect(incident!.occurrences).toBe(10);
    expect(incident!.evidence).toHaveLength(MAX_EVIDENCE);
    expect(incident!.evidence[0]).toMatchObject({
      logStream: 's',
      eventId: '0',
      timestamp: '2026-01-01T00:00:00.000Z',
    });
    for (const evidence of incident!.evidence) expect(evidence.message).not.toMatch(/[\u0000-\u001f]/);
  });

  it('orders incidents by severity, then occurrences', () => {
    const aggregator = new Aggregator('prod');
    aggregator.addAll(
      signalsOf("  Normal  Unconsolidatable  14m  karpenter  Can't replace a spot node with a spot node"),
    );
    aggregator.addAll(signalsOf('no subnets found'));
    expect(aggregator.incidentsFound().map((i) => i.rule)).toEqual([
      'subnet-or-security-group-not-found',
      'consolidation-blocked',
    ]);
  });

  it('derives stable ids that differ by cluster, rule and key', () => {
    const id = findingIdOf('a', 'oom-killed', 'x');
    expect(id).toMatch(/^[0-9a-f]{24}$/);
    expect(findingIdOf('a', 'oom-killed', 'x')).toBe(id);
    expect(
      new Set([
        id,
        findingIdOf('b', 'oom-killed', 'x'),
        findingIdOf('a', 'node-not-ready', 'x'),
        findingIdOf('a', 'oom-killed', 'y'),
      ]).size,
    ).toBe(4);
  });
});
