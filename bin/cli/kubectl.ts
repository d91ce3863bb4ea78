import { execFile, spawn, type ChildProcess } from 'node:child_process';
import type { Io } from './io';
import { InputError } from './text-input';

/** The label the Karpenter Helm chart puts on its deployment. */
const KARPENTER_LABEL = 'app.kubernetes.io/name=karpenter';

/** A kubectl that ran and failed: its command and the first line it wrote on stderr. */
export class KubectlError extends InputError {
  constructor(
    readonly args: readonly string[],
    readonly firstLine: string,
  ) {
    super(`kubectl ${args.join(' ')} failed: ${firstLine}`);
  }
}

interface Exit {
  command: string;
  code: number | null;
  stderr: string;
}

/** kubectl, as the user has it: their PATH, kubeconfig and context. */
export class Kubectl {
  constructor(
    private readonly io: Io,
    private readonly context?: string,
  ) {}

  /** The cluster name and region, from the options or the kubectl context (EKS and eksctl names are understood). */
  async currentCluster(options: {
    cluster?: string;
    region?: string;
  }): Promise<{ cluster: string; region?: string; context?: string }> {
    const context = this.context ?? (await this.run(['config', 'current-context'])).trim();
    const eks = /^arn:aws[a-z-]*:eks:([a-z0-9-]+):\d{12}:cluster\/([A-Za-z0-9_-]+)$/.exec(context);
    const eksctl = /^[^@]+@([A-Za-z0-9_-]+)\.([a-z0-9-]+)\.eksctl\.io$/.exec(context);
    const cluster = options.cluster ?? eks?.[2] ?? eksctl?.[1] ?? context;
    const region = options.region ?? eks?.[1] ?? eksctl?.[2];
    return { cluster, region, context };
  }

  /** The Karpenter deployment: the one named, or the one its Helm label finds. */
  async karpenterDeployment(options: {
    namespace?: string;
    deployment?: string;
  }): Promise<{ namespace: string; name: string; selector: string }> {
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

  /** A kubectl that ends: what it printed, or an InputError (KubectlError when it ran and failed). */
  run(args: string[]): Promise<string> {
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
          const lines = (stderr || error.message).trim().split('\n');
          // kubectl may warn before it errs (deprecations, client throttling): the error line says why.
          reject(new KubectlError(args, lines.find((line) => /^error/i.test(line)) ?? lines[0] ?? ''));
        },
      );
    });
  }
}

export function parseJson(text: string): Record<string, unknown> {
  try {
    const value = JSON.parse(text) as unknown;
    if (typeof value === 'object' && value !== null) return value as Record<string, unknown>;
  } catch {
    // reported below
  }
  throw new InputError(`kubectl printed something that is not JSON: ${text.slice(0, 80)}`);
}
