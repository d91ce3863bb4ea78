import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { main, type Io } from '../../bin/cli/main';
import { ROOT } from '../helpers';

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the CLI in-process with files read from the repository root and output captured. */
export async function runCli(argv: string[], overrides: Partial<Io> = {}): Promise<Run> {
  let stdout = '';
  let stderr = '';
  const io: Io = {
    stdout: (text) => void (stdout += text),
    stderr: (text) => void (stderr += text),
    readFile: (path) => readFileSync(join(ROOT, path), 'utf8'),
    readStdin: () => '',
    env: {},
    isTty: false,
    ...overrides,
  };
  const code = await main(argv, io);
  return { code, stdout, stderr };
}
