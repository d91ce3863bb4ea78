import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { runCli } from '../support/cli';
import { RULE_IDS } from '../../lambdas/core/recognise/rules';
import { ROOT } from '../helpers';

const run = runCli;

const EXAMPLES = [
  'examples/karpenter-controller.log',
  'examples/kubernetes-events.jsonl',
  'examples/awslogs-event.json',
];

describe('karpenter-doctor analyze', () => {
  it('finds the incidents of the bundled examples', async () => {
    const { code, stdout } = await run(['analyze', '--format', 'json', '--cluster', 'demo', ...EXAMPLES]);
    expect(code).toBe(0);
    const { findings, stats } = JSON.parse(stdout);
    const rules = findings.map((f: { rule: string }) => f.rule);
    expect(rules).toEqual(
      expect.arrayContaining([
        'subnet-ip-exhaustion',
        'insufficient-instance-capacity',
        'consolidation-blocked',
        'karpenter-controller-unschedulable',
        'nodepool-limits-exceeded',
        'aws-permission-denied',
      ]),
    );
    expect(stats.records).toBeGreaterThan(2000);
    const subnet = findings.find((f: { rule: string }) => f.rule === 'subnet-ip-exhaustion');
    expect(subnet).toMatchObject({
      schemaVersion: '1',
      status: 'open',
      cluster: 'demo',
      severity: 'critical',
      occurrences: 14,
    });
    expect(subnet.entities.subnets).toEqual(['subnet-0a1b2c3d4e5f60718', 'subnet-0b2c3d4e5f6071829']);
    expect(subnet.evidence.length).toBeLessThanOrEqual(3);
    expect(subnet.remediation[0].commands[0]).toContain(
      '--subnet-ids subnet-0a1b2c3d4e5f60718 subnet-0b2c3d4e5f6071829',
    );
    const gpu = findings.find((f: { rule: string }) => f.rule === 'insufficient-instance-capacity');
    expect(gpu.entities).toMatchObject({ instanceTypes: ['g5.xlarge'], zones: ['us-west-2c'], nodepools: ['gpu'] });
  });

  it('prints a text report with no colour off a terminal', async () => {
    const { stdout } = await run(['analyze', ...EXAMPLES]);
    expect(stdout).toMatch(/^\d+ findings \(2 critical, /);
    expect(stdout).toContain('\nCRITICAL Subnets are out of free IP addresses\n');
    expect(stdout).toContain('\n  rule       subnet-ip-exhaustion\n');
    expect(stdout).not.toContain('[subnet-ip-exhaustion]');
    expect(stdout).not.toContain('\u001b[');
  });

  it('colours only on a terminal, and never with NO_COLOR', async () => {
    expect((await run(['analyze', EXAMPLES[1]!], { isTty: true })).stdout).toContain('\u001b[');
    expect((await run(['analyze', EXAMPLES[1]!], { isTty: true, env: { NO_COLOR: '1' } })).stdout).not.toContain(
      '\u001b[',
    );
  });

  it('reads standard input with "-" and exits 1 on a high finding when --fail-on asks', async () => {
    const readStdin = () => '{"level":"ERROR","message":"Reconciler error","error":"no subnets found"}\n';
    expect((await run(['analyze', '-'], { readStdin })).code).toBe(0);
    const failing = await run(['analyze', '--fail-on', 'high', '-'], { readStdin });
    expect(failing.code).toBe(1);
    expect(failing.stdout).toContain('subnet-or-security-group-not-found');
  });

  it.each([
    ['without --fail-on: exit 0', [], 0],
    ['with --fail-on: exit 2, nothing read is no pass', ['--fail-on', 'critical'], 2],
  ])('says on stderr that an empty input held nothing, %s', async (_name, flags, code) => {
    const result = await run(['analyze', ...flags, '-'], { readStdin: () => '' });
    expect(result.code).toBe(code);
    expect(result.stderr).toContain('karpenter-doctor: nothing read: the inputs hold no log lines');
  });

  it('exits 2 with a clear message for unreadable input', async () => {
    const { code, stderr } = await run(['analyze', 'examples/does-not-exist.log']);
    expect(code).toBe(2);
    expect(stderr).toBe('karpenter-doctor: cannot read examples/does-not-exist.log: no such file\n');
  });

  it.each([
    ['critical', 0],
    ['high', 1],
    ['medium', 1],
    ['low', 1],
  ])('--fail-on %s exits %d on a file whose worst finding is high', async (severity, expected) => {
    // Node pools out of limits (high) and consolidation blocked (low): nothing critical.
    const readStdin = () =>
      [
        '{"level":"ERROR","message":"could not schedule pod","error":"all available instance types exceed limits for nodepool: \\"default\\""}',
        '{"kind":"Event","reason":"DisruptionBlocked","message":"Cannot disrupt NodeClaim: pdb \\"web\\" prevents pod evictions","involvedObject":{"kind":"NodeClaim","name":"default-x"}}',
      ].join('\n');
    const { code, stdout } = await run(['analyze', '--fail-on', severity, '-'], { readStdin });
    expect(stdout).toMatch(/\nHIGH +NodePool limits stop Karpenter from adding capacity\n/);
    expect(stdout).toContain('\n  rule       nodepool-limits-exceeded\n');
    expect(stdout).not.toContain('CRITICAL');
    expect(code).toBe(expected);
  });

  it('exits 3, not 1, when karpenter-doctor itself fails', async () => {
    const failingOutput = () => {
      throw new TypeError('disk on fire');
    };
    const { code, stderr } = await run(['analyze', EXAMPLES[1]!], { stdout: failingOutput });
    expect(code).toBe(3);
    expect(stderr).toMatch(/^karpenter-doctor: internal error: disk on fire/);
  });

  it('starts every error with "karpenter-doctor:", usage errors included', async () => {
    const errors = [
      (await run(['analyze', '--fail-on', 'urgent'])).stderr,
      (await run(['analise'])).stderr,
      (await run(['analyze', 'no-such.log'])).stderr,
    ];
    for (const stderr of errors) expect(stderr).toMatch(/^karpenter-doctor: /);
  });

  it('asks for input instead of waiting on a terminal', async () => {
    const { code, stderr } = await run(['analyze'], { stdinIsTty: true });
    expect(code).toBe(2);
    expect(stderr).toMatch(/^karpenter-doctor: no input: name log files or directories, or pipe logs in/);
  });

  it('exits 2 on bad usage', async () => {
    const { code, stderr } = await run(['analyze', '--format', 'xml']);
    expect(code).toBe(2);
    expect(stderr).toMatch(/xml/);
  });

  it('reports malformed awslogs payloads and analyses the rest', async () => {
    const readStdin = () => `{"awslogs":{"data":"bm90IGd6aXA="}}\nno subnets found\n`;
    const { code, stdout, stderr } = await run(['analyze', '-'], { readStdin });
    expect(code).toBe(0);
    expect(stderr).toMatch(/skipped malformed input: awslogs.data is not gzip/);
    expect(stdout).toMatch(/1 malformed record skipped/);
  });
});

describe('karpenter-doctor classify', () => {
  it('prints one JSON line per input line, [] for silence, counting from 1', async () => {
    const readStdin = () => 'no subnets found\n\n{"level":"INFO","message":"created nodeclaim"}\n';
    const { stdout } = await run(['classify'], { readStdin });
    expect(
      stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l)),
    ).toEqual([
      { line: 1, rules: ['subnet-or-security-group-not-found'] },
      { line: 2, rules: [] },
      { line: 3, rules: [] },
    ]);
  });

  it('does not join continuation lines', async () => {
    const readStdin = () => 'updating spot pricing, UnauthorizedOperation: denied\n\tstatus code: 403\n';
    const { stdout } = await run(['classify', '-'], { readStdin });
    expect(stdout).toBe('{"line":1,"rules":["aws-permission-denied"]}\n{"line":2,"rules":[]}\n');
  });
});

