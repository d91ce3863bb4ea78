/**
 * Synth-time checks of construct props. Each throws an Error whose message names the construct, the
 * prop, the value and what is allowed, so a mistake fails `cdk synth` where it was made rather than a
 * deployment, or a function at run time.
 */

/** A loose email shape (something@domain.tld): SNS sends the confirmation mail, this only catches slips. */
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function requireEmails(construct: string, prop: string, values: readonly string[]): void {
  for (const value of values) {
    if (!EMAIL.test(value)) throw new Error(`${construct}: ${prop} has "${value}", which is not an email address`);
  }
}

export function requireSome<T>(construct: string, prop: string, values: readonly T[], why: string): void {
  if (values.length === 0) throw new Error(`${construct}: ${prop} is empty; ${why}`);
}

export function requireInteger(construct: string, prop: string, value: number, min: number, max: number): void {
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new Error(`${construct}: ${prop} is ${value}; expected a whole number from ${min} to ${max}`);
  }
}

export function requireNumber(construct: string, prop: string, value: number, min: number, max: number): void {
  if (!Number.isFinite(value) || value < min || value > max) {
    throw new Error(`${construct}: ${prop} is ${value}; expected a number from ${min} to ${max}`);
  }
}

/** Names that must each appear once (the construct ids or ARNs built from them would clash). */
export function requireDistinct(construct: string, prop: string, values: readonly string[]): void {
  const seen = new Set<string>();
  for (const value of values) {
    if (seen.has(value)) throw new Error(`${construct}: ${prop} names "${value}" twice`);
    seen.add(value);
  }
}

/** The configured clusters: at least one (the EKS permissions name each), each name once. */
export function requireClusters(construct: string, clusters: ReadonlyArray<{ readonly name: string }>): void {
  requireSome(construct, 'clusters', clusters, 'the EKS permissions and the settings name each cluster');
  requireDistinct(
    construct,
    'clusters',
    clusters.map((c) => c.name),
  );
}

/** The lifecycle windows a function passes on to its settings. */
export function requireWindows(
  construct: string,
  windows: {
    readonly suppressMinutes: number;
    readonly renotifyMinutes: number;
    readonly retentionDays: number;
    readonly resolveMinutes?: number;
  },
): void {
  requireInteger(construct, 'suppressMinutes', windows.suppressMinutes, 0, 525_600);
  requireInteger(construct, 'renotifyMinutes', windows.renotifyMinutes, 1, 525_600);
  requireInteger(construct, 'retentionDays', windows.retentionDays, 1, 3650);
  if (windows.resolveMinutes !== undefined) {
    requireInteger(construct, 'resolveMinutes', windows.resolveMinutes, 1, 525_600);
  }
}

/** Notices per cluster and incidents recorded per delivery. */
export function requireLimits(
  construct: string,
  limits: { readonly maxNoticesPerCluster: number; readonly maxIncidentsPerDelivery: number } | undefined,
): void {
  if (!limits) return;
  requireInteger(construct, 'limits.maxNoticesPerCluster', limits.maxNoticesPerCluster, 1, 1000);
  requireInteger(construct, 'limits.maxIncidentsPerDelivery', limits.maxIncidentsPerDelivery, 1, 1000);
}

/** An EventBridge Scheduler expression: rate(…), cron(…) or at(…). */
export function requireSchedule(construct: string, prop: string, expression: string): void {
  if (!/^(rate|cron|at)\([^()]+\)$/.test(expression)) {
    throw new Error(
      `${construct}: ${prop} is "${expression}"; expected rate(…), cron(…) or at(…), e.g. "rate(5 minutes)"`,
    );
  }
}
