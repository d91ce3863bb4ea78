import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { FOLLOW_RESOLUTION_WINDOW_MS } from '../../lambdas/core/incidents/resolution';
import { StreamingAnalyzer } from '../../lambdas/core/analyze';
import { buildFinding } from '../../lambdas/core/findings/finding';
import { emptyInputStats } from '../../lambdas/core/decode/local-input';
import type { Severity } from '../../lambdas/core/model';
import { failsOn, FOLLOW_IDLE_MS, followPrinter, type OutputFormat } from './analyze-command';
import type { Io } from './io';
import { readSourcesTogether } from './read-sources';
import { InputError } from './text-input';

export interface WatchOptions {
  cluster?: string;
  region?: string;
  namespace?: string;
  deployment?: string;
  context?: string;
  since: string;
  format: OutputFormat;
  failOn?: Severity;
}

/** The label the Karpenter Helm chart puts on its deployment. */
const KARPENTER_LABEL = 'app.kubernetes.io/name=karpenter';

/**
 * `watch`: runs kubectl for the user — the logs of every pod of the Karpenter deployment and the
 * events of every namespace, both followed — and feeds both into one analysis, printing each
 * finding as its incident opens or escalates, and a summary when stopped or when kubectl ends.
 */
export async function watch(options: WatchOptions, io: Io): Promise<number> {
  const kubectl = new Kubectl(io, options.context);
  const where = await kubectl.currentCluster(options);
  const deployment = await kubectl.karpenterDeployment(options);
  const stop = new AbortController();
  const children: ChildProcess[] = [];
  const release = io.onInterrupt(() => {
    stop.abort();
    for (const child of children) child.kill('SIGTERM');
  });
  const stats = emptyInputStats();
  const follow = followPrinter(options, where.region, io);
  const analyzer = new StreamingAnalyzer({
    cluster: where.cluster,
    onChange: follow.onChange,
    resolution: { windowMs: FOLLOW_RESOLUTION_WINDOW_MS, launches: true },
    // Lines are cut from the chunks read (read-sources.ts): what is kept of a record must not pin them.
    slicedMessages: true,
  });
  follow.attach(analyzer);
  io.stderr(
    `karpenter-doctor: watching ${deployment.namespace}/${deployment.name} logs and the cluster's events${where.context ? ` (context ${where.context})` : ''}; Ctrl-C stops\n`,
  );
  const logs = kubectl.follow([
    'logs',
    '-n',
    deployment.namespace,
    '-l',
    deployment.selector,
    '--all-containers',
    '--prefix',
    '-f',
    `--since=${options.since}`,
    '--max-log-requests=20',
  ]);
  const events = kubectl.follow(['get', 'events', '-A', '--watch', '-o', 'json']);
  children.push(logs.child, events.child);
  try {
    await readSourcesTogether(
      [
        {
          source: { name: `kubectl logs ${deployment.namespace}/${deployment.name}`, found: false },
          bytes: logs.stdout,
        },
        { source: { name: 'kubectl get events', found: false }, bytes: events.stdout },
      ],
      analyzer,
      stats,
      { stdin: () => [], idleFlushMs: FOLLOW_IDLE_MS, signal: stop.signal },
    );
  } finally {
    release();
  }
  const results = await Promise.all([logs.exit, events.exit]);
  const failed = stop.signal.aborted ? [] : results.filter((result) => result.code !== 0);
  for (const result of failed) {
    io.stderr(
      `karpenter-doctor: ${result.command} exited ${result.code}: ${result.stderr.trim().split('\n')[0] ?? ''}\n`,
    );
  }
  const analysis = analyzer.finish();
  const findings = analysis.incidents.map((incident) => buildFinding(incident, { region: where.region }));
  io.stdout(follow.summary(findings, analysis, stats));
  if (failed.length === results.length) return 2;
  return failsOn(findings, options.failOn) ? 1 : 0;
}

interface Exit {
  command: string;
  code: number | null;
  stderr: string;
}

/** kubectl, as the user has it: their PATH, kubeconfig and context. */
class Kubectl {
  constructor(
    private readonly io: Io,
    private readonly context?: string,
  ) {}

