import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { runCli } from '../support/cli';
import { failedSchedulingEvent } from '../support/kube-events';
import { ROOT } from '../helpers';

const CONTROLLER_LOG = readFileSync(join(ROOT, 'examples', 'karpenter-controller.log'));
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'karpenter-doctor-inputs-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const write = (name: string, content: Buffer | string): string => {
  const path = join(dir, name);
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, content);
  return path;
};

/** The findings of one analyze run, without what differs between inputs (file names in evidence). */
async function findingsOf(...argv: string[]): Promise<Array<{ rule: string; occurrences: number; entities: object }>> {
  const { code, stdout, stderr } = await runCli(['analyze', '--format', 'json', ...argv]);
  expect({ code, stderr: stderr.replace(/^karpenter-doctor: read [\s\S]*$/, '') }).toEqual({ code: 0, stderr: '' });
  return JSON.parse(stdout).findings.map((f: { rule: string; occurrences: number; entities: object }) => ({
    rule: f.rule,
    occurrences: f.occurrences,
    entities: f.entities,
  }));
}

const utf16 = (text: string, endian: 'le' | 'be', bom: boolean): Buffer => {
  const le = Buffer.from(text, 'utf16le');
  const bytes = endian === 'le' ? le : Buffer.from(le).swap16();
  const mark = endian === 'le' ? [0xff, 0xfe] : [0xfe, 0xff];
  return bom ? Buffer.concat([Buffer.from(mark), bytes]) : bytes;
};

