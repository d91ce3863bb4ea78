import type { ClusterSettings } from '../adapters/enrich';
import type { RemediationSettings } from '../adapters/remediator';
import { isObject, tryJson } from '../core/json';
import { DEFAULT_LIMITS, type DeliveryLimits } from '../core/digest';
import type { HeadroomThresholds } from '../core/forecast';
import { DEFAULT_SOURCES, type KarpenterSources } from '../core/karpenter-source';
import { DEFAULT_POLICY, type LifecyclePolicy } from '../core/lifecycle';
import { EVENT_SOURCE } from '../../contracts/events';
import { DEFAULT_DISCOVERY_TAG_KEY, ENV } from '../../contracts/names';
import { REMEDIATION_MODES, type RemediationMode } from '../../contracts/remediation';

/** One cluster as the stack passes it to the functions (log groups travel in the filter names). */
export interface ClusterEntry {
  name: string;
  /** The account of the cluster when it is another account of the organisation. @default the function's own */
  account?: string;
  discoveryTagKey?: string;
  discoveryTagValue?: string;
  systemNodegroup?: string;
  systemAutoScalingGroup?: string;
}

export interface AnalyzerSettings {
  tableName: string;
  topicArn: string;
  eventBusName: string;
  eventSource: string;
  clusters: ClusterEntry[];
  policy: LifecyclePolicy;
  enrichBudgetMs: number;
  /** Notices, incidents and concurrent calls per delivery. */
  limits: DeliveryLimits;
  /** Which records of a shared application log group are Karpenter's. */
  sources: KarpenterSources;
}

/** A missing or malformed environment variable: a deployment error, reported by name. */
export class SettingsError extends Error {
  override readonly name = 'SettingsError';
}

let memo: { env: NodeJS.ProcessEnv; settings: AnalyzerSettings } | undefined;

/** The analyzer's settings, parsed from the environment once per execution environment. */
export function analyzerSettings(env: NodeJS.ProcessEnv = process.env): AnalyzerSettings {
  if (memo?.env === env) return memo.settings;
  const settings: AnalyzerSettings = {
    tableName: required(env, ENV.tableName),
    topicArn: required(env, ENV.topicArn),
    eventBusName: env[ENV.eventBusName] || 'default',
    eventSource: env[ENV.eventSource] || EVENT_SOURCE,
    clusters: clustersOf(env[ENV.clusters]),
    policy: {
      renotifyAfterMs: nonNegative(env, ENV.renotifyAfterMinutes, DEFAULT_POLICY.renotifyAfterMs / 60_000) * 60_000,
      suppressForMs: nonNegative(env, ENV.suppressMinutes, DEFAULT_POLICY.suppressForMs / 60_000) * 60_000,
      retainForMs: nonNegative(env, ENV.retentionDays, DEFAULT_POLICY.retainForMs / 86_400_000) * 86_400_000,
      resolveAfterMs: nonNegative(env, ENV.resolveMinutes, DEFAULT_POLICY.resolveAfterMs / 60_000) * 60_000,
    },
    enrichBudgetMs: nonNegative(env, ENV.enrichBudgetMs, 8000),
    limits: limitsOf(env[ENV.limits]),
    sources: sourcesOf(env[ENV.sources]),
  };
  memo = { env, settings };
  return settings;
}

/**
 * Enrichment settings of a cluster, with the discovery tag defaulting to `karpenter.sh/discovery=<name>`.
 * `account` is the cluster's account when it is not the function's own; a home-account cluster is the
 * entry of that name without an account, else any entry of that name.
 */
export function clusterSettingsOf(clusters: ClusterEntry[], cluster: string, account?: string): ClusterSettings {
  const entry = account
    ? clusters.find((c) => c.name === cluster && c.account === account)
    : (clusters.find((c) => c.name === cluster && !c.account) ?? clusters.find((c) => c.name === cluster));
  return {
    discoveryTagKey: entry?.discoveryTagKey ?? DEFAULT_DISCOVERY_TAG_KEY,
    discoveryTagValue: entry?.discoveryTagValue ?? cluster,
    systemNodegroup: entry?.systemNodegroup,
    systemAutoScalingGroup: entry?.systemAutoScalingGroup,
  };
}

function required(env: NodeJS.ProcessEnv, name: string): string {
  const value = env[name];
  if (!value) throw new SettingsError(`environment variable ${name} is not set; it is set by the stack`);
  return value;
}

/** A non-negative number (the name says the unit), or the default when unset. */
function nonNegative(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0) {
    throw new SettingsError(`environment variable ${name} is ${JSON.stringify(raw)}; expected a number >= 0`);
  }
  return value;
}

function limitsOf(raw: string | undefined): DeliveryLimits {
  const value = raw ? tryJson(raw) : {};
  if (!isObject(value)) throw new SettingsError(`environment variable ${ENV.limits} is not a JSON object`);
  const count = (key: keyof DeliveryLimits): number => {
    const v = value[key];
    if (v === undefined) return DEFAULT_LIMITS[key];
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 1) {
      throw new SettingsError(
        `environment variable ${ENV.limits}.${key} is ${JSON.stringify(v)}; expected an integer >= 1`,
      );
    }
    return v;
  };
  return {
    maxNoticesPerCluster: count('maxNoticesPerCluster'),
    maxIncidentsPerDelivery: count('maxIncidentsPerDelivery'),
    concurrency: count('concurrency'),
  };
}

