import { readFileSync } from 'node:fs';
import { Command, CommanderError, Option } from 'commander';
import { Enricher, needsEnrichment } from '../../lambdas/adapters/enrich';
import type { Incident } from '../../lambdas/core/aggregate';
import { analyzeMessages } from '../../lambdas/core/analyze';
import type { RawMessage } from '../../lambdas/core/assemble';
import { CATALOG, RULE_IDS } from '../../lambdas/core/rules';
import type { FindingContext } from '../../lambdas/core/context';
import { buildFinding, type Finding } from '../../lambdas/core/finding';
import { emptyInputStats, readInput } from '../../lambdas/core/input';
import { renderFindingText, renderSummary, PLAIN } from '../../lambdas/core/render-text';
import { lazyAwsClients } from '../../lambdas/shared/aws-clients';
import { DEFAULT_DISCOVERY_TAG_KEY } from '../../lambdas/shared/settings';
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
    .option('--enrich', 'add live AWS context (subnet IPs, VPC CIDRs, node groups, quotas) with your credentials')
    .option(
      '--discovery-tag <key>',
      'tag key that marks the Karpenter subnets (value: the cluster name)',
      DEFAULT_DISCOVERY_TAG_KEY,
    )
    .option('--system-nodegroup <name>', 'managed node group that runs the Karpenter controller')
    .action(async (files: string[], options: AnalyzeOptions) => {
      exitCode = await analyze(files, options, io);
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
      io.stderr(`karpenter-doctor. ${error.message}\n`);
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
  enrich?: boolean;
  discoveryTag: string;
  systemNodegroup?: string;
}

/** Time the CLI gives the live AWS checks; longer than the Lambda's, nobody is waiting on a batch. */
const CLI_ENRICH_BUDGET_MS = 20_000;

async function analyze(files: string[], options: AnalyzeOptions, io: Io): Promise<number> {
  const sources = files.length ? files : ['-'];
  const stats = emptyInputStats();
  const messages: RawMessage[] = [];
  for (const source of sources) {
    messages.push(...readInput(readSource(source, io), source === '-' ? '<stdin>' : source, stats));
  }
  const analysis = analyzeMessages(messages, options.cluster);
  const contexts = options.enrich ? await enrichIncidents(analysis.incidents, options, io) : new Map();
  const region = options.region ?? (options.enrich ? io.env.AWS_REGION || io.env.AWS_DEFAULT_REGION : undefined);
  const findings = analysis.incidents.map((incident) =>
    buildFinding(incident, { region, context: contexts.get(incident.findingId) }),
  );
  if (stats.problems.length) io.stderr(`karpenter-doctor. skipped malformed input: ${stats.problems.join('; ')}\n`);

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

/** The same enrichment as the Lambda, with the caller's credentials and region. */
async function enrichIncidents(
  incidents: Incident[],
  options: AnalyzeOptions,
  io: Io,
): Promise<Map<string, FindingContext>> {
  const targets = incidents.filter((incident) => needsEnrichment(incident.rule));
  if (targets.length === 0) return new Map();
  const region = options.region ?? (io.env.AWS_REGION || io.env.AWS_DEFAULT_REGION);
  if (!region) {
    throw new InputError('--enrich needs a region: pass --region or set AWS_REGION');
  }
  const enricher = new Enricher(lazyAwsClients({ region }), {
    clusterSettings: (cluster) => ({
      discoveryTagKey: options.discoveryTag,
      discoveryTagValue: cluster,
      systemNodegroup: options.systemNodegroup,
    }),
  });
  return enricher.enrich(targets, CLI_ENRICH_BUDGET_MS);
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
      rules.map(({ id, title, severity, source, family, emittedBy, recognises }) => ({
        id,
        title,
        severity,
        source,
        family,
        emittedBy,
        recognises,
      })),
      null,
      2,
    )}\n`;
  }
  const width = Math.max(...rules.map((r) => r.id.length));
  const familyWidth = Math.max(...rules.map((r) => r.family.length));
  const lines = rules.map((r) => {
    const source = typeof r.source === 'number' ? `seed §${r.source}` : r.source;
    const emitted = r.emittedBy === 'headroom' ? '  (emitted by the headroom check, not from logs)' : '';
    return `${r.id.padEnd(width)}  ${r.family.padEnd(familyWidth)}  ${r.severity.padEnd(8)}  ${source.padEnd(9)}  ${r.title}${emitted}`;
  });
  return `${'id'.padEnd(width)}  ${'family'.padEnd(familyWidth)}  ${'severity'.padEnd(8)}  ${'source'.padEnd(9)}  title\n${lines.join('\n')}\n`;
}
