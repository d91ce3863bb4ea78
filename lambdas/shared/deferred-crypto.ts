import type * as Crypto from 'node:crypto';

/**
 * What the analyzer's cold-start bundles take from `node:crypto`, loaded on the first call instead
 * of when the bundle loads. The bundling aliases `node:crypto` to this file for the bundles a batch
 * without a finding runs (`cryptoOnFirstUse` in lib/constructs/lambda-function.ts): Powertools
 * Logger imports `randomInt` at its top for debug-log sampling, and the core imports `createHash`
 * for batch ids and `hash` for finding ids and event keys, yet such a batch calls none of them, and loading node:crypto (about twenty
 * internal modules) was about a third of index.js's import CPU (`npm run bench -- cold`). The first
 * finding loads the AWS SDK, which needs node:crypto whole, so nothing is saved after it and the
 * alias stops there. Importing anything else from node:crypto in an aliased bundle fails its build
 * ("No matching export"): add it here.
 */
const builtin = (): typeof Crypto => process.getBuiltinModule('node:crypto');

export const createHash: typeof Crypto.createHash = (algorithm, options) => builtin().createHash(algorithm, options);

/** The one-shot digest (the aggregator's finding ids and event keys). */
export const hash = ((...args: unknown[]): unknown =>
  Reflect.apply(builtin().hash, undefined, args)) as typeof Crypto.hash;

export const randomInt = ((...args: unknown[]): unknown =>
  Reflect.apply(builtin().randomInt, undefined, args)) as typeof Crypto.randomInt;