describe('karpenter-doctor rules', () => {
  it('lists every id of the catalog, marking the one the headroom check emits', async () => {
    const { stdout } = await run(['rules']);
    for (const id of RULE_IDS) expect(stdout).toContain(id);
    expect(stdout).toMatch(/subnet-ip-headroom-low .*emitted by the headroom check/);
    const json = JSON.parse((await run(['rules', '--format', 'json'])).stdout);
    expect(json.map((r: { id: string }) => r.id)).toEqual([...RULE_IDS]);
  });

  it('explains one rule: what it recognises, its seed section and its remediation', async () => {
    const { code, stdout } = await run(['rules', 'subnet-ip-exhaustion']);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^subnet-ip-exhaustion {2}CRITICAL {2}AWS guide §11 {2}network\n/);
    expect(stdout).toContain('recognises  InsufficientFreeAddressesInSubnet');
    expect(stdout).toMatch(/\nexample {5}.*InsufficientFreeAddressesInSubnet.*\n {12}\(AWS guide §11/);
    expect(stdout).toMatch(/fix\n {2}1\. .*\n(.*\n)*? {5}\$ aws ec2 describe-subnets/);
    const json = JSON.parse((await run(['rules', 'subnet-ip-exhaustion', '--format', 'json'])).stdout);
    expect(json).toMatchObject({ id: 'subnet-ip-exhaustion', severity: 'critical', source: 11, family: 'network' });
    expect(json.example.line).toContain('InsufficientFreeAddressesInSubnet');
    expect(json.remediation.length).toBeGreaterThan(0);
  });

  it('refuses an unknown rule id with exit 2 and a suggestion', async () => {
    const { code, stderr } = await run(['rules', 'subnet']);
    expect(code).toBe(2);
    expect(stderr).toMatch(/^karpenter-doctor: no rule "subnet"; did you mean subnet-ip-exhaustion/);
  });
});

describe('karpenter-doctor help and version', () => {
  it('prints help naming every command', async () => {
    const { code, stdout } = await run(['--help']);
    expect(code).toBe(0);
    expect(stdout).toMatch(/analyze .*\n.*watch .*\n.*classify .*\n.*rules/s);
  });

  it.each([[[]], [['analyze']], [['watch']], [['classify']], [['rules']]])(
    'shows an example and the exit codes in the help of %j',
    async (command) => {
      const { code, stdout } = await run([...command, '--help']);
      expect(code).toBe(0);
      expect(stdout).toMatch(/Examples?:\n {2}\$ karpenter-doctor /);
      expect(stdout).toMatch(/Exit codes:\n {2}0 .*\n {2}1 .*\n {2}2 .*\n {2}3 /);
    },
  );

  it('prints the version of package.json', async () => {
    const { code, stdout } = await run(['--version']);
    expect(code).toBe(0);
    expect(stdout).toBe(`${JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version}\n`);
  });
});

describe('the installed bin', () => {
  it('runs the CLI through node bin/karpenter-doctor.js', () => {
    const result = spawnSync(process.execPath, [join(ROOT, 'bin', 'karpenter-doctor.js'), 'classify', '-'], {
      input: 'no subnets found\n',
      encoding: 'utf8',
    });
    expect(result.status).toBe(0);
    expect(result.stdout).toBe('{"line":1,"rules":["subnet-or-security-group-not-found"]}\n');
  });
});
