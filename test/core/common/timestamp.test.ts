import fc from 'fast-check';
import { epochMsOf, isoOf, parseTimestamp } from '../../../lambdas/core/common/timestamp';

/** What the pipeline did before times were numbers: kept the string, then `Date.parse` per signal. */
const slowParse = (text: string): number | undefined => {
  const parsed = Date.parse(text);
  return Number.isNaN(parsed) ? undefined : parsed;
};

/** …and an epoch number turned into ISO by the parser, then parsed back. */
const slowEpoch = (value: number): number | undefined => {
  const date = new Date(value < 1e11 ? value * 1000 : value);
  return Number.isNaN(date.getTime()) ? undefined : slowParse(date.toISOString());
};

const padded = (digits: number, max: number) => fc.integer({ min: 0, max }).map((n) => String(n).padStart(digits, '0'));

/** RFC 3339 timestamps, most in range, some out of it (month 13, February 30th, hour 24, offset +24:00). */
const rfc3339 = fc
  .tuple(
    padded(4, 9999),
    padded(2, 13),
    padded(2, 32),
    fc.constantFrom('T', 't', ' '),
    padded(2, 24),
    padded(2, 60),
    padded(2, 60),
    fc.option(fc.stringMatching(/^\d{0,12}$/), { nil: undefined }),
    fc.oneof(
      fc.constantFrom('Z', 'z', ''),
      fc
        .tuple(fc.constantFrom('+', '-'), padded(2, 25), fc.constantFrom(':', ''), padded(2, 61))
        .map((parts) => parts.join('')),
    ),
  )
  .map(
    ([year, month, day, t, hour, minute, second, fraction, zone]) =>
      `${year}-${month}-${day}${t}${hour}:${minute}:${second}${fraction === undefined ? '' : `.${fraction}`}${zone}`,
  );

describe('parseTimestamp', () => {
  it('reads what Date.parse reads, the same, for RFC 3339 timestamps in and out of range', () => {
    fc.assert(
      fc.property(rfc3339, (text) => {
        expect(parseTimestamp(text)).toBe(slowParse(text));
      }),
      { numRuns: 20_000 },
    );
  });

  it('reads what Date.parse reads for anything else: other date forms, cut timestamps, noise', () => {
    const other = fc.oneof(
      rfc3339.chain((text) => fc.integer({ min: 0, max: text.length }).map((end) => text.slice(0, end))),
      fc.date({ noInvalidDate: true }).map((date) => date.toUTCString()),
      fc.date({ noInvalidDate: true }).map((date) => date.toISOString()),
      fc.string({ maxLength: 40 }),
      fc.constantFrom('', '2024-08-21', '2024-08-21T12:03', 'I0821 12:03:10.958', '+010000-01-01T00:00:00.000Z'),
    );
    fc.assert(
      fc.property(other, (text) => {
        expect(parseTimestamp(text)).toBe(slowParse(text));
      }),
      { numRuns: 10_000 },
    );
  });

  it('reads what Date.parse reads for a timestamp with one character changed (a digit to a sign, a colon, a letter)', () => {
    const bent = fc
      .tuple(
        rfc3339,
        fc.nat(),
        fc.constantFrom('/', ':', '-', '+', '.', 'Z', 'a', ' ', '\u0660', '\uff10', '０', '9', '0'),
      )
      .map(([text, at, char]) => text.slice(0, at % text.length) + char + text.slice((at % text.length) + 1));
    fc.assert(
      fc.property(bent, (text) => {
        expect(parseTimestamp(text)).toBe(slowParse(text));
      }),
      { numRuns: 20_000 },
    );
  });

  it('reads the times Karpenter and Kubernetes write', () => {
    expect(parseTimestamp('2024-08-21T12:03:10.958Z')).toBe(Date.UTC(2024, 7, 21, 12, 3, 10, 958));
    expect(parseTimestamp('2026-11-28T02:20:49.824913Z')).toBe(Date.UTC(2026, 10, 28, 2, 20, 49, 824));
    expect(parseTimestamp('2024-03-25T12:38:11+02:00')).toBe(Date.UTC(2024, 2, 25, 10, 38, 11));
    expect(parseTimestamp('not a time')).toBeUndefined();
  });
});

describe('epochMsOf', () => {
  it('gives an epoch number the time the ISO string of it gave, in seconds or milliseconds', () => {
    const epochs = fc.oneof(
      fc.double({ min: 0, max: 1e11, noNaN: true }),
      fc.double({ min: 1e11, max: 9e15, noNaN: true }),
      fc.double({ noNaN: false }),
      fc.integer(),
    );
    fc.assert(
      fc.property(epochs, (value) => {
        expect(epochMsOf(value)).toBe(slowEpoch(value));
      }),
      { numRuns: 10_000 },
    );
  });

  it('reads strings up to 40 characters and nothing else', () => {
    expect(epochMsOf('2024-08-21T12:03:10.958Z')).toBe(Date.parse('2024-08-21T12:03:10.958Z'));
    expect(epochMsOf(`2024-08-21T12:03:10.${'9'.repeat(30)}Z`)).toBeUndefined();
    expect(epochMsOf({ seconds: 1 })).toBeUndefined();
    expect(epochMsOf(undefined)).toBeUndefined();
  });

  it('renders back as ISO-8601', () => {
    expect(isoOf(epochMsOf(1612205335.409803)!)).toBe('2021-02-01T18:48:55.409Z');
  });
});

describe('isoOf', () => {
  it("property: writes what Date's toISOString writes, for any time a Date holds and beyond", () => {
    const times = fc.oneof(
      fc.integer({ min: 1_500_000_000_000, max: 2_000_000_000_000 }),
      fc.integer({ min: -62_167_219_200_000 - 86_400_000, max: 253_402_300_799_999 + 86_400_000 }),
      fc.integer({ min: -8.64e15, max: 8.64e15 }),
      fc.constantFrom(0, -1, 1, -0, 951_782_400_000, 951_868_799_999, 4_107_542_400_000, -62_167_219_200_000),
      fc.constantFrom(-62_167_219_200_001, 253_402_300_799_999, 253_402_300_800_000, 8.64e15, -8.64e15),
      fc.double({ min: -8.64e15, max: 8.64e15, noNaN: true }),
    );
    fc.assert(
      fc.property(times, (ms) => {
        expect(isoOf(ms)).toBe(new Date(ms).toISOString());
      }),
      { numRuns: 50_000 },
    );
  });

  it('throws as Date does for a time no Date holds', () => {
    for (const ms of [Number.NaN, 8.64e15 + 1, Number.POSITIVE_INFINITY]) {
      expect(() => isoOf(ms)).toThrow(RangeError);
    }
  });
});
