import type * as z from 'zod';
import { describeIssues } from '../../contracts/config';
import { functionSettingsSchema, type FunctionSettings } from '../../contracts/settings';

/**
 * Synth-time checks of construct props that come from the configuration. Each prop is checked by the
 * piece of the configuration schema (contracts/config.ts) that states its rule, so the rule and its
 * message are written once, and a construct used on its own fails `cdk synth` as the configuration
 * would. What the schema cannot know (how one construct's props relate to another's, such as the
 * organisation stream's shards against the analyzer's concurrency) each construct checks itself.
 */

/**
 * Throws unless `schema` accepts `value`; the message names the construct, and lists every problem
 * with the prop's path, the value found and what is allowed.
 */
export function requireValid(construct: string, prop: string, schema: z.ZodType, value: unknown): void {
  const result = schema.safeParse(value, { reportInput: true });
  if (result.success) return;
  const problems = describeIssues(result.error.issues, schema, prop);
  throw new Error(`${construct}: invalid ${prop}:\n${problems.join('\n')}`);
}

/** The settings a function is bundled with, checked by the schema the function reads them with. */
export function requireSettings(construct: string, settings: FunctionSettings): void {
  requireValid(construct, 'settings', functionSettingsSchema, settings);
}
