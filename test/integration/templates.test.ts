import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CONFIGS, synthesize } from './support/stack';

/**
 * cfn-lint (AWS's CloudFormation linter) on every template the suite synthesizes: the example
 * configuration and the maximal one (every option on). No error; every warning is one listed here
 * with the reason it is expected.
 */
interface Match {
  Filename: string;
  Level: 'Error' | 'Warning' | 'Informational';
  Rule: { Id: string };
  Location: { Path: Array<string | number> };
  Message: string;
}

const EXPECTED_WARNINGS: Array<{ rule: string; path: RegExp; reason: string }> = [
  {
    rule: 'W3005',
    path: /^Resources\/\w+Function[0-9A-F]{8}\/DependsOn\/\d+$/,
    reason:
      "CDK makes every Lambda function depend on its role and the role's default policy, so the policy exists before the function can run; the dependency on the role is also implied by Fn::GetAtt Role.Arn, which is all W3005 says.",
  },
];

const configs = Object.entries(CONFIGS);

describe('the synthesized templates pass cfn-lint', () => {
  let matches: Map<string, Match[]>;
  let broken: Match[];
  const scratch = mkdtempSync(join(tmpdir(), 'karpenter-doctor-cfn-lint-'));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  beforeAll(async () => {
    const stacks = configs.map(([, config]) => synthesize(config));
    // A copy with a defect cfn-lint must report, to show that it reads these templates at all.
    const defective = JSON.parse(JSON.stringify(stacks[0]!.template)) as ReturnType<typeof synthesize>['template'];
    const table = defective.Resources[stacks[0]!.logicalIdAt('Incidents/Table')]!.Properties!;
    table.KeySchema = [{ AttributeName: 'undefinedKey', KeyType: 'HASH' }];
    const defectivePath = join(scratch, 'defective.template.json');
    writeFileSync(defectivePath, JSON.stringify(defective));

    const all = await cfnLint([...stacks.map((s) => s.templatePath), defectivePath]);
    matches = new Map(configs.map(([name], i) => [name, all.filter((m) => m.Filename === stacks[i]!.templatePath)]));
    broken = all.filter((m) => m.Filename === defectivePath);
  });

  it('reports the defect of a deliberately broken copy (the linter really reads the templates)', () => {
    expect(broken.filter((m) => m.Level === 'Error').map((m) => m.Location.Path.join('/'))).toEqual(
      expect.arrayContaining([expect.stringMatching(/^Resources\/IncidentsTable\w+\/Properties/)]),
    );
  });

  it.each(configs.map(([name]) => name))('%s: no error, and only the expected warnings', (name) => {
    const found = matches.get(name)!;
    const summary = (m: Match) => `${m.Level} ${m.Rule.Id} ${m.Location.Path.join('/')}: ${m.Message}`;
    expect(found.filter((m) => m.Level === 'Error').map(summary)).toEqual([]);
    const unexpected = found.filter(
      (m) =>
        m.Level === 'Warning' &&
        !EXPECTED_WARNINGS.some((w) => w.rule === m.Rule.Id && w.path.test(m.Location.Path.join('/'))),
    );
    expect(unexpected.map(summary)).toEqual([]);
  });
});

/** One cfn-lint run over all templates (it takes seconds to start); its JSON findings. */
function cfnLint(templates: string[]): Promise<Match[]> {
  return new Promise((resolve, reject) => {
    // Exit codes are a bitmask of what was found (2 error, 4 warning, 8 informational): read the JSON.
    execFile('cfn-lint', ['--format', 'json', ...templates], { maxBuffer: 1 << 24 }, (error, stdout, stderr) => {
      if (error && (error as NodeJS.ErrnoException).code === 'ENOENT') {
        return reject(new Error('cfn-lint is not on the PATH; install it with: pip install cfn-lint'));
      }
      try {
        resolve(JSON.parse(stdout) as Match[]);
      } catch {
        reject(new Error(`cfn-lint did not answer JSON (${error?.message ?? 'no error'}):\n${stderr}${stdout}`));
      }
    });
  });
}
