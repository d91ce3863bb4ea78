import { buildCli } from '../scripts/build';

/** Tests that run the bin run what users run: the CLI compiled by `npm run build`, built fresh here. */
export default async function globalSetup(): Promise<void> {
  await buildCli();
}
