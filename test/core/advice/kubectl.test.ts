import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { adviceCommands, withDummies } from '../../support/advice-cases';
import { startKubeStub, type KubeStub } from '../../support/kube-stub';
import { firstCommandWords } from '../../support/shell-words';

/**
 * Every `kubectl` command the advice prints runs with the real kubectl (1.32 on this machine and in
 * CI) against a stub API server (test/support/kube-stub.ts) that serves discovery and any object by
 * any name: what fails is what kubectl itself refuses (unknown flags, resource types, bad jsonpath,
 * wrong arguments). `edit` runs with an editor that changes nothing; files a command reads are
 * written first. Placeholders are filled with names of the right shape.
 */

const KUBECTL = process.env.KUBECTL ?? 'kubectl';
/** Answers about the state of the stub's objects, not about the command's syntax. */
const STATE_ONLY = [/taint "[^"]+" not found/, /label "[^"]+" not found/];

interface Run {
  code: number | null;
  stderr: string;
}

let stub: KubeStub;
let dir: string;

beforeAll(async () => {
  stub = await startKubeStub();
  dir = mkdtempSync(join(tmpdir(), 'kubectl-check-'));
  writeFileSync(
    join(dir, 'kubeconfig'),
    [
      'apiVersion: v1',
      'kind: Config',
      `clusters: [{name: stub, cluster: {server: "${stub.url}"}}]`,
      'users: [{name: stub, user: {token: stub}}]',
      'contexts: [{name: stub, context: {cluster: stub, user: stub, namespace: default}}]',
      'current-context: stub',
    ].join('\n'),
  );
});

afterAll(async () => {
  await stub.close();
  rmSync(dir, { recursive: true, force: true });
});

function kubectl(args: string[]): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(KUBECTL, args, {
      cwd: dir,
      env: {
        PATH: process.env.PATH,
        HOME: dir,
        KUBECONFIG: join(dir, 'kubeconfig'),
        KUBE_EDITOR: 'true',
        EDITOR: 'true',
      },
      stdio: ['ignore', 'ignore', 'pipe'],
      timeout: 30_000,
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('error', (error) =>
      reject(
        new Error(
          `kubectl is needed for this check (1.32 at /usr/bin/kubectl on this machine and in CI): ${error.message}`,
        ),
      ),
    );
    child.on('close', (code, signal) =>
      resolve({ code, stderr: signal ? `${stderr}\nkilled by ${signal} (timed out)` : stderr }),
    );
  });
}

/** Files the command reads with -f, written as a minimal manifest of the kind the name suggests. */
function writeInputFiles(words: string[]): void {
  words.forEach((word, i) => {
    if ((word === '-f' || word === '--filename') && words[i + 1] && words[i + 1] !== '-') {
      const file = words[i + 1]!;
      const manifest = file.startsWith('job')
        ? 'apiVersion: batch/v1\nkind: Job\nmetadata: {name: example, namespace: default}\nspec: {template: {spec: {restartPolicy: Never, containers: [{name: app, image: example:1}]}}}\n'
        : 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: example, namespace: default}\ndata: {a: b}\n';
      writeFileSync(join(dir, file), manifest);
    }
  });
}

async function runAll(commands: string[], parallel = 4): Promise<Run[]> {
  const results: Run[] = new Array(commands.length);
  let next = 0;
  const worker = async () => {
    while (next < commands.length) {
      const i = next++;
      const words = firstCommandWords(commands[i]!);
      writeInputFiles(words);
      results[i] = await kubectl(words.slice(1));
    }
  };
  await Promise.all(Array.from({ length: parallel }, worker));
  return results;
}

const accepted = (run: Run) => run.code === 0 || STATE_ONLY.some((pattern) => pattern.test(run.stderr));

const printed = adviceCommands().filter(({ command }) => command.startsWith('kubectl '));
const distinct = [...new Map(printed.map((p) => [withDummies(p.command), p])).entries()];

/** Mistakes the check must catch: an unknown flag, an unknown resource type, a broken jsonpath. */
const KNOWN_BAD = [
  'kubectl -n shop set resources deployment checkout --request=cpu=1',
  'kubectl get nodepoolz',
  "kubectl get nodes -o jsonpath='{.items[*].metadata.name'",
  'kubectl scale deployment karpenter --replica=1',
];

describe('printed kubectl commands', () => {
  it('are many enough to mean something', () => {
    expect(distinct.length).toBeGreaterThan(30);
  });

  it('the check rejects known-bad commands', async () => {
    const runs = await runAll(KNOWN_BAD);
    expect(runs.map((run, i) => (accepted(run) ? KNOWN_BAD[i] : 'rejected'))).toEqual(KNOWN_BAD.map(() => 'rejected'));
  }, 60_000);

  it('all run with the real kubectl against a stub API server', async () => {
    const runs = await runAll(distinct.map(([filled]) => filled));
    const rejected = distinct
      .map(([filled, origin], i) => ({ filled, origin, run: runs[i]! }))
      .filter(({ run }) => !accepted(run))
      .map(
        ({ origin, filled, run }) =>
          `${origin.label}: ${filled}\n    → exit ${run.code}: ${run.stderr.trim().split('\n').slice(-2).join(' ')}`,
      );
    expect(rejected).toEqual([]);
  }, 180_000);
});
