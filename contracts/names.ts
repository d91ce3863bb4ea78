/**
 * Names shared by the stack and the functions: environment variables, the subscription filter
 * naming that carries the cluster, tags, and metric names.
 */
export const ENV = {
  tableName: 'INCIDENT_TABLE_NAME',
  topicArn: 'FINDINGS_TOPIC_ARN',
  eventBusName: 'EVENT_BUS_NAME',
  /** The settings file (contracts/settings.ts), relative to the function's code directory. */
  settingsFile: 'SETTINGS_FILE',
  /** Not set by the stack: how long the analyzer may spend on enrichment per delivery (default 8 s). */
  enrichBudgetMs: 'ENRICH_BUDGET_MS',
} as const;

/**
 * The name of every subscription filter and of the account-level subscription filter policy the
 * stacks create; the delivery-error alarm selects CloudWatch Logs' metrics by it. It says nothing
 * about the cluster: the analyzer maps log groups to clusters from its settings
 * (`lambdas/core/cluster.ts`), because anyone allowed to create a filter chooses its name.
 */
export const SUBSCRIPTION_NAME = 'karpenter-doctor';

export const METRICS_NAMESPACE = 'KarpenterDoctor';

/**
 * The tag a node group or Auto Scaling group carries (value `true`) to let the remediator change it;
 * the remediator checks it and its IAM policy is conditioned on it.
 */
export const OPT_IN_TAG = 'karpenter-doctor/remediate';

/** The tag key that marks the subnets Karpenter launches into, unless a cluster names its own (value: the cluster name). */
export const DEFAULT_DISCOVERY_TAG_KEY = 'karpenter.sh/discovery';

/** EMF metric names of the analyzer; the dashboard and alarms refer to them. */
export const METRIC = {
  recordsProcessed: 'RecordsProcessed',
  malformedRecords: 'MalformedRecords',
  /** Records of the organisation stream reported back for a retry (an AWS call failed). */
  failedStreamRecords: 'FailedStreamRecords',
  unrecognisedRecords: 'UnrecognisedRecords',
  signals: 'Signals',
  findingsPublished: 'FindingsPublished',
  notificationsSuppressed: 'NotificationsSuppressed',
  duplicateBatches: 'DuplicateBatches',
  enrichmentErrors: 'EnrichmentErrors',
  publishFailures: 'PublishFailures',
  resolvedNotices: 'ResolvedNotices',
  subnetFreeIps: 'SubnetFreeIps',
  subnetTotalIps: 'SubnetTotalIps',
  zoneFreeIps: 'ZoneFreeIps',
  zoneTotalIps: 'ZoneTotalIps',
  subnetHoursToExhaustion: 'SubnetHoursToExhaustion',
  headroomCheckGaps: 'HeadroomCheckGaps',
  remediations: 'Remediations',
  ignoredEvents: 'IgnoredEvents',
  foreignRecords: 'ForeignRecords',
  untrackedIncidents: 'UntrackedIncidents',
  digests: 'DigestsPublished',
  contendedIncidents: 'ContendedIncidents',
  refusedEvents: 'RefusedEvents',
  unmappedDeliveries: 'UnmappedDeliveries',
} as const;
