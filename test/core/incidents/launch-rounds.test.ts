import { analyzeMessages, StreamingAnalyzer } from '../../../lambdas/core/analyze';
import { MAX_ROUND_CLAIMS } from '../../../lambdas/core/incidents/launch-rounds';

/**
 * Karpenter's provisioning rounds resolve the scheduling failures of the pods they launched for. The
 * lines follow Karpenter's own log calls per release (sigs.k8s.io/karpenter; file and tag beside each
 * builder); two are real lines from the shared samples (ref-042, ref-058).
 */

const INSUFFICIENT_CPU =
  '0/3 nodes are available: 3 Insufficient cpu. preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod.';
const A = 'api-7d4b9c6f5d-x2x9k';
const B = 'api-7d4b9c6f5d-q8r7t';
const C = 'api-7d4b9c6f5d-m4n5p';

/** The scheduler's FailedScheduling event for a pod of namespace shop, at 10:00:SS. */
const failed = (pod: string, second: number) =>
  JSON.stringify({
    metadata: { name: `${pod}.${second}`, namespace: 'shop', uid: `uid-${pod}-${second}` },
    involvedObject: { kind: 'Pod', namespace: 'shop', name: pod },
    reason: 'FailedScheduling',
    type: 'Warning',
    message: INSUFFICIENT_CPU,
    source: { component: 'default-scheduler' },
    lastTimestamp: at(second),
  });

const at = (second: number) => `2026-11-30T10:00:${String(second).padStart(2, '0')}.000Z`;

/** v1.x, controller-runtime JSON (provisioner.go `found provisionable pod(s)`, pretty.Slice of 5). */
const v1Round = (pods: string, second: number) =>
  JSON.stringify({
    level: 'INFO',
    time: at(second),
    logger: 'controller',
    message: 'found provisionable pod(s)',
    commit: '0871602',
    controller: 'provisioner',
    namespace: '',
    name: '',
    reconcileID: 'de0771eb-24a8-4b48-ac30-c381dc58c592',
    Pods: pods,
    duration: '53.1ms',
  });
/** v1.x provisioner.go Create: `created nodeclaim` with NodePool and NodeClaim as klog objects. */
const v1Created = (claim: string, second: number) =>
  JSON.stringify({
    level: 'INFO',
    time: at(second),
    logger: 'controller',
    message: 'created nodeclaim',
    commit: '0871602',
    controller: 'provisioner',
    namespace: '',
    name: '',
    reconcileID: 'de0771eb-24a8-4b48-ac30-c381dc58c592',
    NodePool: { name: 'default' },
    NodeClaim: { name: claim },
    requests: { cpu: '1180m', memory: '1244Mi', pods: '6' },
    'instance-types': 'c5.large, c5.xlarge, c5a.large, c5a.xlarge, c6a.large and 55 other(s)',
  });
/** The real v1.6.2 line of ref-058 (nodeclaim/lifecycle/launch.go), with its NodeClaim and time set. */
const v1Launched = (claim: string, second: number) =>
  `${at(second)}\t{"message":"launched nodeclaim","commit":"4ff8cfe","controller":"nodeclaim.lifecycle","controllerGroup":"karpenter.sh","controllerKind":"NodeClaim","NodeClaim":{"name":"${claim}"},"namespace":"","name":"${claim}","reconcileID":"c09faee2-2cfa-4932-b788-a2c9218b424d","provider-id":"aws:///us-west-2a/i-0ab42aed432ede39f","instance-type":"r5a.xlarge","zone":"us-west-2a","capacity-type":"on-demand","allocatable":{"cpu":"3920m","ephemeral-storage":"89Gi","memory":"31547584Ki","pods":"58","vpc.amazonaws.com/pod-eni":"18"}}`;
/** v1.x launch.go: an insufficient-capacity error is logged, the NodeClaim deleted. */
const v1FailedLaunch = (claim: string, second: number) =>
  JSON.stringify({
    level: 'ERROR',
    time: at(second),
    logger: 'controller',
    message: 'failed launching nodeclaim',
    commit: '0871602',
    controller: 'nodeclaim.lifecycle',
    controllerGroup: 'karpenter.sh',
    controllerKind: 'NodeClaim',
    NodeClaim: { name: claim },
    namespace: '',
    name: claim,
    reconcileID: '4a779644-e7cf-40d3-9023-ef27fd61d457',
    error:
      'creating instance, insufficient capacity, with fleet error(s), InsufficientInstanceCapacity: We currently do not have sufficient c5.large capacity in the Availability Zone you requested (us-west-2a).',
  });
/** v1.x scheduling/scheduler.go Results.Record: logged after the round's line. */
const v1Unschedulable = (pod: string, second: number) =>
  JSON.stringify({
    level: 'ERROR',
    time: at(second),
    logger: 'controller',
    message: 'could not schedule pod',
    commit: '0871602',
    controller: 'provisioner',
    Pod: { name: pod, namespace: 'shop' },
    error: 'all available instance types exceed limits for nodepool "default"',
  });

