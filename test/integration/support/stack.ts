import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { ROOT } from '../../helpers';

/** A CloudFormation template, as `cdk synth` writes it. */
export interface Template {
  Resources: Record<string, Resource>;
  [section: string]: unknown;
}
export interface Resource {
  Type: string;
  Properties?: Record<string, unknown>;
  Metadata?: Record<string, unknown>;
  DependsOn?: string | string[];
}

/** One synthesized app: its output folder, the stack's template and where that template is. */
export interface SynthesizedStack {
  readonly stackName: string;
  readonly outDir: string;
  readonly templatePath: string;
  readonly template: Template;
  /** The logical id of the resource created by the construct at `path` (e.g. `Analyzer/Function`). */
  logicalIdAt(path: string): string;
}

export const STACK_NAME = 'KarpenterDoctor';

/** The configurations the suite synthesizes; global setup synthesizes them all before the tests start. */
export const CONFIGS = {
  example: join(ROOT, 'config', 'karpenter-doctor.example.jsonc'),
  maximal: join(ROOT, 'test', 'integration', 'configs', 'maximal.jsonc'),
  polled: join(ROOT, 'test', 'integration', 'configs', 'polled.jsonc'),
} as const;

/** Where this run keeps its synthesized apps; set by global setup, removed by global teardown. */
export const RUN_DIR_VARIABLE = 'KARPENTER_DOCTOR_INTEGRATION_DIR';

/**
 * Synthesizes the app with `config` exactly as CI and a deployment do — the real `cdk synth`, with
 * esbuild bundling and cdk-nag — into this run's folder, once per configuration and run (global
 * setup synthesizes CONFIGS ahead; another configuration is synthesized on first use).
 */
export function synthesize(config: string): SynthesizedStack {
  const outDir = outDirOf(config);
  if (!existsSync(join(outDir, 'manifest.json'))) {
    const building = `${outDir}.${process.pid}.building`;
    try {
      execFileSync(CDK, synthArguments(config, building), {
        cwd: ROOT,
        env: synthEnv(),
        stdio: 'pipe',
        maxBuffer: 1 << 26,
      });
    } catch (error) {
      const { stdout, stderr } = error as { stdout?: Buffer; stderr?: Buffer };
      throw new Error(`cdk synth -c config=${config} failed:\n${String(stderr ?? '')}${String(stdout ?? '')}`);
    }
    publish(building, outDir);
  }
  const templatePath = join(outDir, `${STACK_NAME}.template.json`);
  const template = JSON.parse(readFileSync(templatePath, 'utf8')) as Template;
  return {
    stackName: STACK_NAME,
    outDir,
    templatePath,
    template,
    logicalIdAt(path) {
      const wanted = [`${STACK_NAME}/${path}/Resource`, `${STACK_NAME}/${path}`];
      const found = Object.entries(template.Resources).find(([, r]) =>
        wanted.includes(String(r.Metadata?.['aws:cdk:path'])),
      );
      if (!found) throw new Error(`The template has no resource at ${path}`);
      return found[0];
    },
  };
}

/** The same synth, asynchronous, so that global setup runs the configurations side by side. */
export async function synthesizeAhead(config: string): Promise<void> {
  const outDir = outDirOf(config);
  if (existsSync(join(outDir, 'manifest.json'))) return;
  const building = `${outDir}.${process.pid}.building`;
  const child = spawn(CDK, synthArguments(config, building), { cwd: ROOT, env: synthEnv(), stdio: 'pipe' });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => void (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => void (output += chunk.toString()));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', resolve);
  });
  if (code !== 0) throw new Error(`cdk synth -c config=${config} failed (exit ${code}):\n${output}`);
  publish(building, outDir);
}

const CDK = join(ROOT, 'node_modules', '.bin', 'cdk');

const synthArguments = (config: string, outDir: string): string[] => [
  'synth',
  '-q',
  '-o',
  outDir,
  '-c',
  `config=${config}`,
];

const synthEnv = (): NodeJS.ProcessEnv => ({ ...process.env, CI: 'true', NO_COLOR: '1' });

const outDirOf = (config: string): string =>
  join(runDir(), `${basename(config).replace(/\W+/g, '-')}-${hash(resolve(config))}`);

/** Moves a finished synth in place; if another worker finished the same synth first, keeps that one. */
function publish(building: string, outDir: string): void {
  if (existsSync(join(outDir, 'manifest.json'))) rmSync(building, { recursive: true, force: true });
  else renameSync(building, outDir);
}

function runDir(): string {
  let dir = process.env[RUN_DIR_VARIABLE];
  if (!dir) {
    // Outside the suite's global setup (a single file run by hand): a folder of this process.
    dir = join(tmpdir(), `karpenter-doctor-integration-${process.pid}`);
    process.env[RUN_DIR_VARIABLE] = dir;
  }
  mkdirSync(dir, { recursive: true });
  return dir;
}

const hash = (text: string): string => createHash('sha256').update(text).digest('hex').slice(0, 10);
