import type { ByteSource } from './text-input';

/** Everything the CLI touches outside itself, so it runs in-process in tests. */
export interface Io {
  /** Writes to standard output; false when the caller should wait for `drain` before writing more. */
  stdout: (text: string) => boolean | void;
  stderr: (text: string) => void;
  /** Resolves when standard output can take more. */
  drain: () => Promise<void>;
  /** Standard input, as bytes. */
  stdin: () => ByteSource;
  /** Directory relative paths are read from. */
  cwd: string;
  env: NodeJS.ProcessEnv;
  isTty: boolean;
  /** Standard input is a terminal: nobody is piping logs in. */
  stdinIsTty: boolean;
  /** Calls the handler on Ctrl-C (SIGINT) or SIGTERM; returns a function that stops listening. */
  onInterrupt: (handler: () => void) => () => void;
}

export const processIo = (): Io => ({
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => void process.stderr.write(text),
  drain: () => new Promise((resolve) => process.stdout.once('drain', resolve)),
  stdin: () => process.stdin,
  cwd: process.cwd(),
  env: process.env,
  isTty: Boolean(process.stdout.isTTY),
  stdinIsTty: Boolean(process.stdin.isTTY),
  onInterrupt: (handler) => {
    process.once('SIGINT', handler);
    process.once('SIGTERM', handler);
    return () => {
      process.off('SIGINT', handler);
      process.off('SIGTERM', handler);
    };
  },
});
