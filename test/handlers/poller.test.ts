import { PublishCommand } from '@aws-sdk/client-sns';
import { IncidentStore } from '../../lambdas/adapters/incident-store';
import { readClusterSnapshot } from '../../lambdas/adapters/cluster-state';
import { analyzeSubscription, type AnalyzerDeps } from '../../lambdas/handlers/analyzer';
import { pollCluster, type SnapshotReader } from '../../lambdas/handlers/poller';
import { awslogsEvent, subnetExhaustionLine } from '../support/awslogs';
import { testSettings } from '../support/aws';
import { clusterLists, LAUNCHED, NO_FREE_IP, nodeClaim } from '../support/cluster-state';
import { ANALYZER_CONTEXT, useHandlerHarness } from '../support/handler-harness';
import { startKubeStub, type KubeStub } from '../support/kube-stub';

const aws = useHandlerHarness();
const T0 = Date.parse('2026-12-01T10:05:00Z');
const SUBNET = 'subnet-0a1b2c3d4e5f60718';

/** The poller reads the cluster over real HTTP from the stub API server, whose lists a test changes. */
describe('the poller', () => {
  let stub: KubeStub;
  let lists: Record<string, unknown[]>;
  let clock: number;
  beforeAll(async () => {
    lists = {};
    stub = await startKubeStub({ lists: new Proxy({}, { get: (_, key: string) => lists[key] }) });
  });
  afterAll(() => stub.close());
  beforeEach(() => {
    clock = T0;
    lists = clusterLists([nodeClaim('default-x7k2p', [NO_FREE_IP])]);
  });
  const deps = (): AnalyzerDeps => aws.deps(testSettings(aws.tableName), () => clock);
  const read: SnapshotReader = async () =>
    (await readClusterSnapshot({ url: stub.url }, 'k8s-aws-v1.t', clock)).snapshot;
  const poll = (minute: number) =>
    pollCluster(
      { cluster: 'prod', scheduledTime: new Date(T0 + minute * 60_000).toISOString() },
      ANALYZER_CONTEXT,
      deps(),
      read,
    );

  it('sends one notice for subnet exhaustion, nothing on the next poll, one resolved notice once Launched is True', async () => {
    const first = await poll(0);
    expect(aws.published().map((f) => [f.rule, f.status, f.cluster])).toEqual([
      ['subnet-ip-exhaustion', 'open', 'prod'],
    ]);
    expect(first.notified).toHaveLength(1);

    clock = T0 + 60_000;
    await poll(1);
    expect(aws.published()).toHaveLength(1);

    clock = T0 + 120_000;
    lists['karpenter.sh/v1/nodeclaims'] = [nodeClaim('default-x7k2p', [LAUNCHED])];
    const third = await poll(2);
    expect(third.resolved).toEqual(first.notified);
    expect(aws.published().map((f) => [f.rule, f.status])).toEqual([
      ['subnet-ip-exhaustion', 'open'],
      ['subnet-ip-exhaustion', 'resolved'],
    ]);
    // Resolved because the cluster says so, not because it went quiet: the notice says what it says now.
    const stored = await new IncidentStore(aws.dynamo.doc, aws.tableName).get(first.notified[0]!);
    expect(stored?.pending).toMatchObject({
      reason: 'resolved',
      said: 'NodeClaim default-x7k2p: Launched=True; NodePool default: Ready=True',
    });
    const email = String(JSON.parse(aws.sns.commandCalls(PublishCommand).at(-1)!.args[0].input.Message!).email);
    expect(email).toContain('  now      NodeClaim default-x7k2p: Launched=True');
    expect(email).not.toContain('resolve window');

    clock = T0 + 180_000;
    await poll(3);
    expect(aws.published()).toHaveLength(2);
  });

  it('counts a failure the log path reported already in the same incident, with no second notice', async () => {
    const fromLog = await analyzeSubscription(
      awslogsEvent([subnetExhaustionLine(SUBNET)], { logGroup: '/eks/prod/karpenter' }),
      ANALYZER_CONTEXT,
      deps(),
    );
    expect(fromLog.notified).toHaveLength(1);
    clock = T0 + 60_000;
    const polled = await poll(1);
    expect(aws.published()).toHaveLength(1);
    const stored = await new IncidentStore(aws.dynamo.doc, aws.tableName).scanIncidents();
    expect(stored.map((s) => s.findingId)).toEqual(fromLog.notified);
    expect(polled.suppressed).toBe(1);
  });

  it('resolves nothing when the cluster cannot be read: a gap is not a recovery', async () => {
    await poll(0);
    const failing: SnapshotReader = () => Promise.reject(new Error('connect ECONNREFUSED'));
    await expect(
      pollCluster(
        { cluster: 'prod', scheduledTime: new Date(T0 + 60_000).toISOString() },
        ANALYZER_CONTEXT,
        deps(),
        failing,
      ),
    ).rejects.toThrow('ECONNREFUSED');
    expect(aws.published().map((f) => f.status)).toEqual(['open']);
  });

  it('refuses a cluster the configuration does not list', async () => {
    await expect(pollCluster({ cluster: 'other' }, ANALYZER_CONTEXT, deps(), read)).rejects.toThrow(
      'poll of a cluster the configuration does not list: "other"',
    );
  });
});
