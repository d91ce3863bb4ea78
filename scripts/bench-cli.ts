/**
 * The CLI's part of npm run bench: start-up to --version against `node -e 0`, peak memory and exit
 * code on a 200,000-line log and on a 1 GB one, and analyze's MB/s on a large file against
 * `grep -F -i -f` with the prefilter's own fragments (the floor of any tool that must at least find
 * the lines that may matter). Runs the compiled CLI, as users do.
 */
import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { prefilterFragments } from '../lambdas/core/recognise/classify';
import { buildCli } from './build';

/**
 * The project's folder: the nearest one above `from` with a package.json. The bench runs bundled
 * from .bench/ (package.json `bench`) and, for a quick look, from scripts/ under tsx.
 */
export function projectRoot(from: string): string {
  let dir = from;
  while (!existsSync(join(dir, 'package.json')) && dirname(dir) !== dir) dir = dirname(dir);
  return dir;
}

const ROOT = projectRoot(__dirname);
const BIN = join(ROOT, 'bin', 'karpenter-doctor.js');

type Report = (measure: string, result: string, goal?: string) => void;

export async function cliBenchmarks(report: Report, nextLine: () => string): Promise<void> {
  await buildCli();
  const dir = mkdtempSync(join(tmpdir(), 'karpenter-doctor-bench-cli-'));
  try {
    startUp(report);
    const rss = join(dir, 'rss.js');
    // Peak resident memory of the process, written to stderr as it exits.
    writeFileSync(
      rss,
      "process.on('exit', () => require('fs').writeSync(2, '\\nmaxrss=' + process.resourceUsage().maxRSS + '\\n'));\n",
    );
    const block = Array.from({ length: 40_000 }, nextLine).join('\n') + '\n';

    const lines200k = join(dir, '200k.log');
    writeFileSync(lines200k, Array.from({ length: 200_000 }, nextLine).join('\n') + '\n');
    const small = analyze(rss, lines200k);
    report(
      'CLI analyze, 200,000-line log: exit code, findings, peak RSS',
      `exit ${small.code}, ${small.findings} findings, ${small.rssMiB.toFixed(0)} MiB (${mib(lines200k)} MiB file)`,
      'exit 0, < 400 MB',
    );

    const large = join(dir, 'large.log');
    fill(large, block, 256 * 2 ** 20);
    const fragments = join(dir, 'fragments.txt');
    writeFileSync(fragments, `${prefilterFragments().join('\n')}\n`);
    const analyzeMs: number[] = [];
    const grepMs: number[] = [];
    for (let round = 0; round < 3; round++) {
      analyzeMs.push(analyze(rss, large).ms);
      grepMs.push(timed(() => spawnSync('grep', ['-F', '-i', '-c', '-f', fragments, large], { env: { LC_ALL: 'C' } })));
    }
    const size = statSync(large).size / 1e6;
    const a = size / (median(analyzeMs) / 1000);
    const g = size / (median(grepMs) / 1000);
    report(
      `CLI analyze MB/s on a ${size.toFixed(0)} MB log vs grep -F -i -f (same ${prefilterFragments().length} fragments)`,
      `${a.toFixed(0)} vs ${g.toFixed(0)} MB/s (${(a / g).toFixed(2)}× grep)`,
    );
    rmSync(large);

    const huge = join(dir, 'huge.log');
    fill(huge, block, 2 ** 30);
    const gig = analyze(rss, huge);
    report(
      'CLI analyze, 1 GiB log: exit code, findings, peak RSS, MB/s',
      `exit ${gig.code}, ${gig.findings} findings, ${gig.rssMiB.toFixed(0)} MiB, ${(2 ** 30 / 1e6 / (gig.ms / 1000)).toFixed(0)} MB/s`,
      'exit 0, < 400 MB',
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Median wall time to `--version` against `node -e 0`, interleaved, in fresh processes. */
function startUp(report: Report): void {
  const node: number[] = [];
  const cli: number[] = [];
  for (let i = 0; i < 15; i++) {
    node.push(timed(() => spawnSync(process.execPath, ['-e', '0'])));
    cli.push(timed(() => spawnSync(process.execPath, [BIN, '--version'])));
  }
  report(
    'CLI start-up to --version vs node -e 0 (compiled CLI)',
    `${(median(cli) / median(node)).toFixed(2)}× (${median(cli).toFixed(0)} vs ${median(node).toFixed(0)} ms)`,
    'goal ≤ 3×',
  );
}

function analyze(rss: string, file: string): { code: number | null; findings: number; rssMiB: number; ms: number } {
  let result: ReturnType<typeof spawnSync> | undefined;
  const ms = timed(() => {
    result = spawnSync(process.execPath, ['--require', rss, BIN, 'analyze', '--format', 'json', file], {
      encoding: 'utf8',
      maxBuffer: 256 * 2 ** 20,
    });
  });
  const stdout = String(result!.stdout);
  const maxRss = /maxrss=(\d+)/.exec(String(result!.stderr));
  let findings = -1;
  try {
    findings = (JSON.parse(stdout) as { findings: unknown[] }).findings.length;
  } catch {
    // reported as -1
  }
  return { code: result!.status, findings, rssMiB: maxRss ? Number(maxRss[1]) / 1024 : NaN, ms };
}

/** Writes `block` again and again until the file holds `bytes`. */
function fill(path: string, block: string, bytes: number): void {
  const buffer = Buffer.from(block);
  const fd = openSync(path, 'w');
  try {
    for (let written = 0; written < bytes; written += buffer.length) writeSync(fd, buffer);
  } finally {
    closeSync(fd);
  }
}

function timed(fn: () => unknown): number {
  const start = process.hrtime.bigint();
  fn();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

const mib = (path: string): string => (statSync(path).size / 2 ** 20).toFixed(0);
