/**
 * Log text is attacker-influenceable (pod names, annotations, error strings). Everything derived
 * from it is passed through here before a person sees it (CWE-117, https://cwe.mitre.org/data/definitions/117.html).
 */

// C0/C1 controls, DEL, ANSI escapes, bidi overrides and zero-width characters.
const ANSI_ESCAPE = /\u001b\[[0-9;?]{0,32}[ -/]{0,4}[@-~]/g;
const UNSAFE_CHARS = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/g;

/** One line of plain text: no control characters, whitespace folded, at most `max` characters. */
export function sanitizeLine(text: string, max = 1000): string {
  const clean = text.replace(ANSI_ESCAPE, '').replace(UNSAFE_CHARS, ' ').replace(/ {2,}/g, ' ').trim();
  return truncate(clean, max);
}

/** Cuts text to `max` characters (code points), marking the cut with an ellipsis. */
export function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  const chars = Array.from(text);
  if (chars.length <= max) return text;
  return `${chars.slice(0, Math.max(0, max - 1)).join('')}…`;
}

/**
 * Text safe inside chat markdown: markup characters escaped, links and mentions neutralised
 * (`@here`, `<@U123>`, `<!channel>` cannot ping anyone).
 */
export function escapeMarkdown(text: string): string {
  return neutraliseLinks(sanitizeLine(text, Number.MAX_SAFE_INTEGER).replace(/[\\`*_{}[\]()<>#+|~!]/g, '\\$&'));
}

/**
 * Text safe inside a chat code span or block, where markup is not rendered but chat clients may
 * still resolve mentions and links: no backticks to break out, mentions and URLs neutralised.
 */
export function codeSafe(text: string, max: number): string {
  return neutraliseLinks(sanitizeLine(text, max).replace(/`/g, "'"));
}

/** A word joiner after `@`, `<` and `:` stops mentions (`@here`, `<!channel>`, `<@U1>`) and autolinks. */
const neutraliseLinks = (text: string): string =>
  text.replace(/@/g, '@\u2060').replace(/</g, '<\u2060').replace(/:\/\//g, ':\u2060//');

/** Printable ASCII only, for email subjects and other headers: at most `max` characters. */
export function asciiOnly(text: string, max: number): string {
  const ascii = text
    .replace(/[^\x20-\x7e]/g, '')
    .replace(/ {2,}/g, ' ')
    .trim();
  return ascii.length <= max ? ascii : `${ascii.slice(0, max - 3)}...`;
}
