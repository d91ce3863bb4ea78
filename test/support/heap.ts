import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

// A full collection before each reading, so that what is measured is what is still reachable.
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** Bytes of V8 heap still reachable after `work` than before it (after a full collection each time). */
export async function heapGrowthOf(work: () => unknown): Promise<number> {
  gc();
  const before = process.memoryUsage().heapUsed;
  await work();
  gc();
  return process.memoryUsage().heapUsed - before;
}
