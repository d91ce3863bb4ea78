/**
 * The CLI's part of npm run bench: the compiled CLI, as users run it, through a 1 GiB log.
 */
import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { buildCli } from './build';

/** The nearest folder above `from` with a package.json: the bench runs bundled from .bench/. */
export function projectRoot(from: string): string {
  let dir = from;
  while (!existsSync(join(dir, 'package.json')) && dirname(dir) !== dir) dir = dirname(dir);
  return dir;
}

const BIN = join(projectRoot(__dirname), 'bin', 'karpenter-doctor.js');

export interface CliRun {
  code: number | null;
  findings: number;
  wallS: number;
  cpuS: number;
  rssMiB: number;
}

/** `analyze --format json` of a file of `block` repeated to 1 GiB, in a fresh process. */
export async function cliGiB(block: string): Promise<CliRun> {
  await buildCli();
  const dir = mkdtempSync(join(tmpdir(), 'karpenter-doctor-bench-cli-'));
  try {
    // Peak resident memory and CPU time of the process, written to stderr as it exits.
    const usage = join(dir, 'usage.js');
    writeFileSync(
      usage,
      "process.on('exit', () => { const u = process.resourceUsage(); require('fs').writeSync(2, `\\nusage=${u.maxRSS},${u.userCPUTime + u.systemCPUTime}\\n`); });\n",
    );
    const file = join(dir, 'huge.log');
    const buffer = Buffer.from(block);
    const fd = openSync(file, 'w');
    for (let written = 0; written < 2 ** 30; written += buffer.length) writeSync(fd, buffer);
    closeSync(fd);
    const start = process.hrtime.bigint();
    const child = spawnSync(process.execPath, ['--require', usage, BIN, 'analyze', '--format', 'json', file], {
      encoding: 'utf8',
      maxBuffer: 256 * 2 ** 20,
    });
    const wallS = Number(process.hrtime.bigint() - start) / 1e9;
    const [, rssKiB, cpuMicros] = /usage=(\d+),(\d+)/.exec(child.stderr) ?? [];
    let findings = -1;
    try {
      findings = (JSON.parse(child.stdout) as { findings: unknown[] }).findings.length;
    } catch {
      // reported as -1
    }
    return { code: child.status, findings, wallS, cpuS: Number(cpuMicros) / 1e6, rssMiB: Number(rssKiB) / 1024 };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
