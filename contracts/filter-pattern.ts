/**
 * What CloudWatch Logs would refuse in a filter pattern, found at synth instead of halfway through a
 * deployment (https://docs.aws.amazon.com/AmazonCloudWatch/latest/logs/FilterAndPatternSyntax.html):
 * at most 1,024 characters; quoted terms and `%regex%` closed; at most two regular expressions, with
 * no parentheses and no multi-byte characters in them; a JSON pattern `{ $.selector … }` and a
 * space-delimited pattern `[ … ]` closed, with balanced brackets. Only what the syntax states is
 * checked: a pattern that passes may still match nothing.
 */

/** CloudWatch Logs' limit on a filter pattern. */
export const MAX_FILTER_PATTERN_CHARS = 1024;
const MAX_REGEXES = 2;

/** The problems of `pattern`, each a phrase ("has a quoted term that is not closed"); empty when none. */
export function filterPatternProblems(pattern: string): string[] {
  const problems: string[] = [];
  if (pattern.length > MAX_FILTER_PATTERN_CHARS) {
    problems.push(`is ${pattern.length} characters long; CloudWatch Logs allows at most 1,024`);
  }
  const text = pattern.trim();
  const regexes: string[] = [];
  let outside = '';
  let quoted = false;
  let regex: string | undefined;
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!;
    if (quoted) {
      if (char === '\\') i++;
      else if (char === '"') quoted = false;
    } else if (regex !== undefined) {
      if (char === '%') {
        regexes.push(regex);
        regex = undefined;
      } else regex += char;
    } else if (char === '"') quoted = true;
    else if (char === '%') regex = '';
    else outside += char;
  }
  if (quoted) problems.push('has a quoted term that is not closed (")');
  if (regex !== undefined) problems.push('has a regular expression that is not closed (%…%)');
  if (regexes.length > MAX_REGEXES) {
    problems.push(
      `has ${regexes.length} regular expressions; CloudWatch Logs allows at most ${MAX_REGEXES} in one pattern`,
    );
  }
  if (regexes.some((r) => /[()]/.test(r))) {
    problems.push('has parentheses in a regular expression, which CloudWatch Logs does not support');
  }
  if (regexes.some((r) => /[^\x00-\x7f]/.test(r))) {
    problems.push('has a multi-byte character in a regular expression, which CloudWatch Logs does not support');
  }
  const json = text.startsWith('{');
  const delimited = text.startsWith('[');
  const shape: string[] = [];
  if (json && !text.endsWith('}')) shape.push('starts a JSON pattern with "{" but does not end with "}"');
  if (!json && text.endsWith('}')) shape.push('ends with "}" but does not start a JSON pattern with "{"');
  if (delimited && !text.endsWith(']'))
    shape.push('starts a space-delimited pattern with "[" but does not end with "]"');
  if (shape.length === 0) {
    const pairs: Array<[string, string]> = [
      ['{', '}'],
      ['[', ']'],
      ['(', ')'],
    ];
    for (const [open, close] of pairs) {
      if (!balanced(outside, open, close)) shape.push(`has unbalanced "${open}" and "${close}"`);
    }
  }
  if (json && !outside.includes('$')) shape.push('is a JSON pattern without a selector such as $.level');
  problems.push(...shape);
  return problems;
}

function balanced(text: string, open: string, close: string): boolean {
  let depth = 0;
  for (const char of text) {
    if (char === open) depth++;
    else if (char === close && --depth < 0) return false;
  }
  return depth === 0;
}
