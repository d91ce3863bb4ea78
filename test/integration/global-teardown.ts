import { rmSync } from 'node:fs';
import { RUN_DIR_VARIABLE } from './support/stack';

/** Removes this run's synthesized apps. (Each test file stops its own emulator in afterAll.) */
export default function globalTeardown(): void {
  const dir = process.env[RUN_DIR_VARIABLE];
  if (dir && process.env.KARPENTER_DOCTOR_INTEGRATION_KEEP !== 'true') rmSync(dir, { recursive: true, force: true });
}
