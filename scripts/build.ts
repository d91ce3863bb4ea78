/**
 * npm run build: compiles the CLI with esbuild into dist/. dist/cli.js holds the CLI and the
 * analysis core; dist/enrich.js holds `--enrich` and the AWS SDK, and is read only when --enrich is
 * given. Both bundle their dependencies, so the package needs nothing else at run time.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { build, type Plugin } from 'esbuild';

const ROOT = join(__dirname, '..');

/** The CLI refers to its enrichment module; in the build that is the separate dist/enrich.js. */
const enrichApart: Plugin = {
  name: 'enrich-apart',
  setup(builder) {
    builder.onResolve({ filter: /^\.\/enrich$/ }, (args) =>
      args.importer.endsWith(join('bin', 'cli', 'analyze-command.ts'))
        ? { path: './enrich.js', external: true }
        : undefined,
    );
  },
};

export async function buildCli(outdir = join(ROOT, 'dist')): Promise<void> {
  rmSync(outdir, { recursive: true, force: true });
  const common = {
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    minify: true,
    legalComments: 'eof',
    logLevel: 'warning',
  } as const;
  await Promise.all([
    build({
      ...common,
      entryPoints: [join(ROOT, 'bin', 'cli', 'entry.ts')],
      outfile: join(outdir, 'cli.js'),
      plugins: [enrichApart],
    }),
    build({ ...common, entryPoints: [join(ROOT, 'bin', 'cli', 'enrich.ts')], outfile: join(outdir, 'enrich.js') }),
  ]);
}

if (require.main === module) {
  buildCli().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
