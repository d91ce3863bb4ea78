import { DescribeSubnetsCommand, DescribeVpcsCommand, EC2ServiceException } from '@aws-sdk/client-ec2';
import { PublishCommand } from '@aws-sdk/client-sns';
import { BatchGetCommand, GetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { IncidentStore } from '../../lambdas/adapters/incident-store';
import { findingIdOf, type Incident } from '../../lambdas/core/incidents/aggregate';
import { DEFAULT_POLICY } from '../../lambdas/core/incidents/lifecycle';
import { checkHeadroom, type HeadroomDeps } from '../../lambdas/handlers/headroom';
import { testClients, testSettings } from '../support/aws';
import { findingOf, useHandlerHarness } from '../support/handler-harness';

const aws = useHandlerHarness();
const { ec2, sns } = aws;

const MINUTE = 60_000;
const T0 = Date.parse('2026-11-28T00:00:00Z');
const context = { invokedFunctionArn: 'arn:aws:lambda:eu-west-1:111122223333:function:karpenter-doctor-headroom' };

let clock: number;
/** Free IPs the next DescribeSubnets reports for subnet-a; subnet-b stays roomy. */
let freeA: number;

beforeEach(() => {
  clock = T0;
  freeA = 200;
  ec2.on(DescribeSubnetsCommand).callsFake(() => ({
    Subnets: [
      {
        SubnetId: 'subnet-a',
        AvailabilityZone: 'eu-west-1a',
        VpcId: 'vpc-1',
        CidrBlock: '10.0.0.0/24',
        AvailableIpAddressCount: freeA,
      },
      {
        SubnetId: 'subnet-b',
        AvailabilityZone: 'eu-west-1b',
        VpcId: 'vpc-1',
        CidrBlock: '10.0.1.0/24',
        AvailableIpAddressCount: 180,
      },
    ],
  }));
  ec2.on(DescribeVpcsCommand).resolves({ Vpcs: [{ VpcId: 'vpc-1', CidrBlock: '10.0.0.0/16' }] });
});

function deps(): HeadroomDeps {
  const settings = {
    ...testSettings(aws.tableName),
    thresholds: { minFreeIps: 64, minFreePercent: 10, horizonHours: 6 },
  };
  return aws.deps(settings, () => clock);
}

/** Runs the schedule `times` times, five minutes apart, with `free` IPs left in subnet-a. */
async function runs(times: number, free: number | (() => void), shared = deps()) {
  const results = [];
  for (let i = 0; i < times; i++) {
    if (typeof free === 'number') freeA = free;
    else free();
    results.push(await checkHeadroom({ scheduledTime: new Date(clock).toISOString() }, context, shared));
    clock += 5 * MINUTE;
  }
  return results;
}

/** A subnet's history as stored in the table. */
async function storedHistory(subnet: string): Promise<unknown[] | undefined> {
  const { Item } = await aws.dynamo.doc.send(
    new GetCommand({ TableName: aws.tableName, Key: { pk: `history#prod#${subnet}` } }),
  );
  return Item?.samples as unknown[] | undefined;
}

/**
 * The local table, except that BatchGetItem leaves the history key of `subnet` unprocessed on every
 * attempt, in DynamoDB's response shape, as when it throttles part of a batch.
 */
function unprocessedHistoryOf(doc: DynamoDBDocumentClient, subnet: string): DynamoDBDocumentClient {
  const tableName = aws.tableName;
  const send = async (command: unknown): Promise<unknown> => {
    if (!(command instanceof BatchGetCommand)) return doc.send(command as never);
    const request = command.input.RequestItems![tableName]!;
    const left = request.Keys!.filter((key) => String(key.pk).endsWith(`#${subnet}`));
    const asked = request.Keys!.filter((key) => !left.includes(key));
    const read = asked.length
      ? await doc.send(new BatchGetCommand({ RequestItems: { [tableName]: { ...request, Keys: asked } } }))
      : { Responses: { [tableName]: [] }, $metadata: {} };
    return { ...read, UnprocessedKeys: left.length ? { [tableName]: { Keys: left } } : {} };
  };
  return new Proxy(doc, { get: (target, name) => (name === 'send' ? send : Reflect.get(target, name)) });
}

const published = () => aws.published();
const detailTypes = () => aws.entries().map((e) => e.DetailType);

describe('headroom check', () => {
  it('raises exactly one finding when a subnet crosses the threshold, and stays quiet while it stays low', async () => {
    const shared = deps();
    await runs(3, 200, shared);
    expect(sns).not.toHaveReceivedCommand(PublishCommand);

    await runs(6, 30, shared);

    const findings = published();
    expect(findings).toHaveLength(1);
    expect(findings[0]).toMatchObject({
      rule: 'subnet-ip-headroom-low',
      status: 'open',
      cluster: 'prod',
      entities: { subnets: ['subnet-a'], zones: ['eu-west-1a'] },
    });
    expect(findings[0]!.context.subnets?.map((s) => s.subnetId)).toEqual(['subnet-a', 'subnet-b']);
    expect(findings[0]!.context.zones).toHaveLength(2);
    expect(findings[0]!.diagnosis).toContain('subnet-b (eu-west-1b): 180 free');
  });

  it('warns of a steady decline before any threshold is crossed', async () => {
    let free = 250;
    await runs(8, () => {
      freeA = free;
      free -= 12;
    });

    const [finding] = published();
    expect(finding?.evidence[0]?.message).toMatch(
      /falling 144 an hour, out in about 1\.\d h: runs out within 6 h at this trend/,
    );
    expect(finding?.context.subnets?.find((s) => s.subnetId === 'subnet-a')?.hoursToExhaustion).toBeLessThan(6);
  });

  it('sends exactly one resolved notice once the subnet has recovered and stayed quiet for the window', async () => {
    const shared = deps();
    await runs(2, 30, shared);
    await runs(30, 200, shared);

    const resolved = published().filter((f) => f.status === 'resolved');
    expect(resolved).toHaveLength(1);
    expect(resolved[0]?.rule).toBe('subnet-ip-headroom-low');
    expect(detailTypes().filter((t) => t === 'Karpenter Finding Resolved')).toHaveLength(1);
    const email = JSON.parse(sns.commandCalls(PublishCommand).at(-1)!.args[0].input.Message!).email as string;
    expect(email).toMatch(/^RESOLVED /);
    // Re-read at resolution: the subject names the zone with its free IPs now.
    expect(sns.commandCalls(PublishCommand).at(-1)!.args[0].input.Subject).toMatch(
      /^RESOLVED prod: subnets low on IPs eu-west-1a 200\/251 /,
    );
    expect(email).toContain('subnet-a (eu-west-1a): 200 of 251 IPs free now');
    expect(email).not.toContain('subnet-b');
  });

  it('treats a throttled DescribeSubnets as a gap, never as a recovery', async () => {
    const shared = deps();
    await runs(2, 30, shared);
    ec2.on(DescribeSubnetsCommand).rejects(
      new EC2ServiceException({
        name: 'RequestLimitExceeded',
        $fault: 'client',
        $metadata: {},
        message: 'Request limit exceeded.',
      }),
    );

    const gaps = await runs(30, 30, shared);

    expect(gaps.every((r) => r.gaps.includes('prod'))).toBe(true);
    expect(published().filter((f) => f.status === 'resolved')).toEqual([]);
  });

  it('resolves an analyzer incident that has been quiet for the window, once', async () => {
    const store = new IncidentStore(aws.dynamo.doc, aws.tableName);
    const incident: Incident = {
      findingId: 'f-quota',
      cluster: 'prod',
      rule: 'ec2-quota-exceeded',
      occurrences: 12,
      firstSeen: '2026-11-27T23:10:00.000Z',
      lastSeen: '2026-11-27T23:55:00.000Z',
      entities: { quotas: ['VcpuLimitExceeded'] },
      evidence: [{ message: 'VcpuLimitExceeded' }],
    };
    await store.record([{ incident, severity: 'high' }], 'b1', T0 - 10 * MINUTE, DEFAULT_POLICY);
    await store.markPublished('f-quota', 1, ['sns', 'events']);
    const shared = deps();

    await runs(10, 200, shared);
    await runs(10, 200, shared);

    const resolved = published().filter((f) => f.status === 'resolved');
    expect(resolved.map((f) => f.findingId)).toEqual(['f-quota']);
    expect(resolved[0]?.occurrences).toBe(12);
    expect((await store.get('f-quota'))?.status).toBe('resolved');
  });

  it('finishes a resolved notice whose publish failed on the next run, without resolving twice', async () => {
    const store = new IncidentStore(aws.dynamo.doc, aws.tableName);
    await store.record(
      [
        {
          incident: {
            findingId: 'f-x',
            cluster: 'prod',
            rule: 'oom-killed',
            occurrences: 1,
            entities: {},
            evidence: [],
          },
          severity: 'medium',
        },
      ],
      'b1',
      T0 - 2 * DEFAULT_POLICY.resolveAfterMs,
      DEFAULT_POLICY,
    );
    await store.markPublished('f-x', 1, ['sns', 'events']);
    sns.on(PublishCommand).rejectsOnce(new Error('throttled')).resolves({ MessageId: 'm-2' });
    const shared = deps();

    await expect(checkHeadroom({}, context, shared)).rejects.toThrow('could not publish 1 notification channel');
    clock += 5 * MINUTE;
    await checkHeadroom({}, context, shared);
    clock += 5 * MINUTE;
    await checkHeadroom({}, context, shared);

    expect(sns).toHaveReceivedCommandTimes(PublishCommand, 2);
    expect(detailTypes()).toEqual(['Karpenter Finding Resolved']);
  });

  it('keeps a history DynamoDB leaves unread as it was, and judges that subnet on its count alone', async () => {
    const shared = deps();
    await runs(6, 200, shared);
    const before = await storedHistory('subnet-a');
    expect(before).toHaveLength(6);

    const throttled = { ...shared, clients: testClients(unprocessedHistoryOf(aws.dynamo.doc, 'subnet-a')) };
    const [result] = await runs(1, 40, throttled);

    expect(result?.unreadHistories).toEqual(['prod/subnet-a']);
    expect(await storedHistory('subnet-a')).toEqual(before);
    expect(await storedHistory('subnet-b')).toHaveLength(7);
    expect(published().map((f) => f.evidence[0]?.message)).toEqual([
      'subnet-a (eu-west-1a): 40 of 251 IPs free: under the minimum of 64 free',
    ]);

    await runs(1, 40, shared);
    expect(await storedHistory('subnet-a')).toHaveLength(7);
  });
});

/**
 * The exhaustion incident the analyzer opens for `InsufficientFreeAddressesInSubnet` on subnet-a, as
 * it records it (same id, same entities), counted `at` and notified.
 */
async function exhaustionOpenedAt(at: number): Promise<{ store: IncidentStore; findingId: string }> {
  const store = new IncidentStore(aws.dynamo.doc, aws.tableName);
  const findingId = findingIdOf('prod', 'subnet-ip-exhaustion', undefined);
  const incident: Incident = {
    findingId,
    cluster: 'prod',
    rule: 'subnet-ip-exhaustion',
    occurrences: 4,
    firstSeen: new Date(at - 2 * MINUTE).toISOString(),
    lastSeen: new Date(at).toISOString(),
    entities: { subnets: ['subnet-a'], zones: ['eu-west-1a'] },
    evidence: [
      {
        message:
          "InsufficientFreeAddressesInSubnet: There are not enough free addresses in subnet 'subnet-a' to satisfy the requested number of instances.",
      },
    ],
  };
  await store.record([{ incident, severity: 'critical' }], 'b-exhaustion', at, DEFAULT_POLICY);
  await store.markPublished(findingId, 1, ['sns', 'events']);
  return { store, findingId };
}

const emailOf = (call: number) =>
  JSON.parse(sns.commandCalls(PublishCommand).at(call)!.args[0].input.Message!).email as string;

describe('headroom check beside an exhaustion incident of the same subnets', () => {
  it('raises no second page for subnets an open exhaustion incident already names', async () => {
    await exhaustionOpenedAt(T0 - 5 * MINUTE);
    const shared = deps();

    const [result] = await runs(3, 30, shared);

    expect(result?.notified).toEqual([]);
    expect(sns).not.toHaveReceivedCommand(PublishCommand);
    expect(detailTypes()).toEqual([]);
  });

  it('reminds of the exhaustion incident it holds open, on the re-notify interval', async () => {
    const { findingId } = await exhaustionOpenedAt(T0 - 5 * MINUTE);
    const shared = deps();

    // Six hours and a run of a subnet that stays dry, with no new line from the logs.
    const results = await runs(74, 0, shared);

    expect(results.flatMap((r) => r.reminded)).toEqual([findingId]);
    expect(published().map((f) => [f.rule, f.status])).toEqual([['subnet-ip-exhaustion', 'ongoing']]);
  });

  it('still pages for a low subnet the exhaustion incident does not name', async () => {
    await exhaustionOpenedAt(T0 - 5 * MINUTE);
    ec2.on(DescribeSubnetsCommand).resolves({
      Subnets: [
        {
          SubnetId: 'subnet-a',
          AvailabilityZone: 'eu-west-1a',
          VpcId: 'vpc-1',
          CidrBlock: '10.0.0.0/24',
          AvailableIpAddressCount: 3,
        },
        {
          SubnetId: 'subnet-b',
          AvailabilityZone: 'eu-west-1b',
          VpcId: 'vpc-1',
          CidrBlock: '10.0.1.0/24',
          AvailableIpAddressCount: 20,
        },
      ],
    });

    await runs(1, 3, deps());

    expect(published().map((f) => [f.rule, f.entities.subnets])).toEqual([['subnet-ip-headroom-low', ['subnet-b']]]);
  });

  it('keeps the exhaustion incident open while its subnet is still low, then resolves it once with the free IPs now', async () => {
    const { store, findingId } = await exhaustionOpenedAt(T0 - 5 * MINUTE);
    const shared = deps();

    await runs(20, 30, shared);
    expect((await store.get(findingId))?.status).toBe('open');

    await runs(3, 200, shared);

    expect(published().map((f) => [f.rule, f.status])).toEqual([['subnet-ip-exhaustion', 'resolved']]);
    expect(emailOf(-1)).toContain('subnet-a (eu-west-1a): 200 of 251 IPs free now');
    expect(detailTypes()).toEqual(['Karpenter Finding Resolved']);
    await runs(20, 200, shared);
    expect(sns).toHaveReceivedCommandTimes(PublishCommand, 1);
  });
});

describe('the resolution of an exhaustion incident with a headroom warning open on its subnets', () => {
  /** A headroom warning on subnet-a first (its own page), then the analyzer's exhaustion incident. */
  async function warnedThenExhausted(shared: HeadroomDeps) {
    await runs(2, 30, shared);
    const warning = published()[0]!;
    const opened = await exhaustionOpenedAt(clock);
    return { ...opened, warning };
  }

  it('closes the warning in the same resolved notice, with its event, and pages nothing more', async () => {
    const shared = deps();
    const { store, findingId, warning } = await warnedThenExhausted(shared);
    expect(warning.rule).toBe('subnet-ip-headroom-low');

    await runs(6, 30, shared);
    expect(sns).toHaveReceivedCommandTimes(PublishCommand, 1);
    await runs(20, 200, shared);

    const notices = published();
    expect(notices.map((f) => [f.rule, f.status])).toEqual([
      ['subnet-ip-headroom-low', 'open'],
      ['subnet-ip-exhaustion', 'resolved'],
    ]);
    const email = emailOf(-1);
    expect(email).toContain('subnet-a (eu-west-1a): 200 of 251 IPs free now');
    expect(email).toMatch(
      new RegExp(`closes +the warning "subnets low on IPs" on the same subnets.*${warning.findingId}`),
    );
    const resolvedEvents = aws.entries().filter((e) => e.DetailType === 'Karpenter Finding Resolved');
    expect(resolvedEvents.map((e) => JSON.parse(e.Detail!).findingId).sort()).toEqual(
      [findingId, warning.findingId].sort(),
    );
    expect((await store.get(warning.findingId))?.status).toBe('resolved');
  });

  it('publishes the resolution once when its first publish fails and the next run retries it', async () => {
    const shared = deps();
    const { warning } = await warnedThenExhausted(shared);
    let failed = false;
    sns.on(PublishCommand).callsFake(() => {
      if (failed) return { MessageId: 'm-2' };
      failed = true;
      throw new Error('Rate exceeded');
    });

    const outcomes: string[] = [];
    for (let i = 0; i < 24; i++) {
      freeA = 200;
      await checkHeadroom({ scheduledTime: new Date(clock).toISOString() }, context, shared).then(
        () => outcomes.push('ok'),
        () => outcomes.push('failed'),
      );
      clock += 5 * MINUTE;
    }

    expect(outcomes.filter((o) => o === 'failed')).toHaveLength(1);
    const calls = sns.commandCalls(PublishCommand).map((c) => findingOf(c.args[0].input));
    // The warning's page, the failed resolution, its retry: one resolved notice delivered.
    expect(calls.map((f) => [f.rule, f.status])).toEqual([
      ['subnet-ip-headroom-low', 'open'],
      ['subnet-ip-exhaustion', 'resolved'],
      ['subnet-ip-exhaustion', 'resolved'],
    ]);
    const resolvedIds = aws
      .entries()
      .filter((e) => e.DetailType === 'Karpenter Finding Resolved')
      .map((e) => JSON.parse(e.Detail!).findingId as string);
    expect(resolvedIds.filter((id) => id === warning.findingId)).toHaveLength(1);
    expect(resolvedIds).toHaveLength(2);
    expect(emailOf(-1)).toContain(`(finding ${warning.findingId})`);
  });

  it('still resolves, saying which free IPs it could not read, when DescribeSubnets is denied', async () => {
    const { store, findingId } = await exhaustionOpenedAt(T0 - 5 * MINUTE);
    ec2.on(DescribeSubnetsCommand).rejects(
      new EC2ServiceException({
        name: 'UnauthorizedOperation',
        $fault: 'client',
        $metadata: {},
        message: 'You are not authorized to perform this operation.',
      }),
    );

    await runs(14, 0, deps());

    expect(published().map((f) => [f.rule, f.status])).toEqual([['subnet-ip-exhaustion', 'resolved']]);
    expect(emailOf(-1)).toMatch(
      /subnet-a: free IPs now not known \(ec2:DescribeSubnets: access denied \(UnauthorizedOperation\)/,
    );
    expect((await store.get(findingId))?.status).toBe('resolved');
  });
});
