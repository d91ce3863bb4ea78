import { main } from './main';
import { processIo } from './io';

/**
 * The compiled CLI's entry (dist/cli.js, built by `npm run build`): runs main under `name` and
 * turns its result into the process exit code. A reader that goes away (`| head`) ends the run
 * quietly; anything main did not handle is an internal error, exit 3.
 */
export function run(name: string): void {
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    process.stderr.write(`karpenter-doctor: cannot write the output: ${error.message}\n`);
    process.exit(3);
  });
  main(process.argv.slice(2), processIo(), name).then(
    (code) => {
      process.exitCode = code;
      // Standard input may still be open (a pipe nobody closed): it must not keep the process alive.
      if (process.stdin.readableFlowing !== null) process.stdin.destroy();
    },
    (error: unknown) => {
      process.stderr.write(
        `karpenter-doctor: internal error: ${error instanceof Error ? error.message : String(error)}\n`,
      );
      process.exitCode = 3;
    },
  );
}
