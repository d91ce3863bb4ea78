import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { ROOT } from '../helpers';

/**
 * Comments point inside the repository: to docs/architecture.md or the README by a heading that
 * exists, or to AWS documentation by URL — never to design notes, reference files or a `../shared`
 * folder that a clone does not have.
 */

const SOURCE_DIRS = ['contracts', 'lib', 'lambdas', 'bin', 'scripts', 'test'];
const EXTRA_FILES = ['eslint.config.mjs', 'jest.config.js', 'jest.integration.config.js'];

/** References to documents that live outside this repository. */
const OUTSIDE: ReadonlyArray<readonly [RegExp, string]> = [
  [/\bDESIGN\b(\.md)?\s*§|\bDESIGN\.md\b/, 'the design notes'],
  [/\bSTYLE\.md\b|\bTOOLCHAIN(\.md)?\b/, 'the team notes'],
  [/(^|[\s(`'"])(\.\.\/)*shared\/(reference|seed|tools)\b/, 'the shared folder'],
  [/\.\.\/shared\//, 'the shared folder'],
  [/(^|[\s(`'"])reference\/[\w-]+\.(md|jsonl)\b/, 'the reference files'],
];

/** Every comment of a TypeScript or JavaScript source, with the line it starts on. */
export function commentsOf(fileName: string, text: string): Array<{ line: number; text: string }> {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, false);
  const seen = new Set<number>();
  const comments: Array<{ line: number; text: string }> = [];
  const collect = (ranges: ts.CommentRange[] | undefined) => {
    for (const range of ranges ?? []) {
      if (seen.has(range.pos)) continue;
      seen.add(range.pos);
      comments.push({
        line: source.getLineAndCharacterOfPosition(range.pos).line + 1,
        text: text.slice(range.pos, range.end),
      });
    }
  };
  const visit = (node: ts.Node) => {
    collect(ts.getLeadingCommentRanges(text, node.pos));
    // What follows a node up to the next token: trailing comments, and comments before a closing
    // brace or the end of the file, which belong to no node.
    collect(ts.getTrailingCommentRanges(text, node.end));
    collect(ts.getLeadingCommentRanges(text, node.end));
    ts.forEachChild(node, visit);
  };
  visit(source);
  return comments.sort((a, b) => a.line - b.line);
}

const headingsOf = (markdown: string) => [...markdown.matchAll(/^#{2,4} (.+)$/gm)].map((m) => m[1]!.trim());
const ARCHITECTURE = headingsOf(readFileSync(join(ROOT, 'docs', 'architecture.md'), 'utf8'));
const README = headingsOf(readFileSync(join(ROOT, 'README.md'), 'utf8'));

/** What is wrong with one comment: references outside the repository, or to a heading that does not exist. */
export function problemsOf(comment: string): string[] {
  const flat = comment.replace(/\s*\n\s*(\*|\/\/)?\s*/g, ' ');
  const problems = [
    ...new Set(OUTSIDE.filter(([pattern]) => pattern.test(flat)).map(([, what]) => `points to ${what}`)),
  ];
  for (const [, section] of flat.matchAll(/docs\/architecture\.md,? \(?([A-Z][^,)]*)/g)) {
    const name = section!.trim();
    if (!ARCHITECTURE.some((heading) => heading === name || heading.startsWith(`${name},`))) {
      problems.push(`docs/architecture.md has no section "${section}"`);
    }
  }
  for (const [, section] of flat.matchAll(/README, "([^"]+)"/g)) {
    if (!README.some((heading) => heading.includes(section!))) problems.push(`README has no section "${section}"`);
  }
  return problems;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && /\.(ts|mjs|js)$/.test(entry.name) && !entry.name.endsWith('.d.ts'))
    .map((entry) => relative(ROOT, join(entry.parentPath, entry.name)))
    .filter((path) => !path.includes('node_modules') && !path.startsWith(join('test', 'fixtures')));
}

describe('source comments', () => {
  it('finds comments, and only comments: a reference in a string is code, not a pointer', () => {
    const text = [
      '// see DESIGN §2',
      "const source = 'seed §1 (shared/seed/article.txt)';",
      'function f() {',
      '  return 1; /* reference/aws-facts.md §1 */',
      '  // read ../shared/reference/x.md before the closing brace',
      '}',
    ].join('\n');
    const found = commentsOf('x.ts', text).flatMap((c) => problemsOf(c.text).map((p) => `${c.line}: ${p}`));
    expect(found).toEqual([
      '1: points to the design notes',
      '4: points to the reference files',
      '5: points to the shared folder',
    ]);
  });

  it('checks that a named section of docs/architecture.md or the README exists', () => {
    expect(problemsOf('// (docs/architecture.md, The incident lifecycle)')).toEqual([]);
    expect(problemsOf('// (docs/architecture.md, One delivery, step 6)')).toEqual([]);
    expect(problemsOf('/** (README, "Rule catalog") */')).toEqual([]);
    expect(problemsOf('// (docs/architecture.md, The incident life)')).toEqual([
      'docs/architecture.md has no section "The incident life"',
    ]);
    expect(problemsOf('// (README, "Findings")')).toEqual(['README has no section "Findings"']);
  });

  it('point only inside the repository, to sections that exist', () => {
    const files = [...SOURCE_DIRS.flatMap(sourceFiles), ...EXTRA_FILES];
    expect(files.length).toBeGreaterThan(100);
    const problems = files.flatMap((file) =>
      commentsOf(file, readFileSync(join(ROOT, file), 'utf8')).flatMap((comment) =>
        problemsOf(comment.text).map((problem) => `${file}:${comment.line} ${problem}`),
      ),
    );
    expect(problems).toEqual([]);
  });
});
