import * as z from 'zod';
import {
  DEFAULT_HEADROOM,
  DEFAULT_KARPENTER_SOURCES,
  DEFAULT_NOTIFICATIONS,
  DEFAULT_RESERVED_CONCURRENCY,
  DEFAULT_WINDOWS,
} from './defaults';
import { clusterKeysUnique } from './cluster-key';
import { filterPatternProblems } from './filter-pattern';
import { pollAccountProblem, pollProblems } from './poll';
import { logSourceProblems, subscribedLogGroupsOf } from './auto-mode-logs';
import { PLAN_MODES, REMEDIATION_MODES } from './remediation';

/**
 * The one configuration document of a deployment (README, "2. Configure"). Read and validated once in `bin/`;
 * the stack receives the typed, defaulted result. Every key and default is documented in the
 * README ("Configuration") and shown in `config/karpenter-doctor.example.jsonc`.
 */

const CLUSTER_NAME = /^[0-9A-Za-z][A-Za-z0-9_-]{0,99}$/;
/** CloudWatch Logs group names: 1–512 characters of letters, digits, `_ - / . #`. */
const LOG_GROUP_NAME = /^[\w\-/.#]{1,512}$/;
/** A log group name, or a pattern: a name prefix followed by `*` (every group whose name starts with it). */
const LOG_GROUP_OR_PATTERN = /^(?:[\w\-/.#]{1,512}|[\w\-/.#]{1,511}\*)$/;
/** A log group name in which `*` stands for any run of characters (karpenterSources' groups). */
const LOG_GROUP_GLOB = /^[\w\-/.#*]{1,512}$/;
const LOG_GROUP_GLOB_ERROR = 'expected a CloudWatch Logs log group name, with * for any run of characters';
/** Node group and Auto Scaling group names. */
const GROUP_NAME = /^[0-9A-Za-z][A-Za-z0-9_.\-]{0,254}$/;
/** An AWS account id: twelve digits. */
const ACCOUNT_ID = /^\d{12}$/;
const EVENT_BUS_NAME = /^[\w.\-/]{1,256}$/;
/** EventBridge Scheduler / CloudWatch schedule expressions. */
const SCHEDULE = /^(rate\(\d+ (minute|minutes|hour|hours|day|days)\)|cron\([^)]+\))$/;

const mode = z.enum(REMEDIATION_MODES, { error: 'expected "off", "dry-run" or "apply"' });

/** An AWS account id, as a string (a number would lose leading zeros). */
export const accountIdSchema = z
  .string({ error: 'expected an AWS account id of 12 digits, as a string in quotes' })
  .regex(ACCOUNT_ID, { error: 'expected an AWS account id of 12 digits' });

/** The accounts the organisation destination admits. */
export const accountsSchema = z.array(accountIdSchema).min(1, { error: 'expected at least one account' });

/** Addresses subscribed to the findings and alarm topics. */
export const alertEmailsSchema = z.array(z.email({ error: 'expected an email address' }));

/** Concurrent executions reserved for (and capped at) the analyzer; 0 stops it. */
export const reservedConcurrencySchema = z
  .number()
  .int()
  .min(0, { error: 'expected 0 (the kill switch) to 100' })
  .max(100, { error: 'expected at most 100; leave the rest of the account unreserved' });

/** Shards of a provisioned organisation stream. */
export const shardsSchema = z
  .number()
  .int()
  .min(1)
  .max(500, { error: 'expected at most 500 shards (the default shard quota per account and region)' });

/** Concurrent batches per shard of the organisation stream. */
export const parallelizationFactorSchema = z
  .number()
  .int()
  .min(1)
  .max(10, { error: "expected 1 to 10 (Lambda's range)" });

const SUBNET_ID = /^subnet-[0-9a-f]{8,17}$/;
const SECURITY_GROUP_ID = /^sg-[0-9a-f]{8,17}$/;

/**
 * Polling a cluster's own state (NodeClaims, NodePools, node classes, pending pods, events) through
 * its Kubernetes API, for clusters whose logs are not shipped and EKS Auto Mode (docs/cluster-state.md).
 */
export const pollSchema = z
  .strictObject({
    /** Polled when the block is given; false keeps the block but stops polling. */
    enabled: z.boolean().default(true),
    intervalMinutes: z.number().int().min(1).max(1440).default(1),
    /** `private`: the API endpoint is reachable only in the VPC, so the poller runs there. */
    endpointAccess: z.enum(['public', 'private'], { error: 'expected "public" or "private"' }).default('public'),
    subnetIds: z
      .array(z.string().regex(SUBNET_ID, { error: 'expected a subnet id (subnet-…)' }))
      .min(1)
      .optional(),
    securityGroupIds: z
      .array(z.string().regex(SECURITY_GROUP_ID, { error: 'expected a security group id (sg-…)' }))
      .min(1)
      .optional(),
  })
  .superRefine((poll, context) => {
    for (const [field, message] of pollProblems(poll)) context.addIssue({ code: 'custom', path: [field], message });
  });

/** EKS Auto Mode's compute log delivery, created by the stack (contracts/auto-mode-logs.ts, docs/auto-mode.md). */
export const autoModeLogsSchema = z.strictObject({
  /** Created when the block is given; false keeps the block but creates (and subscribes) nothing. */
  create: z.boolean().default(true),
  /** @default /aws/vendedlogs/eks/<cluster>/auto-mode-compute */
  logGroupName: z.string().regex(LOG_GROUP_NAME, { error: 'expected a CloudWatch Logs log group name' }).optional(),
});

export const clusterSchema = z
  .strictObject({
    name: z.string().regex(CLUSTER_NAME, {
      error: 'expected an EKS cluster name: letters, digits, "-" and "_", starting with a letter or digit, at most 100',
    }),
    /** The account the cluster runs in; the deploying account when left out. */
    account: accountIdSchema.optional(),
    logGroups: z
      .array(
        z.string().regex(LOG_GROUP_OR_PATTERN, {
          error: 'expected a CloudWatch Logs log group name, or a name prefix ending in * (account policy only)',
        }),
      )
      // At least one, counting the Auto Mode group (logSourceProblems below).
      .default([]),
    /** Checked with the cluster's name below (filterPatternProblems). */
    filterPattern: z.string({ error: 'expected a CloudWatch Logs filter pattern, as a string' }).optional(),
    systemNodegroup: z.string().regex(GROUP_NAME, { error: 'expected a managed node group name' }).optional(),
    systemAutoScalingGroup: z.string().regex(GROUP_NAME, { error: 'expected an Auto Scaling group name' }).optional(),
    discoveryTag: z
      .strictObject({
        key: z.string().min(1).max(128),
        value: z.string().min(1).max(256).optional(),
      })
      .optional(),
    poll: pollSchema.optional(),
    autoModeLogs: autoModeLogsSchema.optional(),
  })
  .superRefine((cluster, context) => {
    for (const [field, message] of logSourceProblems(cluster))
      context.addIssue({ code: 'custom', path: [field], input: cluster[field as 'logGroups'], message });
    const accountProblem = pollAccountProblem(cluster);
    if (accountProblem) context.addIssue({ code: 'custom', path: ['poll'], message: accountProblem });
    if (cluster.filterPattern === undefined) return;
    for (const problem of filterPatternProblems(cluster.filterPattern)) {
      context.addIssue({
        code: 'custom',
        path: ['filterPattern'],
        input: cluster.filterPattern,
        message: `the filter pattern of cluster ${cluster.name} ${problem}`,
      });
    }
  });

/** At least one cluster, each name once. */
export const clustersSchema = z
  .array(clusterSchema)
  .min(1, { error: 'expected at least one cluster' })
  .refine(clusterKeysUnique, { error: 'expected each cluster name once per account' });

export const windowsSchema = z.strictObject({
  suppressMinutes: z.number().int().min(0).max(1440).default(DEFAULT_WINDOWS.suppressMinutes),
  renotifyMinutes: z.number().int().min(5).max(10_080).default(DEFAULT_WINDOWS.renotifyMinutes),
  resolveMinutes: z.number().int().min(5).max(10_080).default(DEFAULT_WINDOWS.resolveMinutes),
  retentionDays: z.number().int().min(1).max(365).default(DEFAULT_WINDOWS.retentionDays),
});

export const remediationSchema = z.strictObject({
  raiseSystemNodegroup: z
    .strictObject({ mode: mode.default('off'), maxMinSize: z.number().int().min(1).max(100).default(3) })
    .prefault({}),
  requestQuotaIncrease: z
    .strictObject({
      mode: mode.default('off'),
      maxValue: z
        .number()
        .int({ error: 'expected a whole number: quotas are raised in whole units' })
        .positive()
        .max(10_000, {
          error: 'expected at most 10,000: the cap of an automatic quota request, raise it by hand beyond',
        })
        .default(512),
      windowHours: z.number().int().min(1).max(720).default(24),
    })
    .prefault({}),
  planSubnetCapacity: z
    .strictObject({
      mode: z
        .enum(PLAN_MODES, { error: 'expected "off" or "dry-run": subnet capacity is only ever planned' })
        .default('off'),
    })
    .prefault({}),
});

export const notificationsSchema = z.strictObject({
  maxNoticesPerDelivery: z
    .number()
    .int()
    .min(1)
    .max(20, { error: 'expected at most 20; the rest of a delivery goes into one digest per cluster' })
    .default(DEFAULT_NOTIFICATIONS.maxNoticesPerDelivery),
  maxNoticesPerHour: z
    .number()
    .int()
    .min(2, { error: 'expected at least 2: a notice and a digest' })
    .max(200)
    .default(DEFAULT_NOTIFICATIONS.maxNoticesPerHour),
  maxIncidentsPerDelivery: z
    .number()
    .int()
    .min(1)
    .max(200, { error: 'expected at most 200; the rest of a delivery is counted in the digest' })
    .default(DEFAULT_NOTIFICATIONS.maxIncidentsPerDelivery),
});

export const SUBSCRIPTION_MODES = ['auto', 'log-groups', 'account-policy'] as const;

const subscriptionsSchema = z.strictObject({
  mode: z.enum(SUBSCRIPTION_MODES, { error: 'expected "auto", "log-groups" or "account-policy"' }).default('auto'),
  accountPolicyFrom: z.number().int().min(1).max(100_000).default(200),
  exclude: z
    .array(z.string().regex(LOG_GROUP_NAME, { error: 'expected a CloudWatch Logs log group name' }))
    .default([]),
  /** The account policy's one pattern for every log group, checked as a cluster's is. */
  filterPattern: z
    .string({ error: 'expected a CloudWatch Logs filter pattern, as a string' })
    .superRefine((pattern, context) => {
      for (const problem of filterPatternProblems(pattern)) {
        context.addIssue({ code: 'custom', input: pattern, message: `the account policy's filter pattern ${problem}` });
      }
    })
    .optional(),
});

const K8S_NAME = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
export const karpenterSourcesSchema = z.strictObject({
  namespaces: z
    .array(z.string().regex(K8S_NAME, { error: 'expected a Kubernetes namespace name' }))
    .min(1)
    .default(() => [...DEFAULT_KARPENTER_SOURCES.namespaces]),
  containers: z
    .array(z.string().regex(K8S_NAME, { error: 'expected a container name' }))
    .min(1)
    .default(() => [...DEFAULT_KARPENTER_SOURCES.containers]),
  sharedLogGroups: z
    .array(z.string().regex(LOG_GROUP_GLOB, { error: LOG_GROUP_GLOB_ERROR }))
    .default(() => [...DEFAULT_KARPENTER_SOURCES.sharedLogGroups]),
  eventLogGroups: z
    .array(z.string().regex(LOG_GROUP_GLOB, { error: LOG_GROUP_GLOB_ERROR }))
    .default(() => [...DEFAULT_KARPENTER_SOURCES.eventLogGroups]),
  eventExporters: z
    .strictObject({
      namespaces: z.array(z.string().regex(K8S_NAME, { error: 'expected a Kubernetes namespace name' })).default([]),
      containers: z.array(z.string().regex(K8S_NAME, { error: 'expected a container name' })).default([]),
    })
    .prefault({}),
});

export const headroomSchema = z.strictObject({
  enabled: z.boolean().default(true),
  schedule: z
    .string()
    .regex(SCHEDULE, { error: 'expected a schedule expression such as "rate(5 minutes)" or "cron(0/5 * * * ? *)"' })
    .default('rate(5 minutes)'),
  minFreeIps: z.number().int().min(0).default(DEFAULT_HEADROOM.minFreeIps),
  minFreePercent: z.number().min(0).max(100).default(DEFAULT_HEADROOM.minFreePercent),
  horizonHours: z.number().min(1).max(168).default(DEFAULT_HEADROOM.horizonHours),
});

/**
 * The organisation path (the central stack): a CloudWatch Logs destination backed by a Kinesis data
 * stream, which the spoke accounts subscribe to and the analyzer consumes.
 */
const organizationSchema = z
  .strictObject({
    organizationId: z
      .string()
      .regex(/^o-[a-z0-9]{10,32}$/, { error: 'expected an AWS Organizations id such as "o-a1b2c3d4e5"' })
      .optional(),
    accounts: accountsSchema.optional(),
    shards: shardsSchema.optional(),
    retentionHours: z.number().int().min(24).max(8760).default(24),
    batchSize: z.number().int().min(1).max(10_000).default(100),
    parallelizationFactor: parallelizationFactorSchema.default(1),
    retryAttempts: z.number().int().min(0).max(10_000).default(3),
    maxRecordAgeHours: z.number().int().min(1).max(168).default(6),
  })
  .refine((o) => (o.organizationId === undefined) !== (o.accounts === undefined), {
    error:
      'expected either organizationId (every account of the organisation may subscribe) or accounts (only those), and not both',
  });

export const configSchema = z
  .strictObject({
    $schema: z.string().optional(),
    clusters: clustersSchema,
    alertEmails: alertEmailsSchema.default([]),
    windows: windowsSchema.prefault({}),
    remediation: remediationSchema.prefault({}),
    notifications: notificationsSchema.prefault({}),
    karpenterSources: karpenterSourcesSchema.prefault({}),
    headroom: headroomSchema.prefault({}),
    subscriptions: subscriptionsSchema.prefault({}),
    eventBusName: z
      .string()
      .regex(EVENT_BUS_NAME, { error: 'expected an event bus name (letters, digits, . - _ /)' })
      .default('default'),
    logRetentionDays: z
      .union(
        [1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288, 3653].map(
          (d) => z.literal(d),
        ),
        { error: 'expected a CloudWatch Logs retention in days: 1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, …' },
      )
      .default(30),
    reservedConcurrency: reservedConcurrencySchema.default(DEFAULT_RESERVED_CONCURRENCY),
    retainTable: z.boolean().default(true),
    organization: organizationSchema.optional(),
  })
  .superRefine((config, context) => {
    const seen = new Map<string, string>();
    config.clusters.forEach((cluster, index) => {
      if (cluster.filterPattern !== undefined && config.subscriptions.mode === 'account-policy') {
        context.addIssue({
          code: 'custom',
          path: ['clusters', index, 'filterPattern'],
          input: cluster.filterPattern,
          message:
            'expected no filter pattern per cluster with subscriptions.mode "account-policy", which has one for every log group (subscriptions.filterPattern)',
        });
      }
      // The Auto Mode group the stack creates comes last: it is subscribed like the listed ones.
      const pathOf = (groupIndex: number) =>
        groupIndex < cluster.logGroups.length
          ? ['clusters', index, 'logGroups', groupIndex]
          : ['clusters', index, 'autoModeLogs'];
      subscribedLogGroupsOf(cluster).forEach((group, groupIndex) => {
        if (group.endsWith('*') && config.subscriptions.mode === 'log-groups') {
          context.addIssue({
            code: 'custom',
            path: pathOf(groupIndex),
            input: group,
            message:
              'expected a log group name: a pattern can only be subscribed by the account policy (subscriptions.mode "auto" or "account-policy")',
          });
        }
        // The same group name in two accounts is two groups.
        const key = `${cluster.account ?? ''}\u0000${group}`;
        const owner = seen.get(key);
        if (owner !== undefined) {
          context.addIssue({
            code: 'custom',
            path: pathOf(groupIndex),
            input: group,
            message: `expected each log group once; it is already subscribed for cluster ${owner}`,
          });
        }
        seen.set(key, cluster.name);
        if (/^\/aws\/lambda\/.*karpenter-?doctor/i.test(group)) {
          context.addIssue({
            code: 'custom',
            path: pathOf(groupIndex),
            input: group,
            message:
              "expected a log group of Karpenter or Kubernetes, not one of karpenter-doctor's own functions (it would feed on itself)",
          });
        }
      });
    });
  });

export type KarpenterDoctorConfig = z.output<typeof configSchema>;
export type ClusterConfig = KarpenterDoctorConfig['clusters'][number];
export type OrganizationConfig = NonNullable<KarpenterDoctorConfig['organization']>;
/** Mode and caps per remediation action. */
export type RemediationConfig = KarpenterDoctorConfig['remediation'];
/** How log groups are subscribed. */
export type SubscriptionsConfig = KarpenterDoctorConfig['subscriptions'];

/** An invalid configuration; the message lists every problem with its key, its value and what is allowed. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/** Where the value at a path stands in the source (`file:line:column`), when the source is text. */
export type Locate = (path: readonly PropertyKey[]) => string | undefined;

/** Validates a parsed configuration document; `source` names it in the error, `locate` each problem. */
export function parseConfig(document: unknown, source: string, locate?: Locate): KarpenterDoctorConfig {
  const result = configSchema.safeParse(document, { reportInput: true });
  if (result.success) return result.data;
  const problems = describeIssues(result.error.issues, configSchema, 'config', locate);
  throw new ConfigError(`Invalid karpenter-doctor configuration (${source}):\n${problems.join('\n')}`);
}

/**
 * One line per problem: the key by its path under `root` (`config.clusters[0].name`), the value
 * found, and what is allowed; an unknown key lists the keys allowed where it stands.
 */
export function describeIssues(
  issues: readonly z.core.$ZodIssue[],
  schema: z.ZodType,
  root: string,
  locate?: Locate,
): string[] {
  return issues.map((issue) => {
    const where = locate?.(issue.path);
    const key =
      (where ? `${where}: ` : '') +
      [root, ...issue.path]
        .map((part, index) =>
          typeof part === 'number' ? `[${part}]` : index === 0 ? String(part) : `.${String(part)}`,
        )
        .join('');
    if (issue.code === 'unrecognized_keys') {
      const allowed = allowedKeysAt(schema, issue.path).filter((k) => k !== '$schema');
      return `  ${key}: unknown key ${issue.keys.map((k) => JSON.stringify(k)).join(', ')}; expected one of ${allowed.join(', ')}`;
    }
    return `  ${key} = ${preview(issue.input)}: ${issue.message}`;
  });
}

/** The keys `root` allows for the object at `path`, for "unknown key" messages. */
function allowedKeysAt(root: z.ZodType, path: readonly PropertyKey[]): string[] {
  let schema: z.ZodType | undefined = root;
  for (const part of [...path, undefined]) {
    while (schema && 'innerType' in schema.def) schema = schema.def.innerType as z.ZodType;
    if (part === undefined || !schema) break;
    if (schema instanceof z.ZodObject) schema = (schema.shape as Record<string, z.ZodType>)[String(part)];
    else if (schema instanceof z.ZodArray) schema = schema.element as z.ZodType;
    else return [];
  }
  return schema instanceof z.ZodObject ? Object.keys(schema.shape) : [];
}

function preview(value: unknown): string {
  if (value === undefined) return '(missing)';
  const text = JSON.stringify(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}
