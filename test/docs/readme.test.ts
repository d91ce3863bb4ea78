import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ROOT } from '../helpers';
import { renderRuleTable, RULES_DOCUMENT, TABLE_END, TABLE_START } from '../../scripts/rule-table';
import { runCli } from '../support/cli';

const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');

describe('README', () => {
  it('shows the real output of the command it names', async () => {
    const heading = /Real output \(`npx karpenter-doctor (analyze [^`]+)`, first finding\):\n\n```\n([\s\S]*?)```/.exec(
      readme,
    );
    expect(heading).not.toBeNull();
    const argv = heading![1]!.split(' ');
    const { stdout } = await runCli(argv);
    expect(stdout.startsWith(heading![2]!)).toBe(true);
  });

  it('names only npm scripts that exist', () => {
    const scripts = Object.keys(
      (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: object }).scripts,
    );
    const named = [...readme.matchAll(/npm run ([a-z:]+)/g)].map((m) => m[1]!);
    expect(named.filter((name) => !scripts.includes(name))).toEqual([]);
  });

  it('shows the rule table generated from the registry in docs/rules.md (npm run generate)', () => {
    const rules = readFileSync(join(ROOT, RULES_DOCUMENT), 'utf8');
    const start = rules.indexOf(TABLE_START);
    const end = rules.indexOf(TABLE_END);
    expect(start).toBeGreaterThan(0);
    expect(rules.slice(start + TABLE_START.length, end).trim()).toBe(renderRuleTable());
  });

  it('names only files of the repository, in the README and in docs/', () => {
    const documents = [
      'README.md',
      ...readdirSync(join(ROOT, 'docs'))
        .filter((f) => f.endsWith('.md'))
        .map((f) => `docs/${f}`),
    ];
    const missing: string[] = [];
    for (const document of documents) {
      const text = readFileSync(join(ROOT, document), 'utf8');
      // Relative links resolve from the document; paths in code spans are from the repository root.
      for (const [, target] of text.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)) {
        if (/^[a-z]+:/.test(target!)) continue;
        if (!existsSync(join(ROOT, dirname(document), target!))) missing.push(`${document}: ${target}`);
      }
      for (const [, path] of text.matchAll(
        /`((?:\.ci|bin|contracts|lib|lambdas|config|docs|test|examples|scripts)\/[\w./-]*)`/g,
      )) {
        if (!existsSync(join(ROOT, path!))) missing.push(`${document}: ${path}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('puts the quick start, the CLI and what to collect before the deploy guide, and the rest in docs/', () => {
    const headings = [...readme.matchAll(/^## (.+)$/gm)].map((m) => m[1]);
    expect(headings.slice(0, 4)).toEqual(['Quick start', 'CLI', 'What to collect', 'Deploy to AWS']);
    expect(headings).not.toEqual(expect.arrayContaining(['Benchmarks', 'How it is built']));
    expect(readme).not.toContain(TABLE_START);
    // About 250 lines: what it is, how to run it and what to feed it; the details are in docs/.
    expect(readme.split('\n').length).toBeLessThanOrEqual(260);
  });
});
