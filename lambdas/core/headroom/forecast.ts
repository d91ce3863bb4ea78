/**
 * Time-to-exhaustion of a subnet's free IPs from its recent history. Robust to noise (the slope is
 * the Theil–Sen estimator: the median of the slopes between every pair of samples) and to sudden
 * jumps (a fresh node group taking a block of IPs, a block released): the trend is fitted only on
 * the samples after the last jump, so one jump never extrapolates into a false alarm.
 */

/** One observation: epoch milliseconds and the free IP count. */
export interface Sample {
  t: number;
  free: number;
}

export interface Forecast {
  /** Trend of free IPs per hour (negative: falling). */
  ipsPerHour: number;
  /** Hours until no IP is free at this trend; only when the trend falls. */
  hoursToExhaustion: number;
  /** Samples the trend was fitted on, and the time the first of them was taken. */
  samples: number;
  since: number;
}

export interface ForecastOptions {
  /** Fewest samples after the last jump to fit a trend on. @default 4 */
  minSamples?: number;
  /** Shortest span of those samples. @default 20 minutes */
  minSpanMs?: number;
  /** A step between two samples larger than this many IPs can be a jump… @default 32 */
  jumpFloor?: number;
  /** …and is one when it is also this many times the median step. @default 6 */
  jumpFactor?: number;
}

const HOUR = 3_600_000;

/** The forecast, or undefined when the history is too short or the trend is flat or rising. */
export function forecastExhaustion(history: readonly Sample[], options: ForecastOptions = {}): Forecast | undefined {
  const minSamples = options.minSamples ?? 4;
  const minSpanMs = options.minSpanMs ?? 20 * 60_000;
  const samples = [...history].filter((s) => Number.isFinite(s.t) && Number.isFinite(s.free)).sort((a, b) => a.t - b.t);
  const recent = samples.slice(lastJump(samples, options.jumpFloor ?? 32, options.jumpFactor ?? 6));
  if (recent.length < minSamples) return undefined;
  const first = recent[0]!;
  const last = recent.at(-1)!;
  if (last.t - first.t < minSpanMs) return undefined;

  const perMs = theilSen(recent);
  if (!(perMs < 0)) return undefined;
  const ipsPerHour = perMs * HOUR;
  return {
    ipsPerHour,
    hoursToExhaustion: Math.max(0, last.free) / -ipsPerHour,
    samples: recent.length,
    since: first.t,
  };
}

/** Index of the first sample after the last jump (0 when there is none). */
function lastJump(samples: readonly Sample[], floor: number, factor: number): number {
  if (samples.length < 3) return 0;
  const steps = samples.slice(1).map((s, i) => Math.abs(s.free - samples[i]!.free));
  const typical = median(steps);
  const threshold = Math.max(floor, factor * typical);
  for (let i = steps.length - 1; i >= 0; i--) {
    if (steps[i]! > threshold) return i + 1;
  }
  return 0;
}

/** Median of the pairwise slopes (IPs per millisecond). */
function theilSen(samples: readonly Sample[]): number {
  const slopes: number[] = [];
  for (let i = 0; i < samples.length; i++) {
    for (let j = i + 1; j < samples.length; j++) {
      const dt = samples[j]!.t - samples[i]!.t;
      if (dt > 0) slopes.push((samples[j]!.free - samples[i]!.free) / dt);
    }
  }
  return slopes.length ? median(slopes) : 0;
}

function median(values: readonly number[]): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** The verdict of one subnet against the thresholds. */
export interface HeadroomThresholds {
  minFreeIps: number;
  minFreePercent: number;
  horizonHours: number;
}

/**
 * The share of a subnet's usable addresses that the absolute minimum may ask for: a /28 (11 usable)
 * can never hold 64 free IPs, so an unscaled minimum would alarm forever, even on an empty subnet.
 */
export const MAX_MINIMUM_SHARE = 0.5;

/** The fewest free IPs a subnet of `total` usable addresses must keep: `minFreeIps`, capped to its size. */
export function minimumFreeIps(total: number | undefined, thresholds: Pick<HeadroomThresholds, 'minFreeIps'>): number {
  if (!total || total <= 0) return thresholds.minFreeIps;
  return Math.min(thresholds.minFreeIps, Math.max(1, Math.floor(total * MAX_MINIMUM_SHARE)));
}

/** Why a subnet counts as low, or undefined when it has headroom. */
export function headroomVerdict(
  free: number,
  total: number | undefined,
  forecast: Forecast | undefined,
  thresholds: HeadroomThresholds,
): 'below-minimum' | 'below-percent' | 'runs-out-soon' | undefined {
  if (free < minimumFreeIps(total, thresholds)) return 'below-minimum';
  if (total && (free / total) * 100 < thresholds.minFreePercent) return 'below-percent';
  if (forecast && forecast.hoursToExhaustion <= thresholds.horizonHours) return 'runs-out-soon';
  return undefined;
}
