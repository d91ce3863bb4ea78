import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { runCli } from '../support/cli';
import { subnetExhaustionLine } from '../support/awslogs';

/**
 * A fake kubectl on PATH: answers `config current-context` and `get deployments` from files, prints
 * the controller's log lines for `logs` and pretty-printed Event objects for `get events --watch`,
 * and records every command line it was given.
 */
function fakeKubectl(dir: string, files: { logs: string; events: string; deployments: string }): void {
  writeFileSync(join(dir, 'logs.txt'), files.logs);
  writeFileSync(join(dir, 'events.txt'), files.events);
  writeFileSync(join(dir, 'deployments.json'), files.deployments);
  const script = `#!/usr/bin/env node
const fs = require('fs');
const path = require('path');
const dir = ${JSON.stringify(dir)};
const args = process.argv.slice(2);
fs.appendFileSync(path.join(dir, 'calls.txt'), JSON.stringify(args) + '\\n');
const has = (...words) => words.every((w) => args.includes(w));
if (has('config', 'current-context')) process.stdout.write('arn:aws:eks:eu-west-1:111122223333:cluster/prod-eu\\n');
else if (has('get', 'deployments')) process.stdout.write(fs.readFileSync(path.join(dir, 'deployments.json')));
else if (has('logs')) process.stdout.write(fs.readFileSync(path.join(dir, 'logs.txt')));
else if (has('get', 'events')) process.stdout.write(fs.readFileSync(path.join(dir, 'events.txt')));
else { process.stderr.write('fake kubectl: unknown command ' + args.join(' ') + '\\n'); process.exit(1); }
`;
  writeFileSync(join(dir, 'kubectl'), script);
  chmodSync(join(dir, 'kubectl'), 0o755);
}

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
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'karpenter-doctor-kubectl-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  const env = () => ({ PATH: `${dir}${delimiter}${process.env.PATH}` });
  const calls = () =>
    readFileSync(join(dir, 'calls.txt'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as string[]);

  it('follows the controller logs and the events with kubectl and analyses both', async () => {
    fakeKubectl(dir, {
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
          '--max-log-requests=20',
        ],
        ['get', 'events', '-A', '--watch', '-o', 'json'],
      ]),
    );
  });

  it('passes --context to every kubectl call and exits 1 when --fail-on is met', async () => {
    fakeKubectl(dir, { deployments: DEPLOYMENTS, logs: 'no subnets found\n', events: '' });
    const { code } = await runCli(['watch', '--context', 'staging', '--fail-on', 'critical'], { env: env() });
    expect(code).toBe(1);
    expect(calls().every((args) => args[0] === '--context' && args[1] === 'staging')).toBe(true);
  });

  it('says what to do when no Karpenter deployment is found', async () => {
    fakeKubectl(dir, { deployments: JSON.stringify({ kind: 'List', items: [] }), logs: '', events: '' });
    const { code, stderr } = await runCli(['watch'], { env: env() });
    expect(code).toBe(2);
    expect(stderr).toMatch(/^karpenter-doctor: no Karpenter deployment found .*; pass --namespace and --deployment\n$/);
  });

  it('says kubectl is missing when it is not on PATH', async () => {
    const { code, stderr } = await runCli(['watch'], { env: { PATH: dir } });
    expect(code).toBe(2);
    expect(stderr).toMatch(/^karpenter-doctor: kubectl was not found on PATH/);
  });
});
