import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { subnetExhaustionLine } from '../support/awslogs';
import { ROOT } from '../helpers';

// The compiled CLI (built by test/global-setup.ts), run as a user runs it.
const BIN = join(ROOT, 'bin', 'karpenter-doctor.js');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { nodeProblem } = require('../../bin/node-check.js') as {
  nodeProblem: (version: string, range: string) => string | undefined;
};

interface Running {
  child: ChildProcessWithoutNullStreams;
  output: () => string;
  /** Resolves once stdout matches. */
  until: (pattern: RegExp) => Promise<void>;
  exit: Promise<{ code: number | null; stderr: string }>;
}

function start(args: string[]): Running {
  const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, env: { ...process.env, NO_COLOR: '1' } });
  let stdout = '';
  let stderr = '';
  const waiting: Array<{ pattern: RegExp; resolve: () => void }> = [];
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
    for (const wait of [...waiting]) {
      if (wait.pattern.test(stdout)) {
        waiting.splice(waiting.indexOf(wait), 1);
        wait.resolve();
      }
    }
  });
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const exit = new Promise<{ code: number | null; stderr: string }>((resolve) =>
    child.on('close', (code) => resolve({ code, stderr })),
  );
  return {
    child,
    output: () => stdout,
    until: (pattern) =>
      pattern.test(stdout) ? Promise.resolve() : new Promise((resolve) => waiting.push({ pattern, resolve })),
    exit,
  };
}

describe('karpenter-doctor analyze --follow', () => {
  it('prints a finding while the stream is still open, an escalation, and a summary at EOF', async () => {
    const run = start(['analyze', '--follow', '--cluster', 'prod', '-']);
    run.child.stdin.write(`${subnetExhaustionLine('subnet-0a1b2c3d4e5f60718', 'default-1')}\n`);
    await run.until(/opened\nCRITICAL Subnets are out of free IP addresses\n/);
    expect(run.child.exitCode).toBeNull();

    run.child.stdin.write(`${subnetExhaustionLine('subnet-0b2c3d4e5f6071829', 'default-2')}\n`);
    // On escalation only what changed is printed, not the whole finding again.
    await run.until(
      /ESCALATED CRITICAL Subnets are out of free IP addresses\n {2}new +subnets subnet-0b2c3d4e5f6071829 \(now 2\)/,
    );
    expect(run.child.exitCode).toBeNull();

    run.child.stdin.end();
    const { code } = await run.exit;
    expect(code).toBe(0);
    expect(run.output()).toMatch(
      /1 finding \(1 critical\) in 2 records\.\n {2}CRITICAL +Subnets .* · 2 occurrences\n$/,
    );
    expect(run.output().match(/\n {2}why /g)).toHaveLength(1);
  });

  it('names what an escalation added in words, not by its field', async () => {
    const denied = (call: string) =>
      `{"level":"ERROR","message":"failed launching nodeclaim","error":"creating instance, operation error EC2: ${call}, https response error StatusCode: 403, RequestID: 1, api error UnauthorizedOperation: You are not authorized to perform this operation."}`;
    const run = start(['analyze', '--follow', '--cluster', 'prod', '-']);
    run.child.stdin.write(`${denied('CreateFleet')}\n`);
    await run.until(/opened\n/);
    run.child.stdin.write(`${denied('RunInstances')}\n`);
    await run.until(/ESCALATED .*\n {2}new +IAM actions ec2:RunInstances \(now 2\)/);
    run.child.stdin.end();
    expect((await run.exit).code).toBe(0);
    expect(run.output()).not.toContain('iamActions');
  });

  it('prints the summary on Ctrl-C, with the exit code --fail-on asks for', async () => {
    const run = start(['analyze', '--follow', '--format', 'json', '--fail-on', 'high', '-']);
    run.child.stdin.write('no subnets found\n');
    await run.until(/"event":"opened"/);
    run.child.kill('SIGINT');
    const { code } = await run.exit;
    expect(code).toBe(1);
    const events = run
      .output()
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(events.map((e) => e.event)).toEqual(['opened', 'summary']);
    expect(events[0].finding).toMatchObject({ rule: 'subnet-or-security-group-not-found', status: 'open' });
    expect(events[1].findings).toEqual([expect.objectContaining({ rule: 'subnet-or-security-group-not-found' })]);
  });
});

describe('the compiled bin', () => {
  let dir: string;
  beforeAll(() => (dir = mkdtempSync(join(tmpdir(), 'karpenter-doctor-process-'))));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('ends quietly when its reader goes away (| head)', async () => {
    const big = join(dir, 'big.log');
    writeFileSync(big, 'no subnets found\n'.repeat(300_000));
    const run = start(['classify', big]);
    await run.until(/\n/);
    run.child.stdout.destroy();
    const { code, stderr } = await run.exit;
    expect(stderr).toBe('');
    expect(code).toBe(0);
  });

  it('loads the AWS SDK (dist/enrich.js) only for --enrich', () => {
    const cli = readFileSync(join(ROOT, 'dist', 'cli.js'), 'utf8');
    expect(cli).not.toMatch(/@aws-sdk|EC2Client/);
    expect(readFileSync(join(ROOT, 'dist', 'enrich.js'), 'utf8')).toContain('DescribeSubnetsCommand');
    const hook = join(dir, 'loaded.js');
    writeFileSync(
      hook,
      "process.on('exit', () => require('fs').writeSync(2, '\\nloaded=' + Object.keys(require.cache).filter((f) => f.includes('dist')).map((f) => require('path').basename(f)).join(',')));\n",
    );
    const result = spawnSync(process.execPath, ['--require', hook, BIN, 'analyze', 'examples/'], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    expect(result.status).toBe(0);
    expect(result.stderr).toMatch(/\nloaded=cli\.js$/);
  });

  it('prints the version', () => {
    const result = spawnSync(process.execPath, [BIN, '--version'], { encoding: 'utf8' });
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
  });

  it('runs as the kubectl plugin under its kubectl name', () => {
    const result = spawnSync(process.execPath, [join(ROOT, 'bin', 'kubectl-karpenter_doctor.js'), '--help'], {
      encoding: 'utf8',
    });
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/^Usage: kubectl karpenter-doctor /);
  });
});

describe('the Node.js version check', () => {
  it.each([
    ['20.19.0', undefined],
    ['22.1.0', undefined],
    ['20.18.3', 'needs Node.js >=20.19 but this is Node.js 20.18.3; install a newer Node.js (https://nodejs.org)'],
    ['18.20.4', 'needs Node.js >=20.19 but this is Node.js 18.20.4; install a newer Node.js (https://nodejs.org)'],
  ])('on Node %s says %j', (version, problem) => {
    expect(nodeProblem(version, '>=20.19')).toBe(problem);
  });
});
