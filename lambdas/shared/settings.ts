import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { ClusterConfig, RemediationConfig } from '../../contracts/config';
import { EVENT_SOURCE } from '../../contracts/events';
import { ENV } from '../../contracts/names';
import type { FunctionSettings } from '../../contracts/settings';
import { isCompleteSettings } from '../../contracts/settings-check';
import { SettingsError } from '../../contracts/settings-error';
import { DEFAULT_LIMITS, type DeliveryLimits } from '../core/incidents/delivery-limits';
import type { HeadroomThresholds } from '../core/headroom/forecast';
import type { KarpenterSources } from '../core/parse/karpenter-source';
import type { LifecyclePolicy } from '../core/incidents/lifecycle';

export { SettingsError };

/** What the functions use of a configured cluster (contracts/config.ts): its log groups tell the analyzer which cluster a delivery is about. */
export type ClusterEntry = Omit<ClusterConfig, 'filterPattern' | 'logGroups'> & { logGroups?: string[] };

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

export interface HeadroomSettings extends AnalyzerSettings {
  thresholds: HeadroomThresholds;
}

export interface RemediatorSettings extends AnalyzerSettings {
  remediation: RemediationConfig;
}

const MINUTE_MS = 60_000;
const DAY_MS = 24 * 60 * MINUTE_MS;

let memo: { env: NodeJS.ProcessEnv; settings: FunctionSettings } | undefined;

/**
 * The settings document of this function: the file the stack bundles beside its code, named by
 * `SETTINGS_FILE` (relative to the code directory, or absolute), validated by the contract's schema.
 * Read once per execution environment.
 */
export function functionSettings(env: NodeJS.ProcessEnv = process.env): FunctionSettings {
  if (memo?.env === env) return memo.settings;
  const path = resolve(__dirname, required(env, ENV.settingsFile));
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new SettingsError(`Cannot read the settings file ${path} (${ENV.settingsFile}): ${(error as Error).message}`);
  }
  const settings = completeSettings(text) ?? fullSchema().parseSettingsFully(text, path);
  if (typeof settings === 'string') throw new SettingsError(settings);
  memo = { env, settings };
  return settings;
}

/** The settings in `text` when they are complete and valid as the stack writes them (contracts/settings-check.ts). */
function completeSettings(text: string): FunctionSettings | undefined {
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch {
    return undefined;
  }
  return isCompleteSettings(document) ? document : undefined;
}

/**
 * The zod schema of the settings, for a file the fast check did not accept: loaded then and only then
 * (its own file beside index.js in the bundle, see lib/constructs/lambda-function.ts).
 */
function fullSchema(): typeof import('./settings-schema') {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require('./settings-schema') as typeof import('./settings-schema');
}

/** The analyzer's settings: names of the stack's resources from the environment, the rest from the settings file. */
export function analyzerSettings(env: NodeJS.ProcessEnv = process.env): AnalyzerSettings {
  const { clusters, windows, notifications, karpenterSources } = functionSettings(env);
  return {
    tableName: required(env, ENV.tableName),
    topicArn: required(env, ENV.topicArn),
    eventBusName: env[ENV.eventBusName] || 'default',
    eventSource: EVENT_SOURCE,
    clusters,
    policy: {
      renotifyAfterMs: windows.renotifyMinutes * MINUTE_MS,
      suppressForMs: windows.suppressMinutes * MINUTE_MS,
      retainForMs: windows.retentionDays * DAY_MS,
      resolveAfterMs: windows.resolveMinutes * MINUTE_MS,
    },
    enrichBudgetMs: nonNegative(env, ENV.enrichBudgetMs, 8000),
    limits: {
      maxNoticesPerCluster: notifications.maxNoticesPerDelivery,
      maxNoticesPerHour: notifications.maxNoticesPerHour,
      maxIncidentsPerDelivery: notifications.maxIncidentsPerDelivery,
      concurrency: DEFAULT_LIMITS.concurrency,
    },
    sources: karpenterSources,
  };
}

/** The headroom function's settings: the analyzer's, plus the thresholds. */
export function headroomSettings(env: NodeJS.ProcessEnv = process.env): HeadroomSettings {
  const { minFreeIps, minFreePercent, horizonHours } = functionSettings(env).headroom;
  return { ...analyzerSettings(env), thresholds: { minFreeIps, minFreePercent, horizonHours } };
}

/** The remediator's settings: the analyzer's, plus mode and caps per action (the schema keeps subnet capacity to planning). */
export function remediatorSettings(env: NodeJS.ProcessEnv = process.env): RemediatorSettings {
  return { ...analyzerSettings(env), remediation: functionSettings(env).remediation };
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
