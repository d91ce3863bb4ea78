/**
 * EventBridge event-pattern matching, as the EventBridge User Guide ("Event patterns", "Comparison
 * operators") describes it. The emulator's own matcher (moto 5.2.1) does not look into arrays of
 * objects, and the remediation rule matches `detail.remediation[].action`, so the harness evaluates
 * each template rule's pattern itself on every event delivered on the bus. Operators it does not know
 * throw: a pattern is never silently taken to match.
 *
 * - every field of the pattern must match; a nested object matches the event's object, or any object
 *   of an array of objects;
 * - an array of values matches when any of them matches the event's value, or any element of the
 *   event's array of values;
 * - operators: `prefix`, `suffix`, `equals-ignore-case`, `anything-but`, `exists`, `numeric`; and `$or`.
 */
export function matchesPattern(pattern: unknown, event: unknown): boolean {
  if (!isObject(pattern)) throw new Error(`an event pattern is an object, not ${JSON.stringify(pattern)}`);
  return Object.entries(pattern).every(([key, expected]) => {
    if (key === '$or') {
      if (!Array.isArray(expected)) throw new Error('$or takes an array of patterns');
      return expected.some((alternative) => matchesPattern(alternative, event));
    }
    const actual = isObject(event) ? event[key] : undefined;
    if (Array.isArray(expected)) return matchesValues(expected, actual, key in (isObject(event) ? event : {}));
    if (isObject(expected)) {
      if (Array.isArray(actual))
        return actual.some((element) => isObject(element) && matchesPattern(expected, element));
      return isObject(actual) && matchesPattern(expected, actual);
    }
    throw new Error(`pattern field ${key} must be an array or an object, not ${JSON.stringify(expected)}`);
  });
}

function matchesValues(matchers: unknown[], actual: unknown, present: boolean): boolean {
  const values = Array.isArray(actual) ? actual : [actual];
  return matchers.some((matcher) => {
    if (isObject(matcher) && 'exists' in matcher) return matcher.exists === (present && actual !== undefined);
    if (!present) return false;
    return values.some((value) => matchesValue(matcher, value));
  });
}

function matchesValue(matcher: unknown, value: unknown): boolean {
  if (!isObject(matcher)) return matcher === value;
  const [operator, argument] = Object.entries(matcher)[0] ?? [];
  switch (operator) {
    case 'prefix':
      return typeof value === 'string' && prefixMatch(argument, value);
    case 'suffix':
      return typeof value === 'string' && typeof argument === 'string' && value.endsWith(argument);
    case 'equals-ignore-case':
      return (
        typeof value === 'string' && typeof argument === 'string' && value.toLowerCase() === argument.toLowerCase()
      );
    case 'anything-but':
      if (Array.isArray(argument)) return !argument.includes(value);
      if (isObject(argument)) return !matchesValue(argument, value);
      return value !== argument;
    case 'numeric':
      return typeof value === 'number' && numericMatch(argument, value);
    default:
      throw new Error(`event pattern operator ${JSON.stringify(operator)} is not known to the integration harness`);
  }
}

function prefixMatch(argument: unknown, value: string): boolean {
  if (typeof argument === 'string') return value.startsWith(argument);
  if (isObject(argument) && typeof argument['equals-ignore-case'] === 'string') {
    return value.toLowerCase().startsWith(argument['equals-ignore-case'].toLowerCase());
  }
  throw new Error(`prefix ${JSON.stringify(argument)} is not known to the integration harness`);
}

function numericMatch(argument: unknown, value: number): boolean {
  if (!Array.isArray(argument) || argument.length % 2 !== 0) throw new Error('numeric takes operator/value pairs');
  for (let i = 0; i < argument.length; i += 2) {
    const [operator, bound] = [argument[i], Number(argument[i + 1])];
    const ok =
      operator === '='
        ? value === bound
        : operator === '<'
          ? value < bound
          : operator === '<='
            ? value <= bound
            : operator === '>'
              ? value > bound
              : operator === '>='
                ? value >= bound
                : undefined;
    if (ok === undefined) throw new Error(`numeric operator ${JSON.stringify(operator)} is not known`);
    if (!ok) return false;
  }
  return true;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
