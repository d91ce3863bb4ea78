import fc from 'fast-check';
import { forecastExhaustion, headroomVerdict, type Sample } from '../../../lambdas/core/headroom/forecast';

const FIVE_MINUTES = 5 * 60_000;
const T0 = Date.parse('2026-11-28T00:00:00Z');
const series = (values: number[]): Sample[] => values.map((free, i) => ({ t: T0 + i * FIVE_MINUTES, free }));
const thresholds = { minFreeIps: 16, minFreePercent: 0, horizonHours: 6 };

describe('forecastExhaustion', () => {
  it('forecasts a steady decline: 251 free, 10 fewer every five minutes', () => {
    const forecast = forecastExhaustion(series([301, 291, 281, 271, 261, 251]));

    expect(forecast?.ipsPerHour).toBeCloseTo(-120);
    expect(forecast?.hoursToExhaustion).toBeCloseTo(251 / 120);
    expect(forecast?.samples).toBe(6);
  });

  it('fits only the samples after a jump', () => {
    // A node group took 200 IPs at once, then the decline goes on at 5 per five minutes.
    const forecast = forecastExhaustion(series([900, 899, 898, 698, 693, 688, 683, 678]));

    expect(forecast?.samples).toBe(5);
    expect(forecast?.ipsPerHour).toBeCloseTo(-60);
  });

  it('gives nothing for too short a history', () => {
    expect(forecastExhaustion(series([100, 90, 80]))).toBeUndefined();
    expect(forecastExhaustion([])).toBeUndefined();
  });

  it('property: a monotone decline gives a finite forecast', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 500, max: 60_000 }),
        fc.array(fc.integer({ min: 1, max: 16 }), { minLength: 5, maxLength: 60 }),
        (start, drops) => {
          const values = drops.reduce((acc, drop) => [...acc, acc.at(-1)! - drop], [start]);
          const forecast = forecastExhaustion(series(values));
          expect(forecast).toBeDefined();
          expect(Number.isFinite(forecast!.hoursToExhaustion)).toBe(true);
          expect(forecast!.hoursToExhaustion).toBeGreaterThanOrEqual(0);
          expect(forecast!.ipsPerHour).toBeLessThan(0);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('property: a flat or rising history gives no forecast', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 60_000 }),
        fc.array(fc.integer({ min: 0, max: 400 }), { minLength: 0, maxLength: 60 }),
        (start, rises) => {
          const values = rises.reduce((acc, rise) => [...acc, acc.at(-1)! + rise], [start]);
          expect(forecastExhaustion(series(values))).toBeUndefined();
        },
      ),
      { numRuns: 500 },
    );
  });

  it('property: one jump in a steady, noisy history does not raise a false alarm', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 200, max: 4000 }),
        fc.array(fc.integer({ min: -2, max: 2 }), { minLength: 6, maxLength: 60 }),
        fc.nat(),
        fc.integer({ min: 40, max: 2000 }),
        fc.boolean(),
        (level, noise, where, size, down) => {
          const at = where % noise.length;
          const values = noise.map((n, i) => level + n + (i >= at ? (down ? -size : size) : 0) + (down ? size : 0));
          const forecast = forecastExhaustion(series(values));
          const free = values.at(-1)!;
          expect(headroomVerdict(free, undefined, forecast, thresholds)).toBeUndefined();
        },
      ),
      { numRuns: 1000 },
    );
  });
});

describe('headroomVerdict', () => {
  it.each([
    [10, 251, undefined, 'below-minimum'],
    [20, 251, undefined, 'below-percent'],
    [200, 251, { ipsPerHour: -50, hoursToExhaustion: 4, samples: 6, since: T0 }, 'runs-out-soon'],
    [200, 251, { ipsPerHour: -5, hoursToExhaustion: 40, samples: 6, since: T0 }, undefined],
    // The minimum of 16 is capped at half the subnet's size: 5 for a /28 (11 usable).
    [11, 11, undefined, undefined],
    [5, 11, undefined, undefined],
    [4, 11, undefined, 'below-minimum'],
    [10, undefined, undefined, 'below-minimum'],
  ] as const)('free %i of %i with forecast %j → %s', (free, total, forecast, expected) => {
    expect(headroomVerdict(free, total, forecast, { minFreeIps: 16, minFreePercent: 10, horizonHours: 6 })).toBe(
      expected,
    );
  });
});