function sourcesOf(raw: string | undefined): KarpenterSources {
  const value = raw ? tryJson(raw) : {};
  if (!isObject(value)) throw new SettingsError(`environment variable ${ENV.sources} is not a JSON object`);
  const names = (key: keyof KarpenterSources): string[] => {
    const v = value[key];
    if (v === undefined) return DEFAULT_SOURCES[key];
    if (!Array.isArray(v) || v.length === 0 || !v.every((n) => typeof n === 'string' && n !== '')) {
      throw new SettingsError(
        `environment variable ${ENV.sources}.${key} is ${JSON.stringify(v)}; expected a non-empty list of names`,
      );
    }
    return v as string[];
  };
  return { namespaces: names('namespaces'), containers: names('containers') };
}

function clustersOf(raw: string | undefined): ClusterEntry[] {
  if (!raw) return [];
  const value = tryJson(raw);
  if (!Array.isArray(value)) throw new SettingsError(`environment variable ${ENV.clusters} is not a JSON array`);
  return value.map((item, index) => {
    if (!isObject(item) || typeof item.name !== 'string' || item.name === '') {
      throw new SettingsError(`environment variable ${ENV.clusters}[${index}] has no "name"`);
    }
    const text = (key: string): string | undefined => (typeof item[key] === 'string' ? item[key] : undefined);
    return {
      name: item.name,
      ...(text('account') ? { account: text('account') } : {}),
      discoveryTagKey: text('discoveryTagKey'),
      discoveryTagValue: text('discoveryTagValue'),
      systemNodegroup: text('systemNodegroup'),
      systemAutoScalingGroup: text('systemAutoScalingGroup'),
    };
  });
}

export interface HeadroomSettings extends AnalyzerSettings {
  thresholds: HeadroomThresholds;
}

export const DEFAULT_THRESHOLDS: HeadroomThresholds = { minFreeIps: 64, minFreePercent: 10, horizonHours: 6 };

/** The headroom function's settings: the analyzer's, plus the thresholds. */
export function headroomSettings(env: NodeJS.ProcessEnv = process.env): HeadroomSettings {
  const raw = env[ENV.headroom];
  const value = raw ? tryJson(raw) : {};
  if (!isObject(value)) throw new SettingsError(`environment variable ${ENV.headroom} is not a JSON object`);
  const number = (key: keyof HeadroomThresholds): number => {
    const v = value[key];
    if (v === undefined) return DEFAULT_THRESHOLDS[key];
    if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) {
      throw new SettingsError(
        `environment variable ${ENV.headroom}.${key} is ${JSON.stringify(v)}; expected a number >= 0`,
      );
    }
    return v;
  };
  return {
    ...analyzerSettings(env),
    thresholds: {
      minFreeIps: number('minFreeIps'),
      minFreePercent: number('minFreePercent'),
      horizonHours: number('horizonHours'),
    },
  };
}

export interface RemediatorSettings extends AnalyzerSettings {
  remediation: RemediationSettings;
}

/** The remediator's settings: the analyzer's, plus mode and caps per action (all off when unset). */
export function remediatorSettings(env: NodeJS.ProcessEnv = process.env): RemediatorSettings {
  const raw = env[ENV.remediation];
  const value = raw ? tryJson(raw) : {};
  if (!isObject(value)) throw new SettingsError(`environment variable ${ENV.remediation} is not a JSON object`);
  const section = (key: string): Record<string, unknown> => (isObject(value[key]) ? value[key] : {});
  const mode = (key: string): RemediationMode => {
    const m = section(key).mode ?? 'off';
    if (!REMEDIATION_MODES.includes(m as RemediationMode)) {
      throw new SettingsError(
        `environment variable ${ENV.remediation}.${key}.mode is ${JSON.stringify(m)}; expected off, dry-run or apply`,
      );
    }
    return m as RemediationMode;
  };
  const positive = (key: string, field: string, fallback: number): number => {
    const v = section(key)[field];
    if (v === undefined) return fallback;
    if (typeof v !== 'number' || !(v > 0)) {
      throw new SettingsError(
        `environment variable ${ENV.remediation}.${key}.${field} is ${JSON.stringify(v)}; expected a number > 0`,
      );
    }
    return v;
  };
  const planMode = mode('planSubnetCapacity');
  return {
    ...analyzerSettings(env),
    remediation: {
      raiseSystemNodegroup: {
        mode: mode('raiseSystemNodegroup'),
        maxMinSize: positive('raiseSystemNodegroup', 'maxMinSize', 3),
      },
      requestQuotaIncrease: {
        mode: mode('requestQuotaIncrease'),
        maxValue: positive('requestQuotaIncrease', 'maxValue', 512),
        windowHours: positive('requestQuotaIncrease', 'windowHours', 24),
      },
      // Subnet capacity is planned, never applied, whatever the variable says.
      planSubnetCapacity: { mode: planMode === 'apply' ? 'dry-run' : planMode },
    },
  };
}