  /** The cluster name and region, from the options or the kubectl context (EKS and eksctl names are understood). */
  async currentCluster(options: WatchOptions): Promise<{ cluster: string; region?: string; context?: string }> {
    const context = this.context ?? (await this.run(['config', 'current-context'])).trim();
    const eks = /^arn:aws[a-z-]*:eks:([a-z0-9-]+):\d{12}:cluster\/([A-Za-z0-9_-]+)$/.exec(context);
    const eksctl = /^[^@]+@([A-Za-z0-9_-]+)\.([a-z0-9-]+)\.eksctl\.io$/.exec(context);
    const cluster = options.cluster ?? eks?.[2] ?? eksctl?.[1] ?? context;
    const region = options.region ?? eks?.[1] ?? eksctl?.[2];
    return { cluster, region, context };
  }

  /** The Karpenter deployment: the one named, or the one its Helm label finds. */
  async karpenterDeployment(options: WatchOptions): Promise<{ namespace: string; name: string; selector: string }> {
    const args =
      options.deployment && options.namespace
        ? ['get', 'deployment', options.deployment, '-n', options.namespace, '-o', 'json']
        : [
            'get',
            'deployments',
            ...(options.namespace ? ['-n', options.namespace] : ['-A']),
            '-l',
            KARPENTER_LABEL,
            '-o',
            'json',
          ];
    const document = parseJson(await this.run(args));
    const items = Array.isArray(document.items) ? (document.items as unknown[]) : [document];
    const found = items
      .map(
        (item) =>
          item as {
            metadata?: { name?: string; namespace?: string };
            spec?: { selector?: { matchLabels?: Record<string, string> } };
          },
      )
      .find((item) => item.metadata?.name && (!options.deployment || item.metadata.name === options.deployment));
    if (!found?.metadata?.name) {
      throw new InputError(
        `no Karpenter deployment found (label ${KARPENTER_LABEL}${options.namespace ? ` in ${options.namespace}` : ''}); pass --namespace and --deployment`,
      );
    }
    const labels = found.spec?.selector?.matchLabels ?? {};
    const selector = Object.entries(labels)
      .map(([key, value]) => `${key}=${value}`)
      .join(',');
    return {
      namespace: found.metadata.namespace ?? options.namespace ?? 'default',
      name: found.metadata.name,
      selector: selector || KARPENTER_LABEL,
    };
  }

  /** A long-running kubectl: its output as it comes, and how it ended. */
  follow(args: string[]): { child: ChildProcess; stdout: AsyncIterable<Buffer>; exit: Promise<Exit> } {
    const full = this.withContext(args);
    const command = `kubectl ${args.slice(0, 2).join(' ')}`;
    const child = spawn('kubectl', full, { env: this.io.env, cwd: this.io.cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => {
      if (stderr.length < 4096) stderr += chunk.toString('utf8');
    });
    const exit = new Promise<Exit>((resolve) => {
      child.on('error', (error) => resolve({ command, code: -1, stderr: error.message }));
      child.on('close', (code) => resolve({ command, code, stderr }));
    });
    return { child, stdout: child.stdout!, exit };
  }

  private withContext(args: string[]): string[] {
    return this.context ? ['--context', this.context, ...args] : args;
  }

  private run(args: string[]): Promise<string> {
    return new Promise((resolve, reject) => {
      execFile(
        'kubectl',
        this.withContext(args),
        { env: this.io.env, cwd: this.io.cwd, maxBuffer: 64 * 1024 * 1024 },
        (error, stdout, stderr) => {
          if (!error) return resolve(stdout);
          if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
            return reject(
              new InputError('kubectl was not found on PATH; install it, or pipe logs to analyze --follow -'),
            );
          }
          reject(
            new InputError(`kubectl ${args.join(' ')} failed: ${(stderr || error.message).trim().split('\n')[0]}`),
          );
        },
      );
    });
  }
}

function parseJson(text: string): Record<string, unknown> {
  try {
    const value = JSON.parse(text) as unknown;
    if (typeof value === 'object' && value !== null) return value as Record<string, unknown>;
  } catch {
    // reported below
  }
  throw new InputError(`kubectl printed something that is not JSON: ${text.slice(0, 80)}`);
}
