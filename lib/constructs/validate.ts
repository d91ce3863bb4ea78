import { describeIssues } from '../../contracts/config';
import { functionSettingsSchema, type FunctionSettings } from '../../contracts/settings';

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

/**
 * The settings a function is bundled with, validated by the schema the function reads them with
 * (contracts/settings.ts): every problem, with its key.
 */
export function requireSettings(construct: string, settings: FunctionSettings): void {
  const result = functionSettingsSchema.safeParse(settings, { reportInput: true });
  if (result.success) return;
  const problems = describeIssues(result.error.issues, functionSettingsSchema, 'settings');
  throw new Error(`${construct}: invalid settings:\n${problems.join('\n')}`);
}
