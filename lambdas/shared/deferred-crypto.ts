import type * as Crypto from 'node:crypto';

/**
 * What the cold-start bundles take from `node:crypto`, loaded on first call: a batch without a finding calls
 * none (docs/architecture.md, Bundling the functions). A bundle importing anything else fails to build: add it here.
 */
const builtin = (): typeof Crypto => process.getBuiltinModule('node:crypto');

export const createHash: typeof Crypto.createHash = (algorithm, options) => builtin().createHash(algorithm, options);

/** The one-shot digest (the aggregator's finding ids and event keys). */
export const hash = ((...args: unknown[]): unknown =>
  Reflect.apply(builtin().hash, undefined, args)) as typeof Crypto.hash;

export const randomInt = ((...args: unknown[]): unknown =>
  Reflect.apply(builtin().randomInt, undefined, args)) as typeof Crypto.randomInt;
