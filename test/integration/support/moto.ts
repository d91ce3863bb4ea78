import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';

/**
 * A moto server (the local AWS emulator, docs/integration-tests.md) on 127.0.0.1 at a port chosen at
 * run time. Start one per test file in `beforeAll`, `reset()` it in `beforeEach`, `stop()` it in
 * `afterAll`. It runs in a process group of its own, which `stop()` — and, should the test process
 * end without it, an exit hook — kills as a whole, so no emulator outlives the tests.
 */
export interface Moto {
  /** `http://127.0.0.1:<port>`: what `AWS_ENDPOINT_URL` and the SDK clients' `endpoint` point at. */
  readonly endpoint: string;
  /** Clears every service's state (`POST /moto-api/reset`). */
  reset(): Promise<void>;
  /** Stops the emulator and waits for it to exit. */
  stop(): Promise<void>;
}

/** Region and account the emulator answers for (moto's default account). */
export const REGION = 'eu-west-1';
export const ACCOUNT = '123456789012';
/** Dummy credentials: moto checks none, and no real credential is ever read by the tests. */
export const CREDENTIALS = { accessKeyId: 'integration', secretAccessKey: 'integration' } as const;

const INSTALL_HINT = 'install it with: pip install "moto[server]" (see docs/integration-tests.md)';
const START_TIMEOUT_MS = 90_000;
const running = new Set<ChildProcess>();
let exitHookInstalled = false;

export async function startMoto(): Promise<Moto> {
  let lastError: unknown;
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      return await startOnce(await freePort());
    } catch (error) {
      if (error instanceof MotoMissingError) throw error;
      lastError = error; // most likely the port was taken between choosing and binding it
    }
  }
  throw lastError;
}

class MotoMissingError extends Error {}

async function startOnce(port: number): Promise<Moto> {
  const endpoint = `http://127.0.0.1:${port}`;
  const child = spawn('moto_server', ['-H', '127.0.0.1', '-p', String(port)], {
    detached: true, // its own process group, killed as one
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, PYTHONUNBUFFERED: '1' },
  });
  installExitHook();
  running.add(child);
  // moto logs every request; keep only the tail, for the error message of a failed start.
  let tail = '';
  const keep = (chunk: Buffer): void => void (tail = (tail + chunk.toString()).slice(-4000));
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const exited = new Promise<string>((resolve) => {
    child.once('error', (error: NodeJS.ErrnoException) =>
      resolve(error.code === 'ENOENT' ? 'ENOENT' : `could not start moto_server: ${error.message}`),
    );
    child.once('exit', (code, signal) => {
      running.delete(child);
      resolve(`moto_server exited (${signal ?? code}) before answering:\n${tail}`);
    });
  });

  const ready = await Promise.race([waitUntilUp(endpoint), exited]);
  if (ready !== true) {
    killGroup(child, 'SIGKILL');
    if (ready === 'ENOENT') throw new MotoMissingError(`moto_server is not on the PATH; ${INSTALL_HINT}`);
    throw new Error(typeof ready === 'string' ? ready : `moto_server did not answer on ${endpoint}`);
  }

  return {
    endpoint,
    async reset() {
      const response = await fetch(`${endpoint}/moto-api/reset`, { method: 'POST' });
      if (!response.ok) throw new Error(`moto reset answered ${response.status}`);
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      killGroup(child, 'SIGTERM');
      const timer = setTimeout(() => killGroup(child, 'SIGKILL'), 5_000);
      await gone;
      clearTimeout(timer);
    },
  };
}

/** Polls `GET /moto-api/` until it answers 200; false after the start timeout. */
async function waitUntilUp(endpoint: string): Promise<true | false> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (Date.now() < deadline) {
    try {
      const response = await fetch(`${endpoint}/moto-api/`);
      if (response.ok) return true;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return false;
}

/** A port the kernel just handed out on loopback; moto binds it right after. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // already gone
  }
}

/** Kills every emulator still running when the process exits, whatever made it exit. */
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const child of running) killGroup(child, 'SIGKILL');
  });
}
