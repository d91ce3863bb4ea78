/** Reading untyped JSON values: a plain object, and a parse that does not throw. */

/** A JSON object (not null, not an array), whose members can be read as `unknown`. */
export const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** JSON.parse that returns undefined instead of throwing. */
export function tryJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
