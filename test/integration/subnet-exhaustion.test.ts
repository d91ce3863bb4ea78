import { subnetExhaustionLine } from '../support/awslogs';
import type { DeliveredEvent } from './support/deploy';
import { ACCOUNT, REGION } from './support/moto';
import { CONFIGS, synthesize } from './support/stack';
import { useDeployment } from './support/use-deployment';
import { delivery, Network, fromKarpenterPod, scheduledEvent } from './support/world';

/**
 * The scenario of record, on the wire: the bundled analyzer of a real `cdk synth` of the example
 * configuration, against the emulator's EC2, DynamoDB, SNS and EventBridge, built from the template.
 */
describe('a subnet runs dry', () => {
  const stack = synthesize(CONFIGS.example);
  const logGroup = '/aws/containerinsights/prod/application';
  const discovery = { 'karpenter.sh/discovery': 'prod' };
  const env = useDeployment(stack);
  let network: Network;

  beforeEach(async () => {
    network = await Network.create(env.aws.clients.ec2);
  });

  const findingEvents = (events: DeliveredEvent[]) => events.filter((e) => e['detail-type'] === 'Karpenter Finding');

  it('sends one notice naming the subnet with its live free IPs and the room left in other zones, and one Finding event', async () => {
    const dry = await network.subnet('10.0.1.0/28', `${REGION}a`, discovery);
    await network.exhaust(dry); // nodes and pods took every address of the /28
    const roomy = await network.subnet('10.0.2.0/24', `${REGION}b`, discovery);
    await network.consume(roomy, 20);
    const [dryFree, roomyFree] = [await network.freeIps(dry), await network.freeIps(roomy)];
    expect(dryFree).toBe(0);

    const invocation = await env.aws
      .fn('Analyzer')
      .invoke(delivery(env.aws, logGroup, [fromKarpenterPod(subnetExhaustionLine(dry))], { owner: ACCOUNT }));

    expect(invocation).toMatchObject({ ok: true });
    const notices = await env.aws.notices.take();
    expect(notices).toHaveLength(1);
    const finding = notices[0]!.document!;
    expect(finding).toMatchObject({ rule: 'subnet-ip-exhaustion', status: 'open', cluster: 'prod' });
    expect(notices[0]!.attributes).toMatchObject({ rule: 'subnet-ip-exhaustion', cluster: 'prod' });
    const text = String(finding.diagnosis);
    expect(saysOf(text, dry)).toEqual(expect.arrayContaining([expect.stringMatching(standalone(dryFree))]));
    expect(saysOf(text, roomy)).toEqual(expect.arrayContaining([expect.stringMatching(standalone(roomyFree))]));

    const events = findingEvents(await env.aws.events.take());
    expect(events).toHaveLength(1);
    expect(events[0]!.resources).toEqual(
      expect.arrayContaining([
        `arn:aws:ec2:${REGION}:${ACCOUNT}:subnet/${dry}`,
        `arn:aws:eks:${REGION}:${ACCOUNT}:cluster/prod`,
      ]),
    );
    expect(events[0]!.detail).toMatchObject({ findingId: finding.findingId, rule: 'subnet-ip-exhaustion' });
  });

  it('sends nothing when the same delivery comes again', async () => {
    const dry = await network.subnet('10.0.1.0/28', `${REGION}a`, discovery);
    await network.exhaust(dry);
    const event = delivery(env.aws, logGroup, [fromKarpenterPod(subnetExhaustionLine(dry))], { owner: ACCOUNT });
    expect(await env.aws.fn('Analyzer').invoke(event)).toMatchObject({ ok: true });
    expect(await env.aws.notices.take()).toHaveLength(1);
    expect(findingEvents(await env.aws.events.take())).toHaveLength(1);

    expect(await env.aws.fn('Analyzer').invoke(event)).toMatchObject({ ok: true });

    expect(await env.aws.notices.take()).toEqual([]);
    expect(await env.aws.events.take()).toEqual([]);
  });

  it('escalates once when a second subnet of the same incident runs dry', async () => {
    const first = await network.subnet('10.0.1.0/28', `${REGION}a`, discovery);
    const second = await network.subnet('10.0.1.16/28', `${REGION}c`, discovery);
    await network.exhaust(first);
    await network.exhaust(second);
    const t0 = Date.now();
    const analyzer = env.aws.fn('Analyzer');
    await analyzer.invoke(
      delivery(env.aws, logGroup, [fromKarpenterPod(subnetExhaustionLine(first))], { owner: ACCOUNT, startMs: t0 }),
      {
        at: t0,
      },
    );
    const [opened] = await env.aws.notices.take();
    await env.aws.events.take();

    // Past the suppression window of the example configuration (5 minutes), new lines name the second subnet.
    const later = t0 + 6 * 60_000;
    const lines = [subnetExhaustionLine(second, 'default-k2x8p'), subnetExhaustionLine(first, 'default-q7m2d')];
    const again = await analyzer.invoke(
      delivery(env.aws, logGroup, lines.map(fromKarpenterPod), { owner: ACCOUNT, startMs: later, firstId: 100 }),
      { at: later },
    );

    expect(again).toMatchObject({ ok: true });
    const notices = await env.aws.notices.take();
    expect(notices).toHaveLength(1);
    const escalation = notices[0]!.document!;
    expect(escalation.findingId).toBe(opened!.document!.findingId);
    expect(escalation.status).toBe('ongoing');
    expect((escalation.entities as { subnets: string[] }).subnets).toEqual(expect.arrayContaining([first, second]));
    expect(findingEvents(await env.aws.events.take())).toHaveLength(1);

    // The same lines once more, a minute later: within the suppression window, nothing new to tell.
    await analyzer.invoke(
      delivery(env.aws, logGroup, lines.map(fromKarpenterPod), {
        owner: ACCOUNT,
        startMs: later + 60_000,
        firstId: 200,
      }),
      {
        at: later + 60_000,
      },
    );
    expect(await env.aws.notices.take()).toEqual([]);
  });

  it('stays one incident through the fix: no headroom page, one resolution with the free IPs now', async () => {
    const dry = await network.subnet('10.0.1.0/27', `${REGION}a`, discovery);
    const taken = await network.exhaust(dry);
    const t0 = Date.now();
    const minutes = 60_000;
    await env.aws
      .fn('Analyzer')
      .invoke(
        delivery(env.aws, logGroup, [fromKarpenterPod(subnetExhaustionLine(dry))], { owner: ACCOUNT, startMs: t0 }),
        {
          at: t0,
        },
      );
    const [opened] = await env.aws.notices.take();
    await env.aws.events.take();
    const headroom = env.aws.fn('Headroom');
    const run = async (at: number) => {
      expect(await headroom.invoke(scheduledEvent(env.aws, at), { at })).toMatchObject({ ok: true });
      return { notices: await env.aws.notices.take(), events: await env.aws.events.take() };
    };

    // Still dry ten minutes on: the open exhaustion incident already pages for this subnet.
    expect(await run(t0 + 10 * minutes)).toEqual({ notices: [], events: [] });

    // Fixed: every address back. The check runs every ten minutes; exactly one resolved notice, the
    // exhaustion incident's, naming the subnet with what EC2 now says is free.
    await network.release(taken);
    const free = await network.freeIps(dry);
    const told = [];
    for (let at = t0 + 20 * minutes; at <= t0 + 3 * 60 * minutes; at += 10 * minutes) {
      const { notices, events } = await run(at);
      told.push(...notices.map((n) => n.document!), ...events.map((e) => e['detail-type']));
    }
    expect(told).toHaveLength(2);
    expect(told[0]).toMatchObject({
      findingId: opened!.document!.findingId,
      rule: 'subnet-ip-exhaustion',
      status: 'resolved',
    });
    const facts = (told[0] as { context: { subnets: Array<{ subnetId: string; availableIps: number }> } }).context
      .subnets;
    expect(facts.find((s) => s.subnetId === dry)?.availableIps).toBe(free);
    expect(told[1]).toBe('Karpenter Finding Resolved');
  });
});

/** What the text says right after each mention of `subnet`, up to the next subnet id. */
function saysOf(text: string, subnet: string): string[] {
  return text
    .split(subnet)
    .slice(1)
    .map((rest) => rest.split(/subnet-[0-9a-f]+/)[0]!);
}

/** A count as a number of its own, not a digit of an address or CIDR. */
const standalone = (count: number): RegExp => new RegExp(`(?<![\\d.])${count}(?![\\d.])`);
