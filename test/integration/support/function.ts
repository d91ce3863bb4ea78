import { fork, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

/** What Lambda would report for one invocation: the handler's return value, or the error it threw. */
export type Invocation<T = unknown> = { ok: true; result: T } | { ok: false; error: { name: string; message: string } };

export interface FunctionSpec {
  /** Folder of the bundled asset (cdk.out/asset.<hash>), holding index.js. */
  readonly assetDir: string;
  /** `index.handler`, as in the template. */
  readonly handler: string;
  readonly functionName: string;
  readonly functionArn: string;
  readonly timeoutSeconds: number;
  /** The complete environment of the function: nothing of the test process leaks in. */
  readonly environment: Record<string, string>;
}

export interface InvokeOptions {
  /** The wall-clock time (epoch ms) the invocation runs at; the function's Date follows it. @default now */
  at?: number;
}

/**
 * A bundled function in a Lambda-like execution environment: a child process with exactly the
 * function's environment, which loads the asset once and invokes its handler per event (warm
 * invocations keep module state). The emulator cannot invoke Lambda (it needs Docker), so the tests
 * play the Lambda service: they deliver each event here themselves.
 */
export class BundledFunction {
  private child?: ChildProcess;
  private nextId = 0;
  private readonly waiting = new Map<number, (reply: Invocation) => void>();

  constructor(readonly spec: FunctionSpec) {}

  async invoke<T = unknown>(event: unknown, options: InvokeOptions = {}): Promise<Invocation<T>> {
    const child = await this.environment();
    const id = ++this.nextId;
    const reply = new Promise<Invocation>((resolve) => this.waiting.set(id, resolve));
    child.send({
      id,
      event,
      at: options.at,
      context: {
        functionName: this.spec.functionName,
        invokedFunctionArn: this.spec.functionArn,
        timeoutMs: this.spec.timeoutSeconds * 1000,
      },
    });
    return (await reply) as Invocation<T>;
  }

  /** Ends the execution environment; the next invocation is a cold start. */
  async stop(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGKILL');
    await gone;
  }

  private async environment(): Promise<ChildProcess> {
    if (this.child) return this.child;
    const child = fork(join(__dirname, 'lambda-runtime.js'), [this.spec.assetDir, this.spec.handler], {
      env: this.spec.environment,
      execArgv: ['--enable-source-maps'],
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    // The function's own log output (JSON lines from Powertools) is kept for failure messages only.
    let output = '';
    const keep = (chunk: Buffer): void => void (output = (output + chunk.toString()).slice(-8000));
    child.stdout!.on('data', keep);
    child.stderr!.on('data', keep);
    const ready = new Promise<void>((resolve, reject) => {
      child.once('exit', (code, signal) => {
        this.child = undefined;
        const error = { name: 'RuntimeExited', message: `exited (${signal ?? code}):\n${output}` };
        for (const resolveReply of this.waiting.values()) resolveReply({ ok: false, error });
        this.waiting.clear();
        reject(new Error(`${this.spec.functionName}: the execution environment ${error.message}`));
      });
      child.on('message', (message: { ready?: boolean; id?: number } & Invocation) => {
        if (message.ready) return resolve();
        const resolveReply = message.id === undefined ? undefined : this.waiting.get(message.id);
        this.waiting.delete(message.id!);
        resolveReply?.(message);
      });
    });
    this.child = child;
    await ready;
    return child;
  }
}
