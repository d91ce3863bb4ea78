import { readFileSync } from 'node:fs';
import { Command, CommanderError, Option } from 'commander';
import { analyzeMessages } from '../../lambdas/core/analyze';
import type { RawMessage } from '../../lambdas/core/assemble';
import { CATALOG, RULE_IDS } from '../../lambdas/core/catalog';
import { buildFinding, type Finding } from '../../lambdas/core/finding';
import { emptyInputStats, readInput } from '../../lambdas/core/input';
import { renderFindingText, renderSummary, PLAIN } from '../../lambdas/core/render-text';
import { classifyLines } from './classify-command';
import { terminalStyle } from './style';

/** Exit codes (DESIGN §5). */
export const EXIT = { ok: 0, failOn: 1, usage: 2 } as const;

/** Raised for input the CLI cannot read; becomes exit code 2 with a one-line message. */
export class InputError extends Error {}

export interface Io {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  readFile: (path: string) => string;
  readStdin: () => string;
  env: NodeJS.ProcessEnv;
  isTty: boolean;
}

const defaultIo = (): Io => ({
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  readFile: (path) => readFileSync(path, 'utf8'),
  readStdin: () => readFileSync(0, 'utf8'),
  env: process.env,
  isTty: Boolean(process.stdout.isTTY),
});

/** Runs the CLI and returns its exit code; never calls process.exit, so it can be tested in-process. */
export async function main(argv: string[], io: Io = defaultIo()): Promise<number> {
  let exitCode: number = EXIT.ok;
  const program = new Command('karpenter-doctor')
    .description('Find out why Karpenter cannot scale an EKS cluster, from its logs and Kubernetes events.')
    .showHelpAfterError()
    .exitOverride()
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr });

  program
    .command('analyze')
    .description('Analyse log files (any mix of formats, or a Lambda awslogs event) and print findings.')
    .argument('[files...]', 'log files to read; "-" or none reads standard input')
    .addOption(new Option('-f, --format <format>', 'output format').choices(['text', 'json']).default('text'))
    .option('-c, --cluster <name>', 'cluster name used in findings and commands', 'my-cluster')
    .option('-r, --region <region>', 'AWS region used in commands')
    .addOption(
      new Option('--fail-on <severity>', 'exit 1 when a finding is at least this severe').choices(['critical', 'high']),
    )
    .action((files: string[], options: AnalyzeOptions) => {
      exitCode = analyze(files, options, io);
    });

  program
    .command('classify')
    .description('Print {"line": N, "rules": [...]} for every input line, each line classified on its own.')
    .argument('[file]', 'file to read; "-" or none reads standard input')
    .action((file: string | undefined) => {
      const content = readSource(file ?? '-', io);
      const out: string[] = [];
      classifyLines(content, (line) => out.push(line));
      io.stdout(out.length ? `${out.join('\n')}\n` : '');
    });

  program
    .command('rules')
    .description('List the rule catalog: id, severity, seed section, title.')
    .addOption(new Option('-f, --format <format>', 'output format').choices(['text', 'json']).default('text'))
    .action((options: { format: 'text' | 'json' }) => {
      io.stdout(renderRules(options.format));
    });

  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError) {
      return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
    }
    if (error instanceof InputError) {
      io.stderr(`karpenter-doctor: ${error.message}\n`);
      return EXIT.usage;
    }
    throw error;
  }
  return exitCode;
}

interface AnalyzeOptions {
  format: 'text' | 'json';
  cluster: string;
  region?: string;
  failOn?: 'critical' | 'high';
}

function analyze(files: string[], options: AnalyzeOptions, io: Io): number {
  const sources = files.length ? files : ['-'];
  const stats = emptyInputStats();
  const messages: RawMessage[] = [];
  for (const source of sources) {
    messages.push(...readInput(readSource(source, io), source === '-' ? '<stdin>' : source, stats));
  }
  const analysis = analyzeMessages(messages, options.cluster);
  const findings = analysis.incidents.map((incident) => buildFinding(incident, { region: options.region }));
  if (stats.problems.length) io.stderr(`karpenter-doctor: skipped malformed input: ${stats.problems.join('; ')}\n`);

  if (options.format === 'json') {
    io.stdout(
      `${JSON.stringify({ findings, stats: { ...analysis.stats, malformed: stats.malformed, controlMessages: stats.controlMessages } }, null, 2)}\n`,
    );
  } else {
    const style = io.isTty && !io.env.NO_COLOR ? terminalStyle : PLAIN;
    const parts = [
      renderSummary(findings, analysis.stats.records, stats.malformed),
      ...findings.map((f) => renderFindingText(f, style)),
    ];
    io.stdout(`${parts.join('\n\n')}\n`);
  }
  return failOn(findings, options.failOn) ? EXIT.failOn : EXIT.ok;
}

function failOn(findings: Finding[], threshold: AnalyzeOptions['failOn']): boolean {
  if (!threshold) return false;
  const severe = threshold === 'critical' ? ['critical'] : ['critical', 'high'];
  return findings.some((finding) => severe.includes(finding.severity));
}

function readSource(source: string, io: Io): string {
  try {
    return source === '-' ? io.readStdin() : io.readFile(source);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOENT'
        ? 'no such file'
        : code === 'EISDIR'
          ? 'is a directory'
          : code === 'EACCES'
            ? 'permission denied'
            : (error as Error).message;
    throw new InputError(`cannot read ${source === '-' ? 'standard input' : source}: ${why}`);
  }
}

function renderRules(format: 'text' | 'json'): string {
  const rules = RULE_IDS.map((id) => CATALOG[id]);
  if (format === 'json') {
    return `${JSON.stringify(
      rules.map(({ id, title, severity, source, emittedBy, recognises }) => ({
        id,
        title,
        severity,
        source,
        emittedBy,
        recognises,
      })),
      null,
      2,
    )}\n`;
  }
  const width = Math.max(...rules.map((r) => r.id.length));
  const lines = rules.map((r) => {
    const source = typeof r.source === 'number' ? `seed §${r.source}` : r.source;
    const emitted = r.emittedBy === 'headroom' ? '  (emitted by the headroom check, not from logs)' : '';
    return `${r.id.padEnd(width)}  ${r.severity.padEnd(8)}  ${source.padEnd(9)}  ${r.title}${emitted}`;
  });
  return `${'id'.padEnd(width)}  ${'severity'.padEnd(8)}  ${'source'.padEnd(9)}  title\n${lines.join('\n')}\n`;
}