describe('karpenter-doctor analyze inputs', () => {
  let plain: Awaited<ReturnType<typeof findingsOf>>;
  beforeAll(async () => {
    plain = await findingsOf(write('plain.log', CONTROLLER_LOG));
    expect(plain.map((f) => f.rule)).toEqual(['subnet-ip-exhaustion', 'insufficient-instance-capacity']);
  });

  it('finds the same in the gzip of the example, whatever the file is called', async () => {
    expect(await findingsOf(write('karpenter.log.gz', gzipSync(CONTROLLER_LOG)))).toEqual(plain);
    expect(await findingsOf(write('no-extension', gzipSync(CONTROLLER_LOG)))).toEqual(plain);
  });

  it('reads gzip from standard input', async () => {
    const { stdout } = await runCli(['analyze', '--format', 'json', '-'], { stdin: () => [gzipSync(CONTROLLER_LOG)] });
    expect(JSON.parse(stdout).findings.map((f: { rule: string }) => f.rule)).toEqual(plain.map((f) => f.rule));
  });

  it.each([
    ['UTF-8 with a byte order mark', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), CONTROLLER_LOG])],
    ['UTF-16LE with a byte order mark (PowerShell >)', utf16(CONTROLLER_LOG.toString('utf8'), 'le', true)],
    ['UTF-16BE with a byte order mark', utf16(CONTROLLER_LOG.toString('utf8'), 'be', true)],
    ['UTF-16LE without a byte order mark', utf16(CONTROLLER_LOG.toString('utf8'), 'le', false)],
    ['UTF-16BE without a byte order mark', utf16(CONTROLLER_LOG.toString('utf8'), 'be', false)],
    ['gzip of UTF-16LE', gzipSync(utf16(CONTROLLER_LOG.toString('utf8'), 'le', true))],
  ])('finds the same in %s', async (_name, bytes) => {
    expect(await findingsOf(write(`encoded-${_name.replace(/\W+/g, '-')}.log`, bytes))).toEqual(plain);
  });

  it('reads CRLF line ends like LF ones', async () => {
    expect(await findingsOf(write('crlf.log', CONTROLLER_LOG.toString('utf8').replace(/\n/g, '\r\n')))).toEqual(plain);
  });

  it.each([
    [
      'zero bytes',
      Buffer.from([0x7b, 0x22, 0x61, 0, 0, 0x01, 0x02, 0x7d, 0x0a, 0x00]),
      /looks binary \(it holds zero bytes\)/,
    ],
    ['a zip archive', Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x14, 0, 0, 0]), /is a zip archive, not a log/],
    ['an ELF executable', Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0]), /is an executable \(ELF\)/],
    [
      'a broken gzip',
      Buffer.concat([gzipSync(CONTROLLER_LOG).subarray(0, 40), Buffer.from('garbage')]),
      /is not valid gzip/,
    ],
  ])('refuses %s with exit 2, not a false all-clear', async (name, bytes, message) => {
    const path = write(`binary-${name.replace(/\W+/g, '-')}`, bytes);
    const { code, stdout, stderr } = await runCli(['analyze', path]);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toMatch(/^karpenter-doctor: /);
    expect(stderr).toMatch(message);
  });

  it('reads a directory recursively, lists what it read and skips binary files', async () => {
    write('bundle/controller/karpenter.log.gz', gzipSync(CONTROLLER_LOG));
    write('bundle/events/kubernetes-events.jsonl', readFileSync(join(ROOT, 'examples', 'kubernetes-events.jsonl')));
    write('bundle/core.bin', Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0]));
    write('bundle/.hidden.log', 'no subnets found\n');
    const { code, stdout, stderr } = await runCli(['analyze', '--format', 'json', join(dir, 'bundle')]);
    expect(code).toBe(0);
    const rules = JSON.parse(stdout).findings.map((f: { rule: string }) => f.rule);
    expect(rules).toEqual(expect.arrayContaining(['subnet-ip-exhaustion', 'consolidation-blocked']));
    expect(rules).not.toContain('subnet-or-security-group-not-found');
    expect(stderr).toMatch(/^karpenter-doctor: read 2 of 3 files:\n/);
    expect(stderr).toMatch(/bundle\/controller\/karpenter\.log\.gz: 2001 lines \(gzip\)/);
    expect(stderr).toMatch(/bundle\/events\/kubernetes-events\.jsonl: \d+ lines/);
    expect(stderr).toMatch(/skipped .*bundle\/core\.bin is an executable \(ELF\)/);
  });

  it('expands a quoted pattern, ** included', async () => {
    write('globbed/a/one.log', 'no subnets found\n');
    write(
      'globbed/b/c/two.log',
      '{"level":"ERROR","message":"x","error":"UnauthorizedOperation: You are not authorized to perform: ec2:RunInstances"}\n',
    );
    write('globbed/b/skip.txt', 'no subnets found\n');
    const { code, stdout, stderr } = await runCli(['analyze', '--format', 'json', join(dir, 'globbed/**/*.log')]);
    expect(code).toBe(0);
    expect(
      JSON.parse(stdout)
        .findings.map((f: { rule: string }) => f.rule)
        .sort(),
    ).toEqual(['aws-permission-denied', 'subnet-or-security-group-not-found']);
    expect(stderr).toMatch(/read 2 of 2 files/);
    expect((await runCli(['analyze', join(dir, 'globbed/*.nothing')])).stderr).toMatch(
      /^karpenter-doctor: no file matches /,
    );
  });

  it('analyses 200,000 lines (more than the old call-stack limit) and exits 0 with the findings', async () => {
    const failure = CONTROLLER_LOG.toString('utf8')
      .split('\n')
      .find((line) => line.includes('InsufficientFreeAddressesInSubnet'))!;
    const lines = Array.from({ length: 200_000 }, (_, i) => (i % 50_000 === 7 ? failure : `I${i}`));
    const { code, stdout } = await runCli(['analyze', '--format', 'json', write('big.log', `${lines.join('\n')}\n`)]);
    expect(code).toBe(0);
    const { findings, stats } = JSON.parse(stdout);
    expect(stats.records).toBe(200_000);
    expect(findings).toEqual([expect.objectContaining({ rule: 'subnet-ip-exhaustion', occurrences: 4 })]);
  });

  it('cuts a line longer than 1 MiB, says so, and reads on', async () => {
    const path = write('long.log', `${'x'.repeat(3 * 1024 * 1024)}\nno subnets found\n`);
    const { code, stdout, stderr } = await runCli(['analyze', path]);
    expect(code).toBe(0);
    expect(stdout).toContain('\n  rule       subnet-or-security-group-not-found');
    expect(stderr).toMatch(/1 lines longer than 1 MiB cut/);
  });

  it('counts a Kubernetes event shipped in two files at counts 31 and 32 once, as 32, and one scheduler event as one finding', async () => {
    // One FailedScheduling Event whose message gives two causes (cpu and a taint): one finding, not two.
    const message =
      '0/3 nodes are available: 1 node(s) had untolerated taint {dedicated: batch}, 2 Insufficient cpu. preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod.';
    const event = (count: number) => failedSchedulingEvent(count, { message });
    const morning = write('events/morning.jsonl', `${event(31)}\n`);
    const noon = write('events/noon.jsonl', `${event(30)}\n${event(32)}\n`);

    expect(await findingsOf(morning, noon)).toEqual([
      expect.objectContaining({ rule: 'scheduling-insufficient-resources', occurrences: 32 }),
    ]);
    const { stdout } = await runCli(['analyze', morning, noon]);
    expect(stdout).toContain('32 occurrences');
  });

  it("drops a pod's scheduling failure once Karpenter's log shows the NodeClaim launched for it, read from two files", async () => {
    const at = (second: number) => `2026-11-30T10:00:0${second}.000Z`;
    const karpenter = (message: string, second: number, fields: object) =>
      JSON.stringify({ level: 'INFO', time: at(second), logger: 'controller', message, commit: '0871602', ...fields });
    const controller = write(
      'launch/karpenter.log',
      [
        karpenter('found provisionable pod(s)', 2, { controller: 'provisioner', Pods: 'shop/web-a', duration: '41ms' }),
        karpenter('created nodeclaim', 2, { NodePool: { name: 'default' }, NodeClaim: { name: 'default-x7k2p' } }),
        karpenter('launched nodeclaim', 5, { controller: 'nodeclaim.lifecycle', NodeClaim: { name: 'default-x7k2p' } }),
      ].join('\n'),
    );
    const pending = (pod: string, second: number) =>
      JSON.stringify({
        metadata: { name: `${pod}.17a1b2c3d4e5f6a7`, namespace: 'shop', uid: `uid-${pod}` },
        involvedObject: { kind: 'Pod', namespace: 'shop', name: pod },
        reason: 'FailedScheduling',
        type: 'Warning',
        message:
          '0/3 nodes are available: 3 Insufficient cpu. preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod.',
        count: 4,
        lastTimestamp: at(second),
      });
    const events = write('launch/events.jsonl', `${pending('web-a', 0)}\n${pending('web-b', 0)}\n`);

    const { stdout } = await runCli(['analyze', '--format', 'json', controller, events]);
    const { findings, stats } = JSON.parse(stdout);
    expect(findings.map((f: { entities: { pods: string[] } }) => f.entities.pods)).toEqual([['shop/web-b']]);
    expect(stats.resolvedSignals).toBe(1);
  });
});
