import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { ROOT } from '../helpers';

/**
 * The package as users get it: `npm pack` (of the dist/ that test/global-setup.ts built), installed
 * globally into a temporary prefix, offline, and run outside the repository.
 */
describe('the npm package', () => {
  let dir: string;
  let prefix: string;
  let files: string[];
  const npm = (args: string[], cwd: string) =>
    spawnSync('npm', args, {
      cwd,
      encoding: 'utf8',
      env: { ...process.env, npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false' },
    });

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'karpenter-doctor-package-'));
    prefix = join(dir, 'prefix');
    // --ignore-scripts: dist/ is already built, and rebuilding it here would race the other test files.
    const pack = npm(['pack', '--ignore-scripts', '--json', '--pack-destination', dir], ROOT);
    expect(pack.status).toBe(0);
    const [packed] = JSON.parse(pack.stdout) as Array<{ filename: string; files: Array<{ path: string }> }>;
    files = packed!.files.map((file) => file.path).sort();
    const install = npm(['install', '--global', '--offline', '--prefix', prefix, join(dir, packed!.filename)], dir);
    expect(install.stderr).not.toMatch(/ERR!/);
    expect(install.status).toBe(0);
  }, 180_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('holds the compiled CLI and its bins, not the sources', () => {
    expect(files).toEqual(
      expect.arrayContaining([
        'bin/karpenter-doctor.js',
        'bin/kubectl-karpenter_doctor.js',
        'bin/node-check.js',
        'dist/cli.js',
        'dist/enrich.js',
        'package.json',
      ]),
    );
    expect(files.filter((file) => /^(lambdas|lib|test|scripts)\//.test(file) || file.endsWith('.ts'))).toEqual([]);
  });

  it('needs nothing else at run time: every dependency is bundled', () => {
    const installed = JSON.parse(
      readFileSync(join(prefix, 'lib', 'node_modules', 'karpenter-doctor', 'package.json'), 'utf8'),
    ) as { dependencies?: object };
    expect(installed.dependencies ?? {}).toEqual({});
  });

  it('runs outside the repository from the global prefix', () => {
    const log = join(dir, 'karpenter.log');
    copyFileSync(join(ROOT, 'examples', 'karpenter-controller.log'), log);
    const bin = join(prefix, 'bin', 'karpenter-doctor');
    const version = spawnSync(bin, ['--version'], { cwd: dir, encoding: 'utf8' });
    expect(version.stdout).toBe(`${JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version}\n`);
    const analyze = spawnSync(bin, ['analyze', 'karpenter.log', '--fail-on', 'critical'], {
      cwd: dir,
      encoding: 'utf8',
    });
    expect(analyze.status).toBe(1);
    expect(analyze.stdout).toMatch(/^2 findings \(1 critical, 1 high\) in 2001 records\./);
  });

  const kubectl = spawnSync('sh', ['-c', 'command -v kubectl'], { encoding: 'utf8' }).stdout.trim();
  (kubectl ? it : it.skip)('is found by kubectl as `kubectl karpenter-doctor`', () => {
    const result = spawnSync(kubectl, ['karpenter-doctor', '--version'], {
      cwd: dir,
      encoding: 'utf8',
      env: { ...process.env, PATH: `${join(prefix, 'bin')}${delimiter}${process.env.PATH}` },
    });
    expect(result.stderr).toBe('');
    expect(result.stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
  });

  it('installs the kubectl plugin beside it', () => {
    const plugin = spawnSync(join(prefix, 'bin', 'kubectl-karpenter_doctor'), ['rules'], {
      cwd: dir,
      encoding: 'utf8',
    });
    expect(plugin.status).toBe(0);
    expect(plugin.stdout).toContain('subnet-ip-exhaustion');
  });
});
