/**
 * The defaults of the configuration that the core starts from too (the CLI runs without a
 * configuration, and the tests build settings by hand): the schema in config.ts defaults to these,
 * and the core derives its defaults from them. Plain data, no zod, so the core and the CLI bundle
 * nothing more for them.
 */

/** `windows`: the incident lifecycle, in minutes and days. */
export const DEFAULT_WINDOWS = {
  suppressMinutes: 5,
  renotifyMinutes: 360,
  resolveMinutes: 60,
  retentionDays: 14,
} as const;

/** `notifications`: per delivery and cluster. */
export const DEFAULT_NOTIFICATIONS = {
  maxNoticesPerDelivery: 5,
  maxNoticesPerHour: 12,
  maxIncidentsPerDelivery: 50,
} as const;

/** `karpenterSources`: the Helm chart's container is `controller`; the docs install into `karpenter` or `kube-system`. */
export const DEFAULT_KARPENTER_SOURCES = {
  namespaces: ['karpenter', 'kube-system'],
  containers: ['controller', 'karpenter'],
  // Where records carry no proof of their writer, the log group's name says who may write there
  // (docs/fluent-bit-metadata.md): Container Insights' application group is every pod's.
  sharedLogGroups: ['/aws/containerinsights/*/application'],
  // The group docs/fluent-bit/kubernetes-events.conf writes: Events from the API server's watch, no pod's stdout.
  eventLogGroups: ['*/kubernetes-events'],
  // No event exporter is trusted until named: a pod that prints Event JSON is a workload like any other.
  eventExporters: { namespaces: [], containers: [] },
} as const;

/**
 * `headroom` thresholds. `minFreeIps` is capped at half of a subnet's usable addresses
 * (lambdas/core/forecast.ts MAX_MINIMUM_SHARE), so a /28 is never low while it has room.
 */
export const DEFAULT_HEADROOM = { minFreeIps: 64, minFreePercent: 10, horizonHours: 6 } as const;

/** `reservedConcurrency`: the analyzer's concurrent executions, which cap its Describe and publish fan-out. */
export const DEFAULT_RESERVED_CONCURRENCY = 5;
