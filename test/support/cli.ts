import { main, type Io } from '../../bin/cli/main';
import { ROOT } from '../helpers';

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

export interface CliOverrides extends Partial<Io> {
  /** Standard input as one string (shorthand for `stdin`). */
  readStdin?: () => string;
}

/** Runs the CLI in-process with files read from the repository root and output captured. */
export async function runCli(argv: string[], overrides: CliOverrides = {}): Promise<Run> {
  let stdout = '';
  let stderr = '';
  const { readStdin, ...rest } = overrides;
  const io: Io = {
    stdout: (text) => void (stdout += text),
    stderr: (text) => void (stderr += text),
    drain: async () => undefined,
    stdin: () => [Buffer.from(readStdin ? readStdin() : '', 'utf8')],
    cwd: ROOT,
    env: {},
    isTty: false,
    stdinIsTty: false,
    onInterrupt: () => () => undefined,
    ...rest,
  };
  const code = await main(argv, io);
  return { code, stdout, stderr };
}
