import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { IncidentStore } from '../../lambdas/adapters/incident-store';
import { subnetExhaustionLine } from '../support/awslogs';
import { clusterLists, LAUNCHED, NO_FREE_IP, nodeClaim } from '../support/cluster-state';
import { startKubeStub, type KubeStub } from '../support/kube-stub';
import { checkEksToken, clusterEndpoint, loopbackCertificate, type ClusterEndpoint } from './support/cluster-api';
import type { Deployment } from './support/deploy';
import { ACCOUNT, CREDENTIALS, REGION } from './support/moto';
import { CONFIGS, synthesize } from './support/stack';
import { useDeployment } from './support/use-deployment';
import { Cluster, delivery, fromKarpenterPod, Network } from './support/world';

/**
 * The scenario of record, read from the cluster's own state instead of its logs: the bundled poller
 * of a real `cdk synth` of a polled cluster, invoked as its schedule would invoke it. It describes the
 * cluster in the emulator's EKS, signs a token with the function's credentials, reads the stub API
 * server over HTTPS with the CA EKS gives, and records and notifies through the emulator's DynamoDB,
 * EC2 (the live free IPs), SNS and EventBridge.
 */
describe('a subnet runs dry, seen by the poller', () => {
  const stack = synthesize(CONFIGS.polled);
  const env = useDeployment(stack);
  const tls = loopbackCertificate();
  const discovery = { 'karpenter.sh/discovery': 'prod' };
  let stub: KubeStub;
  let eks: ClusterEndpoint;
  let lists: Record<string, unknown[]>;

  beforeAll(async () => {
    stub = await startKubeStub({ tls, lists: new Proxy({}, { get: (_, key: string) => lists[key] }) });
  });
  afterAll(() => stub.close());
  beforeEach(async () => {
    eks = await clusterEndpoint(env.moto.endpoint, { url: stub.url, caPem: tls.cert });
    lists = clusterLists([nodeClaim(CLAIM, [NO_FREE_IP])]);
  });
  afterEach(() => eks.stop());

  /** A dry subnet of cluster `prod`, as EKS and EC2 in the emulator know it. */
  async function drySubnet(): Promise<string> {
    const network = await Network.create(env.aws.clients.ec2);
    const dry = await network.subnet('10.0.1.0/28', `${REGION}a`, discovery);
    await network.exhaust(dry);
    await Cluster.create(env.aws.clients.eks, 'prod', [dry]);
    return dry;
  }

  /** One scheduled poll of `prod` at `at`; the tokens it sent must pass the API server's check. */
  async function poll(at: number) {
    const before = stub.authorizations.length;
    const fn = env.aws.fn(pollerOf(env.aws, 'prod').path, { AWS_ENDPOINT_URL_EKS: eks.endpoint });
    const invocation = await fn.invoke(pollerOf(env.aws, 'prod').event(at), { at });
    expect(invocation).toMatchObject({ ok: true });
    const tokens = stub.authorizations.slice(before);
    expect(tokens.length).toBeGreaterThan(0);
    for (const token of tokens)
      expect(await checkEksToken(token, { cluster: 'prod', region: REGION, credentials: CREDENTIALS }, at)).toEqual({
        problems: [],
        accessKeyId: CREDENTIALS.accessKeyId,
      });
    return { notices: await env.aws.notices.take(), events: await env.aws.events.take() };
  }

  it('sends one notice naming the dry subnet, nothing on the next poll, one resolved notice once Launched is True', async () => {
    const dry = await drySubnet();
    const t0 = Date.now();

    const first = await poll(t0);
    expect(first.notices).toHaveLength(1);
    const finding = first.notices[0]!.document!;
    expect(finding).toMatchObject({ rule: 'subnet-ip-exhaustion', status: 'open', cluster: 'prod' });
    expect(first.notices[0]!.attributes).toMatchObject({ rule: 'subnet-ip-exhaustion', cluster: 'prod' });
    expect((finding.context as { subnets: unknown[] }).subnets).toEqual([
      expect.objectContaining({ subnetId: dry, availableIps: 0 }),
    ]);
    expect(first.events.map((e) => [e['detail-type'], e.detail.findingId])).toEqual([
      ['Karpenter Finding', finding.findingId],
    ]);
    expect(stub.requests).toEqual(expect.arrayContaining(['GET /apis/karpenter.sh/v1/nodeclaims']));

    expect(await poll(t0 + 60_000)).toEqual({ notices: [], events: [] });

    lists['karpenter.sh/v1/nodeclaims'] = [nodeClaim(CLAIM, [LAUNCHED])];
    const third = await poll(t0 + 120_000);
    expect(third.notices.map((n) => [n.document?.findingId, n.document?.status])).toEqual([
      [finding.findingId, 'resolved'],
    ]);
    expect(third.events.map((e) => [e['detail-type'], e.detail.findingId])).toEqual([
      ['Karpenter Finding Resolved', finding.findingId],
    ]);

    expect(await poll(t0 + 180_000)).toEqual({ notices: [], events: [] });
  });

  it('counts a failure the log path reported already in the same incident: one incident, one notice', async () => {
    const dry = await drySubnet();
    const t0 = Date.now();
    const logGroup = '/aws/containerinsights/prod/application';
    const fromLog = await env.aws.fn('Analyzer').invoke(
      delivery(env.aws, logGroup, [fromKarpenterPod(subnetExhaustionLine(dry, CLAIM))], {
        owner: ACCOUNT,
        startMs: t0,
      }),
      { at: t0 },
    );
    expect(fromLog).toMatchObject({ ok: true });
    const [opened] = await env.aws.notices.take();
    await env.aws.events.take();
    expect(opened!.document).toMatchObject({ rule: 'subnet-ip-exhaustion', status: 'open' });

    expect(await poll(t0 + 60_000)).toEqual({ notices: [], events: [] });

    const table = env.aws.physicalIds.get(stack.logicalIdAt('Incidents/Table'))!;
    const stored = await new IncidentStore(DynamoDBDocumentClient.from(env.aws.clients.dynamo), table).scanIncidents();
    expect(stored.map((s) => [s.findingId, s.rule, s.status])).toEqual([
      [opened!.document!.findingId, 'subnet-ip-exhaustion', 'open'],
    ]);
  });
});

const CLAIM = 'default-x7k2p';

/**
 * The poller of `cluster` as the template builds it: the construct path of the function its schedule
 * targets, and the event that schedule sends at `at` (its target input, the scheduled time filled in).
 */
function pollerOf(deployment: Deployment, cluster: string): { path: string; event(at: number): unknown } {
  const resources = deployment.stack.template.Resources;
  for (const schedule of Object.values(resources)) {
    if (schedule.Type !== 'AWS::Scheduler::Schedule') continue;
    const target = schedule.Properties!.Target as { Arn: { 'Fn::GetAtt': [string, string] }; Input: string };
    if ((JSON.parse(target.Input) as { cluster?: string }).cluster !== cluster) continue;
    const fn = resources[target.Arn['Fn::GetAtt'][0]]!;
    const path = String(fn.Metadata!['aws:cdk:path'])
      .replace(/^[^/]+\//, '')
      .replace(/\/Function\/Resource$/, '');
    return {
      path,
      event: (at) =>
        JSON.parse(
          target.Input.replaceAll(
            '<aws.scheduler.scheduled-time>',
            new Date(at).toISOString().replace(/\.\d{3}Z$/, 'Z'),
          ),
        ),
    };
  }
  throw new Error(`The stack has no poll schedule for cluster ${cluster}`);
}
