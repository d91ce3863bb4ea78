import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';

/** The context the fake kubectl is on: an EKS cluster ARN, so the CLI learns cluster and region from it. */
export const FAKE_CONTEXT = 'arn:aws:eks:eu-west-1:111122223333:cluster/prod-eu';

export interface FakeKubectl {
  /** The folder of this test: the fake kubectl, its answer files and `calls.txt`. */
  readonly dir: string;
  /** An environment whose PATH finds the fake kubectl first. */
  env(): { PATH: string };
  /** Every command line kubectl was given, in order. */
  calls(): string[][];
  /**
   * Writes the answer files into the folder and a kubectl that records its arguments, answers
   * `config current-context` with FAKE_CONTEXT, and otherwise runs `answer` (JavaScript with `fs`,
   * `path`, `dir`, `args` and `has(...words)` in scope).
   */
  install(answer: string, files?: Record<string, string>): void;
}

/** A fresh folder with a fake kubectl for each test of the enclosing describe, removed after it. */
export function useFakeKubectl(prefix: string): FakeKubectl {
  let dir = '';
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), prefix))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  return {
    get dir() {
      return dir;
    },
    env: () => ({ PATH: `${dir}${delimiter}${process.env.PATH}` }),
    calls: () =>
      readFileSync(join(dir, 'calls.txt'), 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as string[]),
    install(answer, files = {}) {
      for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
      const script = `#!/usr/bin/env node
const fs = require('fs');
const path = require('path');
const dir = ${JSON.stringify(dir)};
const args = process.argv.slice(2);
const has = (...words) => words.every((w) => args.includes(w));
fs.appendFileSync(path.join(dir, 'calls.txt'), JSON.stringify(args) + '\\n');
if (has('config', 'current-context')) { process.stdout.write(${JSON.stringify(FAKE_CONTEXT + '\n')}); process.exit(0); }
${answer}
`;
      writeFileSync(join(dir, 'kubectl'), script);
      chmodSync(join(dir, 'kubectl'), 0o755);
    },
  };
}
