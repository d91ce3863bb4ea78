import { AutoScalingClient } from '@aws-sdk/client-auto-scaling';
import { DescribeSubnetsCommand, DescribeVpcsCommand, EC2ServiceException } from '@aws-sdk/client-ec2';
import { EKSClient } from '@aws-sdk/client-eks';
import { PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { ServiceQuotasClient } from '@aws-sdk/client-service-quotas';
import { PublishCommand } from '@aws-sdk/client-sns';
import { mockClient } from 'aws-sdk-client-mock';
import 'aws-sdk-client-mock-jest';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { IncidentStore } from '../../lambdas/adapters/incident-store';
import { findingIdOf } from '../../lambdas/core/incidents/aggregate';
import { DEFAULT_POLICY } from '../../lambdas/core/incidents/lifecycle';
import { analyzeSubscription, PublishError, type AnalyzerDeps } from '../../lambdas/handlers/analyzer';
import type { AwsClients } from '../../lambdas/shared/aws-clients';
import { awslogsEvent, controlMessageEvent, subnetExhaustionLine } from '../support/awslogs';
import { testSettings } from '../support/aws';
import { useHandlerHarness } from '../support/handler-harness';
import { failedSchedulingEvent } from '../support/kube-events';

const aws = useHandlerHarness();
const { ec2, sns, events } = aws;
const eks = mockClient(EKSClient);
const autoScaling = mockClient(AutoScalingClient);
const serviceQuotas = mockClient(ServiceQuotasClient);

const SUBNET_A = 'subnet-0a1b2c3d4e5f60718';
const SUBNET_B = 'subnet-0b2c3d4e5f6071829';
const SUBNET_C = 'subnet-0c3d4e5f607182930';
const FUNCTION_ARN = 'arn:aws:lambda:eu-west-1:111122223333:function:karpenter-doctor-analyzer';
const T0 = Date.parse('2026-11-28T02:21:00Z');

/** A real v0.37 line (test/fixtures/karpenter-samples.jsonl, ref-014): the vCPU quota stops a GPU launch. */
const QUOTA_LINE =
  '{"level":"ERROR","time":"2024-08-20T09:59:06.590Z","logger":"controller","message":"failed launching nodeclaim","commit":"490ef94","controller":"nodeclaim.lifecycle","controllerGroup":"karpenter.sh","controllerKind":"NodeClaim","NodeClaim":{"name":"g5-gpu-karpenter-hmqzq"},"namespace":"","name":"g5-gpu-karpenter-hmqzq","reconcileID":"4a779644-e7cf-40d3-9023-ef27fd61d457","error":"creating instance, insufficient capacity, with fleet error(s), VcpuLimitExceeded: You have requested more vCPU capacity than your current vCPU limit of 64 allows for the instance bucket that the specified instance type belongs to. Please visit http://aws.amazon.com/contact-us/ec2-request to request an adjustment to this limit."}';

const HEALTHY_LINE =
  '{"level":"INFO","time":"2026-11-28T02:20:41.000Z","logger":"controller","message":"found provisionable pod(s)","commit":"0871602","controller":"provisioner","Pods":"default/inflate-5d8c8c7b9-abcde","duration":"12.3ms"}';

/** Response shape of ec2:DescribeSubnets (EC2 API reference, Subnet). */
const subnet = (id: string, zone: string, free: number, cidr = '10.0.32.0/24') => ({
  SubnetId: id,
  AvailabilityZone: zone,
  VpcId: 'vpc-0123456789abcdef0',
  CidrBlock: cidr,
  AvailableIpAddressCount: free,
  State: 'available' as const,
  Tags: [{ Key: 'karpenter.sh/discovery', Value: 'prod' }],
});

let clock: number;

beforeEach(() => {
  for (const mock of [eks, autoScaling, serviceQuotas]) mock.reset();
  clock = T0;
  ec2.on(DescribeSubnetsCommand).resolves({
    Subnets: [
      subnet(SUBNET_A, 'eu-west-1a', 0),
      subnet(SUBNET_B, 'eu-west-1b', 3, '10.0.33.0/24'),
      subnet(SUBNET_C, 'eu-west-1c', 118, '10.0.34.0/24'),
    ],
  });
  ec2.on(DescribeVpcsCommand).resolves({
    Vpcs: [
      {
        VpcId: 'vpc-0123456789abcdef0',
        CidrBlock: '10.0.0.0/16',
        CidrBlockAssociationSet: [
          { AssociationId: 'vpc-cidr-assoc-1', CidrBlock: '10.0.0.0/16', CidrBlockState: { State: 'associated' } },
        ],
      },
    ],
  });
});

function deps(overrides: Partial<AnalyzerDeps> = {}): AnalyzerDeps {
  return { ...aws.deps(testSettings(aws.tableName), () => clock), ...overrides };
}

/** Clusters quiet and loud, each tied to its deliveries by its log group. */
const twoClusters = () => ({
  ...testSettings(aws.tableName),
  clusters: ['quiet', 'loud'].map((name) => ({ name, logGroups: [`/eks/${name}/karpenter`] })),
});

const context = { invokedFunctionArn: FUNCTION_ARN, getRemainingTimeInMillis: () => 60_000 };

const published = () => aws.published();
const eventEntries = () => aws.entries();

describe('analyzer handler', () => {
  it('counts failure-shaped lines no rule knows in a metric and its log, and notifies nothing', async () => {
    const shared = deps();
    const metric = jest.spyOn(shared.metrics, 'addMetric');
    const info = jest.spyOn(shared.logger, 'info');
    const unknown = (claim: string) =>
      JSON.stringify({ level: 'ERROR', message: 'failed to reconcile widget', error: `widget for ${claim} missing` });
    const result = await analyzeSubscription(
      awslogsEvent([unknown('default-x7k2p'), unknown('default-b9zzq'), HEALTHY_LINE]),
      context,
      shared,
    );

    expect(result.outcome).toBe('no-findings');
    expect(metric).toHaveBeenCalledWith('UnrecognisedRecords', 'Count', 2);
    expect(info).toHaveBeenCalledWith('Unrecognised failure-shaped records', {
      count: 2,
      top: [{ message: 'failed to reconcile widget: widget for default-<x> missing', count: 2 }],
    });
    expect(sns).not.toHaveReceivedCommand(PublishCommand);
  });

  it('publishes one notification and one event when the same payload is delivered twice', async () => {
    const event = awslogsEvent([subnetExhaustionLine(SUBNET_A), HEALTHY_LINE]);
    const shared = deps();

    const first = await analyzeSubscription(event, context, shared);
    clock += 30_000;
    const second = await analyzeSubscription(event, context, shared);

    expect(first.outcome).toBe('processed');
    expect(second.outcome).toBe('duplicate');
    expect(sns).toHaveReceivedCommandTimes(PublishCommand, 1);
    expect(eventEntries()).toHaveLength(1);
  });

  it('notifies once for 1,000 lines of one incident over 10 invocations and counts all of them', async () => {
    const shared = deps();
    for (let batch = 0; batch < 10; batch++) {
      const lines = Array.from({ length: 100 }, (_, i) => subnetExhaustionLine(SUBNET_A, `default-${batch}x${i}`));
      await analyzeSubscription(awslogsEvent(lines, { firstId: batch * 100 + 1 }), context, shared);
      clock += 60_000;
    }

    expect(sns).toHaveReceivedCommandTimes(PublishCommand, 1);
    const stored = await new IncidentStore(aws.dynamo.doc, aws.tableName).get(
      findingIdOf('prod', 'subnet-ip-exhaustion', undefined),
    );
    expect(stored?.occurrences).toBe(1000);
    expect(stored?.notified?.generation).toBe(1);
  });

  it('re-notifies naming both subnets when a second subnet runs dry in the same cluster', async () => {
    const shared = deps();
    await analyzeSubscription(awslogsEvent([subnetExhaustionLine(SUBNET_A)], { firstId: 1 }), context, shared);
    clock += 10 * 60_000;
    await analyzeSubscription(awslogsEvent([subnetExhaustionLine(SUBNET_B)], { firstId: 2 }), context, shared);

    const [first, second] = published();
    expect(first?.status).toBe('open');
    expect(first?.entities.subnets).toEqual([SUBNET_A]);
    expect(second?.status).toBe('ongoing');
    expect(second?.entities.subnets).toEqual([SUBNET_A, SUBNET_B].sort());
    expect(second?.occurrences).toBe(2);
    const email = JSON.parse(sns.commandCalls(PublishCommand)[1]!.args[0].input.Message!).email as string;
    expect(email).toContain(SUBNET_A);
    expect(email).toContain(SUBNET_B);
  });

  it('does not re-notify an ongoing incident whose affected set did not grow', async () => {
    const shared = deps();
    await analyzeSubscription(awslogsEvent([subnetExhaustionLine(SUBNET_A)], { firstId: 1 }), context, shared);
    clock += 10 * 60_000;
    const result = await analyzeSubscription(
      awslogsEvent([subnetExhaustionLine(SUBNET_A)], { firstId: 2 }),
      context,
      shared,
    );

    expect(result.suppressed).toBe(1);
    expect(sns).toHaveReceivedCommandTimes(PublishCommand, 1);
  });

  it('publishes the finding with the enrichment error when DescribeSubnets is throttled', async () => {
    ec2.on(DescribeSubnetsCommand).rejects(
      new EC2ServiceException({
        name: 'RequestLimitExceeded',
        $fault: 'client',
        $metadata: { httpStatusCode: 503 },
        message: 'Request limit exceeded.',
      }),
    );

    await analyzeSubscription(awslogsEvent([subnetExhaustionLine(SUBNET_A)]), context, deps());

    const [finding] = published();
    expect(finding?.rule).toBe('subnet-ip-exhaustion');
    expect(finding?.context.enrichmentErrors).toEqual([
      expect.objectContaining({ source: 'ec2:DescribeSubnets', message: expect.stringContaining('throttled') }),
    ]);
    expect(eventEntries()).toHaveLength(1);
  });

  it('adds live subnet, zone and VPC facts to a finding when the calls succeed', async () => {
    await analyzeSubscription(awslogsEvent([subnetExhaustionLine(SUBNET_A)]), context, deps());

    const [finding] = published();
    expect(finding?.context.subnets?.find((s) => s.subnetId === SUBNET_A)).toMatchObject({
      availableIps: 0,
      totalIps: 251,
      availabilityZone: 'eu-west-1a',
    });
    expect(finding?.context.zones).toHaveLength(3);
    expect(finding?.context.vpcs).toEqual([
      { vpcId: 'vpc-0123456789abcdef0', cidrBlocks: ['10.0.0.0/16'], cidrSlotsLeft: 4 },
    ]);
    expect(finding?.account).toBe('111122223333');
    expect(finding?.region).toBe('eu-west-1');
  });

  it('resends only the entry that PutEvents reported as failed', async () => {
    events
      .on(PutEventsCommand)
      .resolvesOnce({
        FailedEntryCount: 1,
        Entries: [{ EventId: 'evt-0' }, { ErrorCode: 'InternalFailure', ErrorMessage: 'Internal failure' }],
      })
      .resolves({ FailedEntryCount: 0, Entries: [{ EventId: 'evt-1' }] });

    const result = await analyzeSubscription(
      awslogsEvent([subnetExhaustionLine(SUBNET_A), QUOTA_LINE]),
      context,
      deps(),
    );

    const calls = events.commandCalls(PutEventsCommand);
    expect(calls).toHaveLength(2);
    const firstEntries = calls[0]!.args[0].input.Entries!;
    expect(firstEntries).toHaveLength(2);
    expect(calls[1]!.args[0].input.Entries).toEqual([firstEntries[1]]);
    expect(result.notified).toHaveLength(2);
  });

  it('fails the invocation when SNS fails, and its retry publishes exactly once without repeating the event', async () => {
    sns
      .on(PublishCommand)
      .rejectsOnce(new Error('KMS key is disabled'))
      .resolves({ MessageId: 'c0ffee00-0000-4000-8000-000000000002' });
    const event = awslogsEvent([subnetExhaustionLine(SUBNET_A)]);
    const shared = deps();

    await expect(analyzeSubscription(event, context, shared)).rejects.toBeInstanceOf(PublishError);
    clock += 60_000;
    const retry = await analyzeSubscription(event, context, shared);
    clock += 60_000;
    const redelivery = await analyzeSubscription(event, context, shared);

    expect(retry.outcome).toBe('processed');
    expect(redelivery.outcome).toBe('duplicate');
    expect(sns).toHaveReceivedCommandTimes(PublishCommand, 2);
    expect(eventEntries()).toHaveLength(1);
    const stored = await new IncidentStore(aws.dynamo.doc, aws.tableName).get(
      findingIdOf('prod', 'subnet-ip-exhaustion', undefined),
    );
    expect(stored?.occurrences).toBe(1);
  });

  it('counts a Kubernetes event at count 31, then 32 in a later delivery, as 32 occurrences, notified once', async () => {
    // The event exporter ships each update of one Event (same uid, count rising) as it happens.
    const failedScheduling = (count: number) =>
      failedSchedulingEvent(count, { lastTimestamp: `2026-11-28T02:${count}:00Z` });
    sns
      .on(PublishCommand)
      .rejectsOnce(new Error('KMS key is disabled'))
      .resolves({ MessageId: 'c0ffee00-0000-4000-8000-000000000003' });
    const first = awslogsEvent([failedScheduling(31)], {
      firstId: 1,
      logGroup: '/eks/prod/karpenter',
    });
    const second = awslogsEvent([failedScheduling(32)], { firstId: 2 });
    const shared = deps();

    await expect(analyzeSubscription(first, context, shared)).rejects.toBeInstanceOf(PublishError);
    clock += 60_000;
    await analyzeSubscription(first, context, shared);
    clock += 60_000;
    const later = await analyzeSubscription(second, context, shared);
    clock += 60_000;
    const again = await analyzeSubscription(second, context, shared);

    expect(later.outcome).toBe('processed');
    expect(again.outcome).toBe('duplicate');
    expect(sns).toHaveReceivedCommandTimes(PublishCommand, 2);
    const [notice] = published();
    expect(notice).toMatchObject({ rule: 'scheduling-insufficient-resources', occurrences: 31 });
    expect(JSON.parse(sns.commandCalls(PublishCommand)[1]!.args[0].input.Message!).email).toContain('31 occurrences');
    const stored = await new IncidentStore(aws.dynamo.doc, aws.tableName).get(notice!.findingId);
    expect(stored?.occurrences).toBe(32);
  });

  it('treats a CONTROL_MESSAGE as a successful no-op', async () => {
    const result = await analyzeSubscription(controlMessageEvent(), context, deps());

    expect(result.outcome).toBe('control');
    expect(sns).not.toHaveReceivedCommand(PublishCommand);
    expect(events).not.toHaveReceivedCommand(PutEventsCommand);
  });

  it.each([
    ['no awslogs key', { Records: [] }],
    ['data that is not base64', { awslogs: { data: '%%% not base64 %%%' } }],
    ['base64 that is not gzip', { awslogs: { data: Buffer.from('plain text').toString('base64') } }],
    ['null', null],
  ])('counts an undecodable payload (%s) without throwing', async (_name, event) => {
    const result = await analyzeSubscription(event, context, deps());

    expect(result).toMatchObject({ outcome: 'malformed', malformed: 1 });
    expect(sns).not.toHaveReceivedCommand(PublishCommand);
  });

  it('touches no AWS client for a batch without a finding', async () => {
    const touched: string[] = [];
    const base = deps();
    const clients = new Proxy(base.clients, {
      get(target, key) {
        touched.push(String(key));
        return target[key as keyof AwsClients];
      },
    });

    const result = await analyzeSubscription(awslogsEvent([HEALTHY_LINE, HEALTHY_LINE]), context, { ...base, clients });

    expect(result.outcome).toBe('no-findings');
    expect(touched).toEqual([]);
  });

  it('names the cluster from the configured log group mapping, never from the filter name', async () => {
    const settings = {
      ...testSettings(aws.tableName),
      clusters: [
        { name: 'prod', logGroups: ['/eks/prod/karpenter'] },
        { name: 'payments', logGroups: ['/eks/payments/*'] },
      ],
    };
    const mapped = await analyzeSubscription(
      awslogsEvent([subnetExhaustionLine(SUBNET_A)], {
        filters: ['karpenter-doctor.prod'],
        logGroup: '/eks/payments/karpenter',
      }),
      context,
      deps({ settings }),
    );

    expect(mapped.cluster).toBe('payments');
    expect(published().map((f) => f.cluster)).toEqual(['payments']);
  });

  it('gives no finding for any cluster from a log group no cluster lists, whatever the filter is called', async () => {
    const shared = deps();
    const metric = jest.spyOn(shared.metrics, 'addMetric');

    const result = await analyzeSubscription(
      awslogsEvent([subnetExhaustionLine(SUBNET_A)], {
        filters: ['karpenter-doctor.prod', 'karpenter-doctor'],
        logGroup: '/eks/prod-lookalike/karpenter',
      }),
      context,
      shared,
    );

    expect(result).toMatchObject({ outcome: 'unmapped', incidents: 0, notified: [] });
    expect(result.cluster).toBeUndefined();
    expect(metric).toHaveBeenCalledWith('UnmappedDeliveries', 'Count', 1);
    expect(sns).toHaveReceivedCommandTimes(PublishCommand, 0);
    expect(events).toHaveReceivedCommandTimes(PutEventsCommand, 0);
    const stored = await aws.dynamo.doc.send(new ScanCommand({ TableName: aws.tableName }));
    expect(stored.Items ?? []).toEqual([]);
  });

  it("gives no finding for this account's cluster from another account's group of the same name", async () => {
    const result = await analyzeSubscription(
      awslogsEvent([subnetExhaustionLine(SUBNET_A)], { owner: '999988887777' }),
      context,
      deps(),
    );

    expect(result.outcome).toBe('unmapped');
    expect(sns).toHaveReceivedCommandTimes(PublishCommand, 0);
  });

  it('pages a Pricing API timeout as LOW (Karpenter runs on built-in prices) and EC2 out of reach as HIGH', async () => {
    const timeout = (endpoint: string, operation: string) =>
      JSON.stringify({
        level: 'ERROR',
        time: '2026-11-28T02:14:07.412Z',
        logger: 'controller',
        message: 'Reconciler error',
        controller: 'providers.pricing',
        error: `updating pricing, operation error ${operation}, exceeded maximum number of attempts, 3, https response error StatusCode: 0, RequestID: , request send failed, Post "https://${endpoint}/": dial tcp 52.94.231.18:443: i/o timeout`,
      });
    await analyzeSubscription(
      awslogsEvent([timeout('api.pricing.us-east-1.amazonaws.com', 'Pricing: GetProducts')], {
        logGroup: '/eks/quiet/karpenter',
      }),
      context,
      deps({ settings: twoClusters() }),
    );
    await analyzeSubscription(
      awslogsEvent([timeout('ec2.eu-west-1.amazonaws.com', 'EC2: DescribeSpotPriceHistory')], {
        logGroup: '/eks/loud/karpenter',
        firstId: 5,
      }),
      context,
      deps({ settings: twoClusters() }),
    );

    const [quiet, loud] = published();
    expect([quiet?.cluster, quiet?.rule, quiet?.severity]).toEqual(['quiet', 'aws-api-unreachable', 'low']);
    expect(quiet?.remediation.flatMap((step) => step.commands).join('\n')).toContain('settings.isolatedVPC=true');
    expect([loud?.cluster, loud?.rule, loud?.severity]).toEqual(['loud', 'aws-api-unreachable', 'high']);
    expect(
      sns.commandCalls(PublishCommand).map((call) => call.args[0].input.MessageAttributes?.severity?.StringValue),
    ).toEqual(['low', 'high']);
  });
});

describe('enrichment calls per batch', () => {
  it.each([1, 10_000])('makes one DescribeSubnets for %i lines about the same three subnets', async (count) => {
    const subnets = [SUBNET_A, SUBNET_B, SUBNET_C];
    const lines = Array.from({ length: count }, (_, i) => subnetExhaustionLine(subnets[i % 3]!, `default-${i}`));

    await analyzeSubscription(awslogsEvent(lines), context, deps());

    expect(ec2).toHaveReceivedCommandTimes(DescribeSubnetsCommand, 1);
    expect(ec2).toHaveReceivedCommandTimes(DescribeVpcsCommand, 1);
    expect(sns).toHaveReceivedCommandTimes(PublishCommand, 1);
  });
});

describe('a first exhaustion notice beside an open headroom warning', () => {
  /** The headroom check's warning on `subnets`, as it records it, opened an hour before and notified. */
  async function warningOn(subnets: string[]): Promise<string> {
    const store = new IncidentStore(aws.dynamo.doc, aws.tableName);
    const findingId = findingIdOf('prod', 'subnet-ip-headroom-low', undefined);
    const at = new Date(T0 - 60 * 60_000).toISOString();
    await store.record(
      [
        {
          incident: {
            findingId,
            cluster: 'prod',
            rule: 'subnet-ip-headroom-low',
            occurrences: 1,
            firstSeen: at,
            lastSeen: at,
            entities: { subnets },
            evidence: [{ message: `${subnets[0]} (eu-west-1a): 40 of 251 IPs free: under the minimum of 64 free` }],
          },
          severity: 'high',
        },
      ],
      'headroom:prod:run-1',
      T0 - 60 * 60_000,
      DEFAULT_POLICY,
    );
    await store.markPublished(findingId, 1, ['sns', 'events']);
    return findingId;
  }

  const lastPublish = () => JSON.parse(sns.commandCalls(PublishCommand).at(-1)!.args[0].input.Message!);

  it('links the warning of the same subnet in its email and chat', async () => {
    const warning = await warningOn([SUBNET_A]);

    await analyzeSubscription(awslogsEvent([subnetExhaustionLine(SUBNET_A)]), context, deps());

    const message = lastPublish();
    const line = `warning "subnets low on IPs" on the same subnets, open since 2026-11-28T01:21:00.000Z (finding ${warning})`;
    expect(message.email).toContain(`FOLLOWS: ${line}`);
    expect(JSON.parse(message.https).content.description).toContain('*Follows*: warning "subnets low on IPs"');
  });

  it('links nothing when the warning is about other subnets', async () => {
    await warningOn([SUBNET_C]);

    await analyzeSubscription(awslogsEvent([subnetExhaustionLine(SUBNET_A)]), context, deps());

    expect(lastPublish().email).not.toContain('FOLLOWS');
  });
});
