import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { ROOT } from '../helpers';
import { runCli } from '../support/cli';
import { useFakeKubectl } from '../support/fake-kubectl';
import {
  autoModeNodeClass,
  ec2NodeClass,
  event,
  list,
  nodeClaim,
  NO_FREE_IP,
  nodePool,
  pendingPod,
} from '../support/cluster-state';
import { startKubeStub, type KubeStub, type KubeStubOptions } from '../support/kube-stub';

const EXHAUSTED = nodeClaim('default-x7k2p', [NO_FREE_IP]);
const TAINTED = pendingPod(
  'ml',
  'trainer-0',
  '0/3 nodes are available: 3 node(s) had untolerated taint {nvidia.com/gpu: true}. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.',
);
const HEALTHY_POOL = nodePool('default', [{ type: 'Ready', status: 'True' }]);
const HEALTHY_CLASS = ec2NodeClass('default', [{ type: 'Ready', status: 'True' }]);

/**
 * kubectl's answers for scan: each `get` from the file of its resource (a missing file is a kind the
 * server does not serve, `forbidden:` text an RBAC refusal).
 */
const SCAN_ANSWERS = `
const resource = args[args.indexOf('get') + 1];
const file = path.join(dir, resource + '.json');
if (!fs.existsSync(file)) { process.stderr.write('error: the server doesn\\'t have a resource type "' + resource.split('.')[0] + '"\\n'); process.exit(1); }
const text = fs.readFileSync(file, 'utf8');
if (text.startsWith('forbidden:')) { process.stderr.write('Error from server (Forbidden): ' + text.slice(10) + '\\n'); process.exit(1); }
process.stdout.write(text);
`;
const answering = (answers: Record<string, unknown>): Record<string, string> =>
  Object.fromEntries(
    Object.entries(answers).map(([resource, answer]) => [
      `${resource}.json`,
      typeof answer === 'string' ? answer : JSON.stringify(answer),
    ]),
  );

const karpenter = (parts: Partial<Record<string, unknown>> = {}) => ({
  'nodeclaims.karpenter.sh': list([EXHAUSTED]),
  'nodepools.karpenter.sh': list([HEALTHY_POOL]),
  'ec2nodeclasses.karpenter.k8s.aws': list([HEALTHY_CLASS]),
  pods: list([TAINTED]),
  events: list([]),
  storageclasses: list([]),
  ...parts,
});

