import { deploy, type Deployment } from './deploy';
import { startMoto, type Moto } from './moto';
import type { SynthesizedStack } from './stack';

/** A stack deployed on a moto server, for the tests of one file (`useDeployment`). */
export interface DeploymentHarness {
  /** The emulator (inside a test or hook). */
  readonly moto: Moto;
  /** The current deployment (inside a test or hook, once one is made). */
  readonly aws: Deployment;
  /** Stops the current deployment, resets the emulator and deploys `stack` (by default the file's) afresh. */
  redeploy(stack?: SynthesizedStack): Promise<Deployment>;
}

/**
 * The moto server and deployment lifecycle of one integration test file, registered in its hooks:
 * the server starts once for the file; `stack` is deployed afresh on a reset emulator before each
 * test (`each`), once for the whole file (`once`: a story told over several tests), or only when a
 * test calls `redeploy` (`on-demand`: each test deploys the stack it needs). After the file the
 * deployment and the server stop.
 */
export function useDeployment(
  stack: SynthesizedStack | undefined,
  when: 'each' | 'once' | 'on-demand' = 'each',
): DeploymentHarness {
  let moto: Moto | undefined;
  let aws: Deployment | undefined;
  const redeploy = async (next = stack): Promise<Deployment> => {
    if (!next) throw new Error('useDeployment: no stack to deploy');
    await aws?.stop();
    await moto!.reset();
    aws = await deploy(next, moto!);
    return aws;
  };

  beforeAll(async () => {
    moto = await startMoto();
    if (when === 'once') aws = await deploy(stack!, moto);
  });
  afterAll(async () => {
    await aws?.stop();
    await moto?.stop();
  });
  if (when === 'each') beforeEach(() => redeploy());

  return {
    get moto() {
      return moto!;
    },
    get aws() {
      return aws!;
    },
    redeploy,
  };
}