/** v0.33–v0.37, knative zap JSON: lower-case `pods` and `nodeclaim` fields. */
const v033Round = (pods: string, second: number) =>
  JSON.stringify({
    level: 'INFO',
    time: at(second),
    logger: 'controller.provisioner',
    message: 'found provisionable pod(s)',
    commit: '2dd7fdc',
    pods,
    duration: '20.3ms',
  });
/** The real v0.33.0 line of ref-042 (with its time prefix), with its NodeClaim and time set. */
const v033Created = (claim: string, second: number) =>
  `2024-03-05 09:31:57.464\t{"level":"INFO","time":"${at(second)}","logger":"controller.provisioner","message":"created nodeclaim","commit":"2dd7fdc","nodepool":"interruptible","nodeclaim":"${claim}","requests":{"cpu":"3120m","memory":"4996Mi","pods":"9"},"instance-types":"c5.2xlarge, c5.4xlarge, c5a.2xlarge, c5a.4xlarge, c5ad.2xlarge and 80 other(s)"}`;
/** v0.33 launch.go, the typed controller adding `nodeclaim` to its logger. */
const v033Launched = (claim: string, second: number) =>
  JSON.stringify({
    level: 'INFO',
    time: at(second),
    logger: 'controller.nodeclaim.lifecycle',
    message: 'launched nodeclaim',
    commit: '2dd7fdc',
    nodeclaim: claim,
    nodepool: 'interruptible',
    'provider-id': 'aws:///us-east-1a/i-0f1e2d3c4b5a69788',
    'instance-type': 'c5.2xlarge',
    zone: 'us-east-1a',
    'capacity-type': 'spot',
    allocatable: { cpu: '7910m', memory: '14162Mi', pods: '58' },
  });
/** v0.33–v0.37 scheduler.go Solve: logged before the round's line, as a console line. */
const v035Unschedulable = (pod: string, second: number) =>
  `${at(second)}\tERROR\tcontroller.provisioner\tCould not schedule pod, incompatible with nodepool "default", no instance type satisfied resources {"cpu":"64"}\t{"commit": "2dd7fdc", "pod": "shop/${pod}"}`;

/** v0.31, machines: `created machine` (provisioner.go) and `launched machine` (machine/lifecycle). */
const v031Created = (claim: string | undefined, second: number) =>
  `${at(second)}\tINFO\tcontroller.provisioner\tcreated machine\t${JSON.stringify({ commit: '322822a', provisioner: 'default', ...(claim ? { machine: claim } : {}), requests: { cpu: '1155m', pods: '5' } })}`;
const v031Launched = (claim: string, second: number) =>
  `${at(second)}\tINFO\tcontroller.machine.lifecycle\tlaunched machine\t{"commit": "322822a", "machine": "${claim}", "provisioner": "default", "provider-id": "aws:///us-east-1b/i-0a1b2c3d4e5f60718", "instance-type": "m5.large", "zone": "us-east-1b", "capacity-type": "on-demand"}`;
const v031Round = (pods: string, second: number) =>
  `${at(second)}\tINFO\tcontroller.provisioner\tfound provisionable pod(s)\t{"commit": "322822a", "pods": "${pods}"}`;

/** One analysis of the lines that follows launch rounds, as the CLI's does. */
const analyse = (messages: string[]) => {
  const analyzer = new StreamingAnalyzer({ cluster: 'prod', resolution: { launches: true } });
  const stream = analyzer.stream();
  messages.forEach((message, i) => stream.push({ message, origin: { file: 'mixed', line: i + 1 } }));
  return analyzer.finish();
};

/** The pods of the scheduling findings left, and how many failures a launch resolved. */
const left = (messages: string[]) => {
  const analysis = analyse(messages);
  return {
    pods: [
      ...new Set(
        analysis.incidents
          .filter((i) => i.rule === 'scheduling-insufficient-resources')
          .flatMap((i) => i.entities.pods ?? []),
      ),
    ].sort(),
    resolved: analysis.stats.resolvedSignals,
    rules: analysis.incidents.map((i) => i.rule).sort(),
  };
};

