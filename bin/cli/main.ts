import { Command, CommanderError, Option } from 'commander';
import { version } from '../../package.json';
import { SEVERITIES } from '../../lambdas/core/model';
import { DEFAULT_DISCOVERY_TAG_KEY } from '../../contracts/names';
import type { AnalyzeOptions } from './analyze-command';
import { processIo, type Io } from './io';
import type { RulesFormat } from './rules-command';
import { InputError } from './text-input';
import type { ScanOptions } from './scan-command';
import type { WatchOptions } from './watch-command';

export type { Io } from './io';

/**
 * Exit codes (README, "CLI"), one meaning each: 0 nothing at or above --fail-on, 1 a finding at or
 * above it, 2 bad usage or input that cannot be read, 3 a fault of karpenter-doctor itself.
 */
export const EXIT = { ok: 0, failOn: 1, usage: 2, internal: 3 } as const;

const EXIT_CODES_HELP = `
Exit codes:
  0  ran; no finding at or above --fail-on (or --fail-on not given)
  1  a finding at or above --fail-on
  2  bad usage, unreadable input (missing, binary, bad gzip), or nothing read with --fail-on
  3  internal error of karpenter-doctor (please report it)`;

/** Runs the CLI and returns its exit code; never calls process.exit, so it can be tested in-process. */
export async function main(argv: string[], io: Io = processIo(), name = 'karpenter-doctor'): Promise<number> {
  let exitCode: number = EXIT.ok;
  const program = new Command(name)
    .description('Find out why Karpenter cannot scale an EKS cluster, from its logs and Kubernetes events.')
    .version(version, '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show help')
    .showHelpAfterError('(add --help for usage)')
    .exitOverride()
    .configureOutput({
      writeOut: (text) => void io.stdout(text),
      writeErr: io.stderr,
      outputError: (text, write) => write(`karpenter-doctor: ${text.replace(/^error: /, '')}`),
    })
    .addHelpText(
      'after',
      `
Examples:
  $ ${name} analyze karpenter.log.gz events.json
  $ kubectl logs -n kube-system deploy/karpenter -f | ${name} analyze --follow -
  $ ${name} watch --cluster prod
  $ ${name} scan
${EXIT_CODES_HELP}`,
    );

  const analyzeCommand = program
    .command('analyze')
    .description(
      'Analyse logs and events (files, directories, patterns, gzip, UTF-8 or UTF-16, or standard input) and print findings.',
    )
    .argument('[inputs...]', 'files, directories (read recursively) or patterns; "-" or none reads standard input')
    .addOption(
      new Option('-f, --format <format>', 'output format (markdown for a ticket, html: one self-contained page)')
        .choices(['text', 'json', 'markdown', 'html'])
        .default('text'),
    )
    .option('-c, --cluster <name>', 'cluster name used in findings and commands', 'my-cluster')
    .option('-r, --region <region>', 'AWS region used in commands')
    .addOption(failOnOption())
    .option('--follow', 'read a stream that does not end: print each finding as its incident opens or escalates');
  withEnrichOptions(analyzeCommand)
    .addHelpText(
      'after',
      `
Examples:
  $ ${name} analyze examples/ --cluster demo --region us-west-2
  $ ${name} analyze 'logs/**/*.log.gz' --format json --fail-on high
  $ ${name} analyze support-bundle/ --format html > report.html
  $ kubectl logs -n kube-system -l app.kubernetes.io/name=karpenter -f | ${name} analyze --follow -
${EXIT_CODES_HELP}`,
    )
    .action(async (inputs: string[], options: AnalyzeOptions) => {
      if (options.follow && options.enrich) throw new InputError('--follow and --enrich cannot be combined');
      const { analyze } = loadAnalyze();
      exitCode = await analyze(inputs, options, io);
    });

  program
    .command('watch')
    .description(
      "Run kubectl for you (its current context): the Karpenter controller's logs and the cluster's events, analysed as they arrive.",
    )
    .option('-c, --cluster <name>', 'cluster name used in findings (default: from the kubectl context)')
    .option('-r, --region <region>', 'AWS region used in commands (default: from an EKS context)')
    .option('-n, --namespace <namespace>', 'namespace of the Karpenter deployment (default: found by its label)')
    .option('--deployment <name>', 'name of the Karpenter deployment (default: found by its label)')
    .option('--context <context>', 'kubectl context to use (default: the current one)')
    .option('--since <duration>', 'how far back the controller logs start', '1h')
    .addOption(new Option('-f, --format <format>', 'output format').choices(['text', 'json']).default('text'))
    .addOption(failOnOption())
    .addHelpText(
      'after',
      `
Runs: kubectl logs -f (every pod of the Karpenter deployment) and kubectl get events -A --watch -o json.
Stop it with Ctrl-C; it prints a summary.

Examples:
  $ ${name} watch
  $ ${name} watch --context prod-eu --since 30m --fail-on critical
${EXIT_CODES_HELP}`,
    )
    .action(async (options: WatchOptions) => {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const { watch } = require('./watch-command') as typeof import('./watch-command');
      exitCode = await watch(options, io);
    });

  const scanCommand = program
    .command('scan')
    .description(
      "Read the cluster's own state with kubectl (its current context): NodeClaims, NodePools, node classes, pending pods and events. Needs no logs; works on EKS Auto Mode.",
    )
    .option('-c, --cluster <name>', 'cluster name used in findings (default: from the kubectl context)')
    .option('-r, --region <region>', 'AWS region used in commands (default: from an EKS context)')
    .option('--context <context>', 'kubectl context to use (default: the current one)')
    .addOption(
      new Option('-f, --format <format>', 'output format')
        .choices(['text', 'json', 'markdown', 'html'])
        .default('text'),
    )
    .addOption(failOnOption());
  withEnrichOptions(scanCommand)
    .addHelpText(
      'after',
      `
Runs: kubectl get nodeclaims, nodepools, ec2nodeclasses / nodeclasses.eks.amazonaws.com,
pods -A --field-selector=status.phase=Pending, events -A, storageclasses (all -o json).

Examples:
  $ ${name} scan
  $ ${name} scan --context prod-eu --format json --fail-on high
  $ ${name} scan --enrich --region us-west-2
${EXIT_CODES_HELP}`,
    )
    .action(async (options: ScanOptions) => {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const { scan } = require('./scan-command') as typeof import('./scan-command');
      exitCode = await scan(options, io);
    });

  program
    .command('classify')
    .description('Print {"line": N, "rules": [...]} for every input line, each line classified on its own.')
    .argument('[input]', 'file to read; "-" or none reads standard input')
    .addHelpText(
      'after',
      `
Examples:
  $ ${name} classify karpenter.log | grep -v '"rules":\\[\\]'
${EXIT_CODES_HELP}`,
    )
    .action(async (input: string | undefined) => {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const { classifyInput } = require('./classify-command') as typeof import('./classify-command');
      await classifyInput(input, io);
    });

  program
    .command('rules')
    .description('List the rule catalog, or explain one rule: what it recognises, its source and its remediation.')
    .argument('[id]', 'a rule id, to explain that rule')
    .addOption(new Option('-f, --format <format>', 'output format').choices(['text', 'json']).default('text'))
    .addHelpText(
      'after',
      `
Examples:
  $ ${name} rules
  $ ${name} rules subnet-ip-exhaustion
${EXIT_CODES_HELP}`,
    )
    .action((id: string | undefined, options: { format: RulesFormat }) => {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const rules = require('./rules-command') as typeof import('./rules-command');
      io.stdout(id ? rules.renderRule(id, options.format) : rules.renderRules(options.format));
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
    io.stderr(`karpenter-doctor: internal error: ${describe(error, io.env.KARPENTER_DOCTOR_DEBUG !== undefined)}\n`);
    return EXIT.internal;
  }
  return exitCode;
}

/** --fail-on, the same for every command that reports findings. */
function failOnOption(): Option {
  return new Option('--fail-on <severity>', 'exit 1 when a finding is at least this severe').choices([...SEVERITIES]);
}

/** The options of live AWS enrichment (--enrich and where it looks), the same for analyze and scan. */
function withEnrichOptions(command: Command): Command {
  return command
    .option('--enrich', 'add live AWS context (subnet IPs, VPC CIDRs, node groups, quotas) with your credentials')
    .option(
      '--discovery-tag <key>',
      'tag key that marks the Karpenter subnets (value: the cluster name)',
      DEFAULT_DISCOVERY_TAG_KEY,
    )
    .option('--system-nodegroup <name>', 'managed node group that runs the Karpenter controller');
}

function loadAnalyze(): typeof import('./analyze-command') {
  // Commands load on use: `--version` and `--help` never initialise the analysis core.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require('./analyze-command') as typeof import('./analyze-command');
}

function describe(error: unknown, stack: boolean): string {
  if (!(error instanceof Error)) return String(error);
  return stack && error.stack
    ? error.stack
    : `${error.message} (set KARPENTER_DOCTOR_DEBUG=1 for the stack; please report it)`;
}
