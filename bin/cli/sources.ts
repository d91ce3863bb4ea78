import { readdirSync, statSync, type Stats } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { InputError } from './text-input';

/** One input to read: a file, or standard input. */
export interface Source {
  /** As shown to the user and in evidence: the path as given (or found under a directory), or `<stdin>`. */
  name: string;
  /** Absolute path of a file; undefined for standard input. */
  path?: string;
  /** Found by walking a directory or expanding a pattern, not named one by one: binary files are skipped, not fatal. */
  found: boolean;
}

const GLOB_CHARS = /[*?[]/;

/**
 * The inputs named on the command line, in order: `-` is standard input, a directory is every file
 * under it (recursively, sorted, hidden entries skipped), a pattern with `*`, `?`, `[…]` or `**` is
 * expanded when no file has that exact name (shells usually expand it first). Raises InputError for
 * a name that is neither.
 */
export function expandSources(args: string[], cwd: string): Source[] {
  const sources: Source[] = [];
  for (const arg of args.length ? args : ['-']) {
    if (arg === '-') {
      sources.push({ name: '<stdin>', found: false });
      continue;
    }
    const path = resolve(cwd, arg);
    const stats = statOrUndefined(path);
    if (stats?.isDirectory()) {
      const files = walk(path).map((file) => ({ name: displayName(arg, path, file), path: file, found: true }));
      if (files.length === 0) throw new InputError(`${arg} is a directory with no files in it`);
      sources.push(...files);
    } else if (stats) {
      sources.push({ name: arg, path, found: false });
    } else if (GLOB_CHARS.test(arg)) {
      const files = expandPattern(arg, cwd);
      if (files.length === 0) throw new InputError(`no file matches ${arg}`);
      for (const file of files) sources.push({ name: relative(cwd, file) || file, path: file, found: true });
    } else {
      throw new InputError(`cannot read ${arg}: no such file`);
    }
  }
  return sources;
}

function statOrUndefined(path: string): Stats | undefined {
  try {
    return statSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw new InputError(`cannot read ${path}: ${(error as Error).message}`);
  }
}

/** Regular files under a directory, depth first, sorted by name; hidden entries are skipped. */
function walk(dir: string): string[] {
  const files: string[] = [];
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch (error) {
    throw new InputError(`cannot read the directory ${dir}: ${(error as Error).message}`);
  }
  for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    if (entry.name.startsWith('.')) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) files.push(...walk(path));
    else if (entry.isFile() || (entry.isSymbolicLink() && statOrUndefined(path)?.isFile())) files.push(path);
  }
  return files;
}

function displayName(arg: string, dir: string, file: string): string {
  return join(arg, relative(dir, file));
}

/** Files matching a pattern of `/`-separated segments with `*`, `?`, `[…]`, and `**` for any depth. */
export function expandPattern(pattern: string, cwd: string): string[] {
  const absolute = pattern.startsWith('/');
  const segments = pattern.split('/').filter((segment, index) => segment !== '' || index === 0);
  let base = absolute ? '/' : cwd;
  let index = absolute ? 1 : 0;
  while (index < segments.length - 1 && !GLOB_CHARS.test(segments[index]!)) base = join(base, segments[index++]!);
  const found = new Set<string>();
  matchFrom(base, segments.slice(index), found);
  return [...found].sort();
}

function matchFrom(dir: string, segments: string[], found: Set<string>): void {
  if (segments.length === 0) return;
  const [segment, ...rest] = segments as [string, ...string[]];
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  if (segment === '**') {
    matchFrom(dir, rest, found);
    for (const entry of entries) {
      if (entry.isDirectory() && !entry.name.startsWith('.')) matchFrom(join(dir, entry.name), segments, found);
    }
    return;
  }
  const matcher = segmentPattern(segment);
  for (const entry of entries) {
    if (!matcher.test(entry.name) || (entry.name.startsWith('.') && !segment.startsWith('.'))) continue;
    const path = join(dir, entry.name);
    if (rest.length === 0) {
      if (entry.isFile() || (entry.isSymbolicLink() && statOrUndefined(path)?.isFile())) found.add(path);
    } else if (entry.isDirectory()) {
      matchFrom(path, rest, found);
    }
  }
}

function segmentPattern(segment: string): RegExp {
  let source = '';
  for (let i = 0; i < segment.length; i++) {
    const char = segment[i]!;
    if (char === '*') source += '[^/]*';
    else if (char === '?') source += '[^/]';
    else if (char === '[') {
      const close = segment.indexOf(']', i + 2);
      if (close === -1) source += '\\[';
      else {
        const body = segment.slice(i + 1, close).replace(/\\/g, '\\\\');
        source += `[${body.startsWith('!') ? `^${body.slice(1)}` : body}]`;
        i = close;
      }
    } else source += char.replace(/[.+^${}()|\\]/g, '\\$&');
  }
  return new RegExp(`^${source}$`);
}