describe('karpenter-doctor scan, with kubectl on PATH', () => {
  const kubectl = useFakeKubectl('karpenter-doctor-scan-');
  const { env, calls } = kubectl;
  const fakeKubectl = (answers: Record<string, unknown>) => kubectl.install(SCAN_ANSWERS, answering(answers));

  it('reads the cluster state with kubectl and prints its findings, cluster and region from the context', async () => {
    fakeKubectl(karpenter());
    const { code, stdout } = await runCli(['scan', '--format', 'json'], { env: env() });
    expect(code).toBe(0);
    const output = JSON.parse(stdout) as { findings: Array<Record<string, unknown>>; autoMode: { evidence: string[] } };
    expect(output.findings.map((f) => [f.rule, f.cluster, f.region])).toEqual([
      ['subnet-ip-exhaustion', 'prod-eu', 'eu-west-1'],
      ['scheduling-untolerated-taint', 'prod-eu', 'eu-west-1'],
    ]);
    expect(output.autoMode.evidence).toEqual([]);
    expect(calls()).toEqual([
      ['config', 'current-context'],
      ['get', 'nodeclaims.karpenter.sh', '-o', 'json'],
      ['get', 'nodepools.karpenter.sh', '-o', 'json'],
      ['get', 'ec2nodeclasses.karpenter.k8s.aws', '-o', 'json'],
      ['get', 'nodeclasses.eks.amazonaws.com', '-o', 'json'],
      ['get', 'pods', '-A', '--field-selector=status.phase=Pending', '-o', 'json'],
      ['get', 'events', '-A', '-o', 'json'],
      ['get', 'storageclasses', '-o', 'json'],
    ]);
  });

  it.each([
    ['text', /^2 findings \(1 critical, 1 medium\) in \d+ records\. Read 2 Karpenter objects, 1 pending pod\./],
    ['markdown', /^## karpenter-doctor: /],
    ['html', /^<!doctype html>/i],
  ])('prints %s', async (format, start) => {
    fakeKubectl(karpenter());
    const { code, stdout } = await runCli(['scan', '--format', format], { env: env() });
    expect(code).toBe(0);
    expect(stdout).toMatch(start);
    expect(stdout).toContain('subnet-ip-exhaustion');
  });

  it('runs as `kubectl karpenter-doctor scan` through the built plugin entry', () => {
    fakeKubectl(karpenter());
    const result = spawnSync(
      process.execPath,
      [join(ROOT, 'bin', 'kubectl-karpenter_doctor.js'), 'scan', '--format', 'json'],
      {
        encoding: 'utf8',
        env: { ...process.env, ...env() },
      },
    );
    expect([result.status, result.stderr]).toEqual([0, '']);
    expect((JSON.parse(result.stdout) as { findings: Array<{ rule: string }> }).findings.map((f) => f.rule)).toEqual([
      'subnet-ip-exhaustion',
      'scheduling-untolerated-taint',
    ]);
  });

  it('exits 1 when --fail-on is met, and passes --context to every kubectl call', async () => {
    fakeKubectl(karpenter());
    const { code } = await runCli(['scan', '--context', 'prod-eu', '--fail-on', 'critical'], { env: env() });
    expect(code).toBe(1);
    expect(calls().every((args) => args[0] === '--context' && args[1] === 'prod-eu')).toBe(true);
  });

  it('says so in one line when Karpenter is not installed', async () => {
    fakeKubectl({ pods: list([]), events: list([]) });
    const { code, stderr } = await runCli(['scan'], { env: env() });
    expect(code).toBe(2);
    expect(stderr).toBe(
      'karpenter-doctor: nodeclaims.karpenter.sh is not served by this cluster: is Karpenter v1 (or EKS Auto Mode) installed?\n',
    );
  });

  it('names what RBAC does not let it list', async () => {
    fakeKubectl(
      karpenter({
        pods: 'forbidden:pods is forbidden: User "viewer" cannot list resource "pods" in API group "" at the cluster scope',
      }),
    );
    const { code, stderr } = await runCli(['scan'], { env: env() });
    expect(code).toBe(2);
    expect(stderr).toMatch(
      /^karpenter-doctor: not allowed to list pods \(RBAC\): Error from server \(Forbidden\): pods is forbidden: User "viewer" cannot list resource "pods"/,
    );
    expect(stderr.trim().split('\n')).toHaveLength(1);
  });

  it('scans an EKS Auto Mode cluster: no EC2NodeClass, NodeClass advice, its traps', async () => {
    fakeKubectl({
      'nodeclaims.karpenter.sh': list([]),
      'nodepools.karpenter.sh': list([
        nodePool('general-purpose', [{ type: 'Ready', status: 'True' }], { autoMode: true }),
        nodePool('system', [{ type: 'Ready', status: 'True' }], { autoMode: true }),
      ]),
      'nodeclasses.eks.amazonaws.com': list([
        autoModeNodeClass('default', [
          {
            type: 'SubnetsReady',
            status: 'False',
            reason: 'SubnetsNotFound',
            message: 'SubnetSelector did not match any Subnets',
          },
        ]),
      ]),
      pods: list([
        pendingPod('web', 'api-0', "0/2 nodes are available: 2 node(s) didn't match Pod's node affinity/selector.", {
          nodeSelector: { 'karpenter.k8s.aws/instance-family': 'm5' },
        }),
      ]),
      events: list([]),
      storageclasses: list([
        {
          apiVersion: 'storage.k8s.io/v1',
          kind: 'StorageClass',
          metadata: { name: 'gp2' },
          provisioner: 'kubernetes.io/aws-ebs',
        },
      ]),
    });
    const { code, stdout, stderr } = await runCli(['scan'], { env: env() });
    expect([code, stderr]).toEqual([0, '']);
    expect(stdout).toContain('EKS Auto Mode cluster (NodeClass default (eks.amazonaws.com/v1)');
    expect(stdout).toContain('migration trap: web/api-0 selects on karpenter.k8s.aws/instance-family');
    expect(stdout).toContain('migration trap: gp2 provisioner kubernetes.io/aws-ebs');
    expect(stdout).toContain('\n  rule       subnet-or-security-group-not-found\n');
    expect(stdout).not.toMatch(/\bhelm (upgrade|install)\b/);
    expect(stdout).not.toMatch(/kubectl \S+ ec2nodeclass/i);
  });
});

/** The real kubectl (1.32 on this machine and in CI) against a stub API server serving real objects. */
describe('karpenter-doctor scan, with the real kubectl against an API server', () => {
  let dir: string;
  let stub: KubeStub | undefined;
  afterEach(async () => {
    await stub?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function serve(options: KubeStubOptions) {
    stub = await startKubeStub(options);
    dir = mkdtempSync(join(tmpdir(), 'karpenter-doctor-scan-'));
    writeFileSync(
      join(dir, 'kubeconfig'),
      [
        'apiVersion: v1',
        'kind: Config',
        `clusters: [{name: prod, cluster: {server: "${stub.url}"}}]`,
        'users: [{name: me, user: {token: stub}}]',
        'contexts: [{name: "arn:aws:eks:us-west-2:111122223333:cluster/prod", context: {cluster: prod, user: me}}]',
        'current-context: "arn:aws:eks:us-west-2:111122223333:cluster/prod"',
      ].join('\n'),
    );
    return { PATH: process.env.PATH, HOME: dir, KUBECONFIG: join(dir, 'kubeconfig') };
  }

  const V1_0 = {
    // Karpenter v1.0: no reason on a failed launch but LaunchFailed with the raw error.
    'karpenter.sh/v1/nodeclaims': [
      nodeClaim('batch-q8w4z', [
        {
          type: 'Launched',
          status: 'Unknown',
          reason: 'LaunchFailed',
          message:
            'creating instance, creating fleet request, VcpuLimitExceeded: You have requested more vCPU capacity than your current vCPU limit of 32 allows',
        },
      ]),
    ],
    'karpenter.sh/v1/nodepools': [HEALTHY_POOL],
    'karpenter.k8s.aws/v1/ec2nodeclasses': [
      ec2NodeClass('default', [
        { type: 'AMIsReady', status: 'False', reason: 'AMINotFound', message: 'AMISelector did not match any AMIs' },
      ]),
    ],
    'v1/pods': [TAINTED],
    'v1/events': [
      event(
        'FailedScheduling',
        'Failed to schedule pod, incompatible with nodepool "default", daemonset overhead={"cpu":"150m","pods":"3"}, incompatible requirements, key nvidia.com/gpu, nvidia.com/gpu In [true] not in nvidia.com/gpu DoesNotExist',
        { kind: 'Pod', namespace: 'ml', name: 'trainer-0' },
      ),
    ],
    'storage.k8s.io/v1/storageclasses': [],
    'eks.amazonaws.com/v1/nodeclasses': [],
  };

  it('reads Karpenter v1.0 objects and finds each failure they state', async () => {
    const env = await serve({ lists: V1_0 });
    const { code, stdout, stderr } = await runCli(['scan', '--format', 'json'], { env });
    expect([code, stderr]).toEqual([0, '']);
    const findings = (JSON.parse(stdout) as { findings: Array<{ rule: string; region: string }> }).findings;
    expect(findings.map((f) => f.rule).sort()).toEqual(
      [
        'ami-discovery-failed',
        'ec2-quota-exceeded',
        'incompatible-requirements',
        'scheduling-untolerated-taint',
      ].sort(),
    );
    expect(findings[0]!.region).toBe('us-west-2');
    expect(stub!.requests.filter((r) => r.startsWith('GET /api/v1/pods'))).toEqual([
      'GET /api/v1/pods?fieldSelector=status.phase%3DPending&limit=500',
    ]);
  });

  it('reads Karpenter v1.14 reasons from the API', async () => {
    const env = await serve({
      lists: { ...V1_0, 'karpenter.sh/v1/nodeclaims': [EXHAUSTED], 'v1/pods': [], 'v1/events': [] },
    });
    const { stdout } = await runCli(['scan', '--format', 'json'], { env });
    const rules = (JSON.parse(stdout) as { findings: Array<{ rule: string }> }).findings.map((f) => f.rule);
    expect(rules.sort()).toEqual(['ami-discovery-failed', 'subnet-ip-exhaustion']);
  });

  it('says which CRD is missing on a cluster without Karpenter', async () => {
    const env = await serve({ lists: V1_0, omit: ['karpenter.sh/v1', 'karpenter.k8s.aws/v1', 'eks.amazonaws.com/v1'] });
    const { code, stderr } = await runCli(['scan'], { env });
    expect(code).toBe(2);
    expect(stderr).toBe(
      'karpenter-doctor: nodeclaims.karpenter.sh is not served by this cluster: is Karpenter v1 (or EKS Auto Mode) installed?\n',
    );
  });

  it('says what RBAC refuses, as the API server words it', async () => {
    const env = await serve({ lists: V1_0, forbidden: ['v1/events'] });
    const { code, stderr } = await runCli(['scan'], { env });
    expect(code).toBe(2);
    expect(stderr).toMatch(
      /^karpenter-doctor: not allowed to list events \(RBAC\): .*events is forbidden: User .* cannot list resource "events"/,
    );
  });

  it('scans an Auto Mode cluster, where no EC2NodeClass is served', async () => {
    const env = await serve({
      omit: ['karpenter.k8s.aws/v1'],
      lists: {
        'karpenter.sh/v1/nodeclaims': [
          nodeClaim(
            'general-purpose-5c74h',
            [
              {
                type: 'Launched',
                status: 'Unknown',
                reason: 'VCPULimitExceeded',
                message: 'Error creating fleet request: An instance was requested that would exceed your VCPU quota',
              },
            ],
            { autoMode: true },
          ),
        ],
        'karpenter.sh/v1/nodepools': [
          nodePool('general-purpose', [{ type: 'Ready', status: 'True' }], { autoMode: true }),
        ],
        'eks.amazonaws.com/v1/nodeclasses': [autoModeNodeClass('default', [{ type: 'Ready', status: 'True' }])],
        'v1/pods': [],
        'v1/events': [],
        'storage.k8s.io/v1/storageclasses': [],
      },
    });
    const { code, stdout, stderr } = await runCli(['scan', '--format', 'json'], { env });
    expect([code, stderr]).toEqual([0, '']);
    const output = JSON.parse(stdout) as {
      findings: Array<{ rule: string; diagnosis: string }>;
      autoMode: { evidence: string[] };
    };
    expect(output.findings.map((f) => f.rule)).toEqual(['ec2-quota-exceeded']);
    expect(output.findings[0]!.diagnosis).toContain('This is an EKS Auto Mode cluster');
    expect(output.autoMode.evidence).toContain('NodeClass default (eks.amazonaws.com/v1)');
  });
});
