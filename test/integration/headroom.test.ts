import type { DeliveredEvent, Notice } from './support/deploy';
import { ACCOUNT, REGION } from './support/moto';
import { CONFIGS, synthesize } from './support/stack';
import { useDeployment } from './support/use-deployment';
import { Network, scheduledEvent } from './support/world';

/**
 * The headroom check of the example configuration (warn below 64 free IPs, below 10 %, or when the
 * trend runs a subnet out within 6 hours; resolve after 60 quiet minutes), invoked as its schedule
 * would invoke it, at times the test chooses, while ENIs take the addresses of a Karpenter subnet.
 */
describe('the headroom check on a subnet losing IPs run after run', () => {
  const stack = synthesize(CONFIGS.example);
  const minutes = 60_000;
  const env = useDeployment(stack, 'once');

  it('forecasts the exhaustion before it happens, then resolves once the subnet has room again', async () => {
    const network = await Network.create(env.aws.clients.ec2);
    const subnet = await network.subnet('10.0.8.0/24', `${REGION}a`, { 'karpenter.sh/discovery': 'prod' });
    const headroom = env.aws.fn('Headroom');
    const taken = await network.consume(subnet, 11);
    const t0 = Date.now();
    const run = async (at: number) => {
      const invocation = await headroom.invoke(scheduledEvent(env.aws, at), { at });
      expect(invocation).toMatchObject({ ok: true });
      return { notices: await env.aws.notices.take(), events: await env.aws.events.take() };
    };

    // Ten addresses more every ten minutes: 240, 230, 220 free — plenty, and too few runs for a trend.
    for (const step of [0, 1, 2]) {
      if (step > 0) taken.push(...(await network.consume(subnet, 10)));
      expect((await run(t0 + step * 10 * minutes)).notices).toEqual([]);
    }

    // 210 free, far above every threshold, but at 60 an hour the subnet is out in about 3.5 hours.
    taken.push(...(await network.consume(subnet, 10)));
    const free = await network.freeIps(subnet);
    const warned = await run(t0 + 30 * minutes);
    expect(warned.notices).toHaveLength(1);
    const forecast = warned.notices[0]!.document!;
    expect(forecast).toMatchObject({ rule: 'subnet-ip-headroom-low', status: 'open', cluster: 'prod' });
    const facts = (forecast.context as { subnets: Array<Record<string, number | string>> }).subnets.find(
      (s) => s.subnetId === subnet,
    )!;
    expect(facts.availableIps).toBe(free);
    expect(free).toBeGreaterThan(64);
    expect(facts.hoursToExhaustion).toBeGreaterThan(0);
    expect(facts.hoursToExhaustion).toBeLessThanOrEqual(6);
    expect(warned.events.map((e) => e['detail-type'])).toEqual(['Karpenter Finding']);
    expect(warned.events[0]!.resources).toContain(`arn:aws:ec2:${REGION}:${ACCOUNT}:subnet/${subnet}`);

    // Still falling ten minutes later: the same incident, nothing new to tell.
    taken.push(...(await network.consume(subnet, 10)));
    expect((await run(t0 + 40 * minutes)).notices).toEqual([]);

    // The pods are gone and the subnet has room again. The check keeps running every ten minutes; once
    // the trend no longer points down and the incident has been quiet for the resolve window (60
    // minutes), exactly one resolved notice goes out, and nothing else on the way.
    await network.release(taken);
    const releasedAt = t0 + 50 * minutes;
    const told: Array<{ at: number; notices: Notice[]; events: DeliveredEvent[] }> = [];
    for (let at = releasedAt; at <= releasedAt + 4 * 60 * minutes && told.length === 0; at += 10 * minutes) {
      const { notices, events } = await run(at);
      if (notices.length > 0 || events.length > 0) told.push({ at, notices, events });
    }
    expect(told).toHaveLength(1);
    const resolved = told[0]!;
    expect(resolved.at - releasedAt).toBeGreaterThanOrEqual(60 * minutes);
    expect(resolved.notices).toHaveLength(1);
    expect(resolved.notices[0]!.document).toMatchObject({
      findingId: forecast.findingId,
      rule: 'subnet-ip-headroom-low',
      status: 'resolved',
    });
    expect(resolved.events.map((e) => e['detail-type'])).toEqual(['Karpenter Finding Resolved']);
    const after = await run(resolved.at + 10 * minutes);
    expect([...after.notices, ...after.events]).toEqual([]);
  });
});
