/**
 * The words of the first command of a shell line, as a POSIX shell splits them: quotes and
 * backslashes resolved, stopped at the first unquoted pipe, list operator, redirection or comment.
 * Enough for the printed advice (no expansions are used in it); a line it cannot read throws.
 */
export function firstCommandWords(line: string): string[] {
  const words: string[] = [];
  let word: string | undefined;
  const push = () => {
    if (word !== undefined) words.push(word);
    word = undefined;
  };
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (c === "'") {
      const end = line.indexOf("'", i + 1);
      if (end < 0) throw new Error(`unterminated ' in: ${line}`);
      word = (word ?? '') + line.slice(i + 1, end);
      i = end;
    } else if (c === '"') {
      let value = '';
      let j = i + 1;
      for (; j < line.length && line[j] !== '"'; j++) {
        if (line[j] === '\\' && /["\\$`]/.test(line[j + 1] ?? '')) j++;
        value += line[j];
      }
      if (j >= line.length) throw new Error(`unterminated " in: ${line}`);
      word = (word ?? '') + value;
      i = j;
    } else if (c === '\\') {
      word = (word ?? '') + (line[i + 1] ?? '');
      i++;
    } else if (c === ' ' || c === '\t') {
      push();
    } else if (c === '|' || c === ';' || c === '&' || c === '>' || c === '<' || (c === '#' && word === undefined)) {
      break;
    } else {
      word = (word ?? '') + c;
    }
  }
  push();
  return words;
}

/** True when the line is more than one command (a pipe, a list or a redirection follows the first). */
export const hasShellTail = (line: string): boolean => firstCommandWords(line).join(' ').length < line.trim().length;
