import * as z from 'zod';
import {
  clustersSchema,
  describeIssues,
  headroomSchema,
  karpenterSourcesSchema,
  notificationsSchema,
  remediationSchema,
  windowsSchema,
  type KarpenterDoctorConfig,
} from './config';
import { SettingsError } from './settings-error';
import { subscribedLogGroupsOf } from './auto-mode-logs';

export { SettingsError };

/**
 * The settings every function runs with, the run-time part of the configuration, as the stack writes them into a
 * file beside each function's code (`SETTINGS_FILE`; docs/architecture.md, Bundling the functions).
 */
export const functionSettingsSchema = z.strictObject({
  clusters: clustersSchema,
  windows: windowsSchema,
  notifications: notificationsSchema,
  karpenterSources: karpenterSourcesSchema,
  headroom: headroomSchema,
  remediation: remediationSchema,
});

export type FunctionSettings = z.output<typeof functionSettingsSchema>;

/** The settings file's name in each function's code directory, beside index.js. */
export const SETTINGS_FILE = 'settings.json';

/** The settings of a validated configuration, as the stack writes them for every function. */
export function functionSettingsOf(config: KarpenterDoctorConfig): FunctionSettings {
  const { windows, notifications, karpenterSources, headroom, remediation } = config;
  // The Auto Mode log group the stack creates is one of the cluster's groups to the analyzer.
  const clusters = config.clusters.map((cluster) => ({ ...cluster, logGroups: subscribedLogGroupsOf(cluster) }));
  return { clusters, windows, notifications, karpenterSources, headroom, remediation };
}

/** The one serialisation of the settings. */
export function serializeSettings(settings: FunctionSettings): string {
  return `${JSON.stringify(settings)}\n`;
}

/** Parses and validates a settings document; `source` (the file) names it in the error. */
export function parseSettings(text: string, source: string): FunctionSettings {
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (error) {
    throw new SettingsError(`The settings ${source} are not JSON: ${(error as Error).message}`);
  }
  const result = functionSettingsSchema.safeParse(document, { reportInput: true });
  if (result.success) return result.data;
  const problems = describeIssues(result.error.issues, functionSettingsSchema, 'settings');
  throw new SettingsError(`Invalid karpenter-doctor function settings (${source}):\n${problems.join('\n')}`);
}
