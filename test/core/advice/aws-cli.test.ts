import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { adviceCommands, withDummies } from '../../support/advice-cases';
import { firstCommandWords } from '../../support/shell-words';

/**
 * Every `aws` command the advice prints is parsed by the real AWS CLI v1 (python3 with the awscli package):
 * pointed at an endpoint nothing listens on, a command the CLI accepts fails with "Could not connect to the
 * endpoint URL"; a wrong one fails on its syntax first (unknown option, invalid choice, parameter
 * validation). Placeholders are filled with values of the right shape; each distinct command runs once, all
 * in one Python process (the CLI's own driver), so the check takes seconds.
 */

const HELPER = join(__dirname, '..', '..', 'support', 'aws-cli-syntax.py');
const ACCEPTED = /Could not connect to the endpoint URL/;

interface CliResult {
  rc: number;
  stderr: string;
}

function parseWithAwsCli(commands: string[][]): CliResult[] {
  const run = spawnSync('python3', [HELPER], { input: JSON.stringify(commands), encoding: 'utf8', timeout: 300_000 });
  if (run.error || run.status !== 0) {
    throw new Error(
      `The AWS CLI v1 is needed for this check (python3 with the awscli package, as 'aws' on this machine and in CI): ${
        run.error?.message ?? run.stderr.slice(-800)
      }`,
    );
  }
  return JSON.parse(run.stdout) as CliResult[];
}

const printed = adviceCommands().filter(({ command }) => command.startsWith('aws '));
const distinct = [...new Map(printed.map((p) => [withDummies(p.command), p])).entries()];

/** Mistakes the check must catch: an unknown option, a bad value type, an unknown operation. */
const KNOWN_BAD = [
  'aws ec2 describe-subnets --subnet-idz subnet-0123456789abcdef0',
  'aws eks update-nodegroup-config --cluster-name prod --nodegroup-name system --scaling-config minSize=two',
  'aws autoscaling update-autoscaling-group --auto-scaling-group-name system --min-size 2',
];

describe('printed aws commands', () => {
  it('are many enough to mean something', () => {
    expect(distinct.length).toBeGreaterThan(30);
  });

  it('all parse with the real AWS CLI v1, which rejects known-bad ones', () => {
    const argvs = [...KNOWN_BAD, ...distinct.map(([filled]) => filled)].map((c) => firstCommandWords(c).slice(1));
    const results = parseWithAwsCli(argvs);
    expect(results.slice(0, KNOWN_BAD.length).filter((r) => ACCEPTED.test(r.stderr))).toEqual([]);
    const rejected = distinct
      .map(([filled, origin], i) => ({ filled, origin, result: results[KNOWN_BAD.length + i]! }))
      .filter(({ result }) => !ACCEPTED.test(result.stderr))
      .map(
        ({ origin, filled, result }) =>
          `${origin.label}: ${filled}\n    → exit ${result.rc}: ${result.stderr.trim().split('\n').slice(-2).join(' ')}`,
      );
    expect(rejected).toEqual([]);
  }, 300_000);
});
