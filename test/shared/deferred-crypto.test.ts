import * as crypto from 'node:crypto';
import fc from 'fast-check';
import { createHash, hash, randomInt } from '../../lambdas/shared/deferred-crypto';

describe('deferred-crypto', () => {
  it('hashes exactly as node:crypto does, updated piece by piece, in every digest encoding', () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ unit: 'binary' }), { maxLength: 5 }),
        fc.constantFrom('sha256', 'sha1', 'md5'),
        fc.constantFrom('hex', 'base64', 'base64url') as fc.Arbitrary<crypto.BinaryToTextEncoding>,
        (pieces, algorithm, encoding) => {
          const deferred = createHash(algorithm);
          const direct = crypto.createHash(algorithm);
          for (const piece of pieces) {
            deferred.update(piece);
            direct.update(piece);
          }
          expect(deferred.digest(encoding)).toBe(direct.digest(encoding));
        },
      ),
    );
  });

  it('hashes in one call exactly as node:crypto does, and as a Hash updated with the same text', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'binary' }),
        fc.constantFrom('sha256', 'sha1'),
        fc.constantFrom('hex', 'base64url') as fc.Arbitrary<crypto.BinaryToTextEncoding>,
        (text, algorithm, encoding) => {
          const digest = hash(algorithm, text, encoding);
          expect(digest).toBe(crypto.hash(algorithm, text, encoding));
          expect(digest).toBe(crypto.createHash(algorithm).update(text).digest(encoding));
        },
      ),
    );
  });

  it('draws integers in [min, max) and in [0, max), and calls back when given a callback', async () => {
    fc.assert(
      fc.property(fc.integer({ min: -1000, max: 1000 }), fc.integer({ min: 1, max: 1000 }), (min, span) => {
        const between = randomInt(min, min + span);
        expect(Number.isInteger(between) && between >= min && between < min + span).toBe(true);
        const below = randomInt(span);
        expect(Number.isInteger(below) && below >= 0 && below < span).toBe(true);
      }),
    );
    const drawn = await new Promise<number>((resolve, reject) =>
      randomInt(0, 100, (error, value) => (error ? reject(error) : resolve(value))),
    );
    expect(drawn >= 0 && drawn < 100).toBe(true);
  });

  it('refuses what node:crypto refuses', () => {
    expect(() => createHash('no-such-hash')).toThrow(/Digest method not supported/);
    expect(() => randomInt(5, 5)).toThrow(/out of range/);
  });
});
