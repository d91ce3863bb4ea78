import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CONFIGS, RUN_DIR_VARIABLE, synthesizeAhead } from './support/stack';

/**
 * Once per run, before any test file: a folder for this run's synthesized apps (the test workers
 * inherit its path) and the real bundled synth of every configuration the suite uses, side by side.
 * A folder given in KARPENTER_DOCTOR_INTEGRATION_DIR is used, and kept, as it is: what was already
 * synthesized there is reused (for iterating on the tests, never in CI).
 */
export default async function globalSetup(): Promise<void> {
  if (process.env[RUN_DIR_VARIABLE]) {
    process.env.KARPENTER_DOCTOR_INTEGRATION_KEEP = 'true';
  } else {
    process.env[RUN_DIR_VARIABLE] = mkdtempSync(join(tmpdir(), 'karpenter-doctor-integration-'));
  }
  await Promise.all(Object.values(CONFIGS).map((config) => synthesizeAhead(config)));
}
