import { runCli } from '../support/cli';
import { useFakeKubectl } from '../support/fake-kubectl';
import { subnetExhaustionLine } from '../support/awslogs';

/** kubectl's answers for watch: deployments from a file, the controller's lines for `logs`, Events for `get events --watch`. */
const WATCH_ANSWERS = `
if (has('get', 'deployments')) process.stdout.write(fs.readFileSync(path.join(dir, 'deployments.json')));
else if (has('logs')) process.stdout.write(fs.readFileSync(path.join(dir, 'logs.txt')));
else if (has('get', 'events')) process.stdout.write(fs.readFileSync(path.join(dir, 'events.txt')));
else { process.stderr.write('fake kubectl: unknown command ' + args.join(' ') + '\\n'); process.exit(1); }
`;

const DEPLOYMENTS = JSON.stringify({
  apiVersion: 'v1',
  kind: 'List',
  items: [
    {
      metadata: { name: 'karpenter', namespace: 'kube-system' },
      spec: {
        selector: { matchLabels: { 'app.kubernetes.io/name': 'karpenter', 'app.kubernetes.io/instance': 'karpenter' } },
      },
    },
  ],
});
const TAINT_EVENT = {
  apiVersion: 'v1',
  kind: 'Event',
  metadata: { name: 'trainer-0.1', namespace: 'ml' },
  reason: 'FailedScheduling',
  type: 'Warning',
  message:
    '0/3 nodes are available: 3 node(s) had untolerated taint {nvidia.com/gpu: true}. preemption: 0/3 nodes are available.',
  involvedObject: { kind: 'Pod', namespace: 'ml', name: 'trainer-0' },
};

describe('karpenter-doctor watch', () => {
  const kubectl = useFakeKubectl('karpenter-doctor-kubectl-');
  const { env, calls } = kubectl;
  const fakeKubectl = (files: { logs: string; events: string; deployments: string }) =>
    kubectl.install(WATCH_ANSWERS, {
      'logs.txt': files.logs,
      'events.txt': files.events,
      'deployments.json': files.deployments,
    });

  it('follows the controller logs and the events with kubectl and analyses both', async () => {
    fakeKubectl({
      deployments: DEPLOYMENTS,
      logs: `[pod/karpenter-6d8f7b9c54-8zr7n/controller] ${subnetExhaustionLine('subnet-0a1b2c3d4e5f60718', 'default-1')}\n`,
      events: `${JSON.stringify(TAINT_EVENT, null, 4)}\n`,
    });

    const { code, stdout, stderr } = await runCli(['watch', '--format', 'json'], { env: env() });

    expect(stderr).toMatch(/^karpenter-doctor: watching kube-system\/karpenter logs and the cluster's events/);
    expect(code).toBe(0);
    const events = stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    const opened = events.filter((e) => e.event === 'opened').map((e) => e.finding);
    expect(opened.map((f) => f.rule).sort()).toEqual(['scheduling-untolerated-taint', 'subnet-ip-exhaustion']);
    expect(opened.find((f) => f.rule === 'subnet-ip-exhaustion')).toMatchObject({
      cluster: 'prod-eu',
      region: 'eu-west-1',
    });
    expect(events.at(-1)).toMatchObject({ event: 'summary' });
    expect(calls()).toEqual(
      expect.arrayContaining([
        ['config', 'current-context'],
        ['get', 'deployments', '-A', '-l', 'app.kubernetes.io/name=karpenter', '-o', 'json'],
        [
          'logs',
          '-n',
          'kube-system',
          '-l',
          'app.kubernetes.io/name=karpenter,app.kubernetes.io/instance=karpenter',
          '--all-containers',
          '--prefix',
          '-f',
          '--since=1h',
          '--tail=-1',
          '--max-log-requests=20',
        ],
        ['get', 'events', '-A', '--watch', '-o', 'json'],
      ]),
    );
  });

  it('asks kubectl for every line of --since, not the 10 per container a selector defaults to', async () => {
    fakeKubectl({ deployments: DEPLOYMENTS, logs: 'no subnets found\n', events: '' });
    await runCli(['watch', '--since', '30m'], { env: env() });
    const logs = calls().find((args) => args[0] === 'logs')!;
    expect(logs).toEqual(expect.arrayContaining(['-l', '--since=30m', '--tail=-1']));
  });

  it('passes --context to every kubectl call and exits 1 when --fail-on is met', async () => {
    fakeKubectl({ deployments: DEPLOYMENTS, logs: 'no subnets found\n', events: '' });
    const { code } = await runCli(['watch', '--context', 'staging', '--fail-on', 'critical'], { env: env() });
    expect(code).toBe(1);
    expect(calls().every((args) => args[0] === '--context' && args[1] === 'staging')).toBe(true);
  });

  it('says what to do when no Karpenter deployment is found', async () => {
    fakeKubectl({ deployments: JSON.stringify({ kind: 'List', items: [] }), logs: '', events: '' });
    const { code, stderr } = await runCli(['watch'], { env: env() });
    expect(code).toBe(2);
    expect(stderr).toMatch(/^karpenter-doctor: no Karpenter deployment found .*; pass --namespace and --deployment\n$/);
  });

  it('says kubectl is missing when it is not on PATH', async () => {
    const { code, stderr } = await runCli(['watch'], { env: { PATH: kubectl.dir } });
    expect(code).toBe(2);
    expect(stderr).toMatch(/^karpenter-doctor: kubectl was not found on PATH/);
  });
});
