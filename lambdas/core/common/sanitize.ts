/**
 * Log text is attacker-influenceable (pod names, annotations, error strings). Everything derived
 * from it is passed through here before a person sees it (CWE-117, https://cwe.mitre.org/data/definitions/117.html).
 */

// C0/C1 controls, DEL, ANSI escapes, bidi overrides and zero-width characters.
const ANSI_ESCAPE = /\u001b\[[0-9;?]{0,32}[ -/]{0,4}[@-~]/g;
const UNSAFE_CHARS = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/g;

/** What any of the replacements below would change: an unsafe character (an escape's among them), or two spaces. */
const NEEDS_CLEANING = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]| {2}/;

/** One line of plain text: no control characters, whitespace folded, at most `max` characters. */
export function sanitizeLine(text: string, max = 1000): string {
  // Most lines need none of the three replacements: one pass finds that instead of three.
  if (!NEEDS_CLEANING.test(text)) return truncate(text.trim(), max);
  const clean = text.replace(ANSI_ESCAPE, '').replace(UNSAFE_CHARS, ' ').replace(/ {2,}/g, ' ').trim();
  return truncate(clean, max);
}

/**
 * Cuts text to `max` characters (code points), marking the cut with an ellipsis. Code points are
 * counted in place, as the string iterator reads them (a surrogate pair is one, a lone surrogate is
 * one), not by an array of the whole text: evidence is cut from summaries of any length.
 */
export function truncate(text: string, max: number): string {
  const length = text.length;
  if (length <= max) return text;
  if (!Number.isInteger(max) || max < 1) return truncateByArray(text, max);
  const kept = max - 1;
  let points = 0;
  let cut = 0;
  for (let i = 0; i < length; points++) {
    if (points === kept) cut = i;
    // The text has more than `max` code points: cut it after the first `kept`.
    if (points === max) return `${text.slice(0, cut)}…`;
    const code = text.charCodeAt(i);
    i += code >= 0xd800 && code <= 0xdbff && i + 1 < length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00 ? 2 : 1;
  }
  return text;
}

/** `truncate` for a limit that is not a whole number of at least 1, as it always was. */
function truncateByArray(text: string, max: number): string {
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

/**
 * Prose for chat markdown: only the characters that start markup are escaped (a bracket pair makes a
 * link, so `(` `)` need no escape and show no backslash), and mentions and links are neutralised.
 */
export function chatText(text: string): string {
  return neutraliseLinks(sanitizeLine(text, Number.MAX_SAFE_INTEGER).replace(/[\\`*_[\]|~]/g, '\\$&'));
}

/**
 * A command for a chat code span: control characters removed, a backtick (which would end the span)
 * made a quote, nothing inserted: chat clients resolve no mention or link inside code, and an
 * invisible character there would break the command when pasted.
 */
export function chatCode(text: string): string {
  return sanitizeLine(text, Number.MAX_SAFE_INTEGER).replace(/`/g, "'");
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