describe('scheduling failures resolved by a NodeClaim launch', () => {
  it('v1: drops the failures of the pods a round names once its NodeClaim launched, and keeps the others', () => {
    expect(
      left([
        failed(A, 0),
        failed(C, 0),
        v1Round(`shop/${A}, shop/${B}`, 2),
        v1Created('default-x7k2p', 2),
        v1Launched('default-x7k2p', 4),
      ]),
    ).toMatchObject({ pods: [`shop/${C}`], resolved: 1 });
  });

  it('v1: keeps the failure when the launch fails, beside the capacity finding', () => {
    const result = left([
      failed(A, 0),
      v1Round(`shop/${A}`, 2),
      v1Created('default-x7k2p', 2),
      v1FailedLaunch('default-x7k2p', 4),
    ]);
    expect(result).toMatchObject({ pods: [`shop/${A}`], resolved: 0 });
    expect(result.rules).toContain('insufficient-instance-capacity');
  });

  it('v1: resolves only when every NodeClaim of the round launched', () => {
    const start = [failed(A, 0), v1Round(`shop/${A}`, 2), v1Created('default-aaaaa', 2), v1Created('default-bbbbb', 2)];
    expect(left([...start, v1Launched('default-aaaaa', 4)]).pods).toEqual([`shop/${A}`]);
    expect(left([...start, v1Launched('default-aaaaa', 4), v1Launched('default-bbbbb', 5)]).pods).toEqual([]);
  });

  it(`follows at most MAX_ROUND_CLAIMS NodeClaims of a round: one that creates more places nothing`, () => {
    const claims = (n: number) => Array.from({ length: n }, (_, i) => `default-${i.toString(36).padStart(5, '0')}`);
    const round = (n: number) => [
      failed(A, 0),
      v1Round(`shop/${A}`, 2),
      ...claims(n).map((claim) => v1Created(claim, 2)),
      ...claims(n).map((claim) => v1Launched(claim, 4)),
    ];
    expect(left(round(MAX_ROUND_CLAIMS)).pods).toEqual([]);
    expect(left(round(MAX_ROUND_CLAIMS + 1)).pods).toEqual([`shop/${A}`]);
  });

  it('v1: keeps the failure of a pod the round could not schedule, logged after the round', () => {
    const result = left([
      failed(A, 0),
      failed(B, 0),
      v1Round(`shop/${A}, shop/${B}`, 2),
      v1Unschedulable(B, 2),
      v1Created('default-x7k2p', 2),
      v1Launched('default-x7k2p', 4),
    ]);
    expect(result.pods).toEqual([`shop/${B}`]);
  });

  it('keeps a failure logged after the launch: the pod failed again', () => {
    expect(
      left([v1Round(`shop/${A}`, 2), v1Created('default-x7k2p', 2), v1Launched('default-x7k2p', 4), failed(A, 9)]).pods,
    ).toEqual([`shop/${A}`]);
  });

  it('resolves only the pods the round names, not those behind "and N other(s)"', () => {
    const named = [1, 2, 3, 4, 5].map((i) => `shop/api-7d4b9c6f5d-n${i}`).join(', ');
    expect(
      left([
        failed(A, 0),
        failed('api-7d4b9c6f5d-n1', 0),
        v1Round(`${named} and 1 other(s)`, 2),
        v1Created('default-x7k2p', 2),
        v1Launched('default-x7k2p', 4),
      ]).pods,
    ).toEqual([`shop/${A}`]);
  });

  it('v0.33: reads the lower-case fields, the real created line and a console could-not-schedule before the round', () => {
    const result = left([
      failed(A, 0),
      failed(B, 0),
      v035Unschedulable(B, 1),
      v033Round(`shop/${A}, shop/${B}`, 2),
      v033Created('interruptible-2lzvq', 2),
      v033Launched('interruptible-2lzvq', 4),
    ]);
    expect(result.pods).toEqual([`shop/${B}`]);
    expect(result.resolved).toBe(1);
  });

  it('v0.31: resolves through created and launched machine lines', () => {
    expect(
      left([
        failed(A, 0),
        v031Round(`shop/${A}`, 2),
        v031Created('default-4q2lw', 2),
        v031Launched('default-4q2lw', 4),
      ]),
    ).toMatchObject({ pods: [], resolved: 1 });
  });

  it('v0.29: places nothing when the created machine has no name to follow to its launch', () => {
    expect(
      left([failed(A, 0), v031Round(`shop/${A}`, 2), v031Created(undefined, 2), v031Launched('default-4q2lw', 4)]).pods,
    ).toEqual([`shop/${A}`]);
  });

  it('a launch never resolves a failure that is not about scheduling', () => {
    const ice = left([v1Round(`shop/${A}`, 2), v1Created('default-x7k2p', 2), v1FailedLaunch('default-x7k2p', 3)]);
    expect(ice.rules).toEqual(['insufficient-instance-capacity']);
  });

  it("is not followed where Karpenter's log and the events never meet (the Lambda's analysis)", () => {
    const lines = [
      failed(A, 0),
      v1Round(`shop/${A}`, 2),
      v1Created('default-x7k2p', 2),
      v1Launched('default-x7k2p', 4),
    ];
    const lambda = analyzeMessages(
      lines.map((message, i) => ({ message, origin: { line: i + 1 } })),
      'prod',
    );
    expect(lambda.incidents.map((i) => i.rule)).toEqual(['scheduling-insufficient-resources']);
    expect(left(lines).pods).toEqual([]);
  });
});
