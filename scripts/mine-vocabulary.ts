/**
 * Mines Karpenter's message templates from local git mirrors into test/fixtures/vocabulary, or with `--ec2`
 * writes the EC2 error-code table; run by hand, not by CI (docs/architecture.md, Vocabulary sources).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { EC2_BENIGN_REASONS } from '../lambdas/core/recognise/vocabulary/ec2-families';
import {
  EC2_CODE_CONTEXT_ONLY,
  EC2_CODE_OVERRIDES,
  EC2_FAMILY_RULES,
  EC2_OVERRIDE_REASONS,
  mapTemplate,
  type MessageKind,
} from './vocabulary-mapping';

const ROOT = join(__dirname, '..');
const args = process.argv.slice(2);
const MIRRORS = args.includes('--mirrors') ? args[args.indexOf('--mirrors') + 1]! : '/work/.mirror';

export const KARPENTER_REPOS = [
  { repo: 'aws/karpenter-provider-aws', dir: 'aws+karpenter-provider-aws', from: [0, 5] },
  { repo: 'kubernetes-sigs/karpenter', dir: 'kubernetes-sigs+karpenter', from: [0, 21] },
] as const;

const git = (dir: string, ...argv: string[]): string =>
  execFileSync('git', ['-C', join(MIRRORS, dir, 'repo'), ...argv], { encoding: 'utf8', maxBuffer: 1 << 28 });

/** The latest patch tag of each minor release at or after `from`. */
export function minorReleases(dir: string, from: readonly [number, number]): string[] {
  const latest = new Map<string, [number, number, number]>();
  for (const tag of git(dir, 'tag').split('\n')) {
    const m = /^v(\d+)\.(\d+)\.(\d+)$/.exec(tag);
    if (!m) continue;
    const v = [Number(m[1]), Number(m[2]), Number(m[3])] as [number, number, number];
    if (v[0] < from[0] || (v[0] === from[0] && v[1] < from[1])) continue;
    const key = `${v[0]}.${v[1]}`;
    const seen = latest.get(key);
    if (!seen || seen[2] < v[2]) latest.set(key, v);
  }
  return [...latest.values()].sort((a, b) => a[0] - b[0] || a[1] - b[1]).map((v) => `v${v.join('.')}`);
}

/** A Go string literal at the start of `text` (interpreted or raw), unquoted; undefined otherwise. */
function goString(text: string): string | undefined {
  if (text.startsWith('`')) {
    const end = text.indexOf('`', 1);
    return end > 0 ? text.slice(1, end) : undefined;
  }
  if (!text.startsWith('"')) return undefined;
  let out = '';
  for (let i = 1; i < text.length; i++) {
    const c = text[i]!;
    if (c === '\\') {
      const n = text[++i];
      out += n === 'n' ? '\n' : n === 't' ? '\t' : (n ?? '');
    } else if (c === '"') return out;
    else out += c;
  }
  return undefined;
}

const STR = String.raw`("(?:[^"\\]|\\.)*"|` + '`[^`]*`)';

/**
 * The Go calls whose string argument is a message template, with the literal captured: error
 * construction, logr/zap logging at each level, and event messages.
 */
const CALLS: Array<[RegExp, MessageKind, string | undefined]> = [
  [new RegExp(String.raw`\b(?:fmt\.Errorf|errors\.New|errors\.Errorf)\(\s*` + STR, 'g'), 'error', undefined],
  // logr: log.FromContext(ctx).Error(err, "msg"); zap sugared (v0.x): logging.FromContext(ctx).Errorf("msg", …)
  [new RegExp(String.raw`\.Error\(\s*[\w.]+(?:\([^()]*\))?,\s*` + STR, 'g'), 'log', 'error'],
  [new RegExp(String.raw`(?<!\bfmt|\berrors)\.(?:Errorf|Errorw|Error)\(\s*` + STR, 'g'), 'log', 'error'],
  [new RegExp(String.raw`\.(?:Warnf|Warnw|Warn)\(\s*` + STR, 'g'), 'log', 'warn'],
  [new RegExp(String.raw`\.(?:Infof|Infow|Info)\(\s*` + STR, 'g'), 'log', 'info'],
  [new RegExp(String.raw`\.(?:Debugf|Debugw|Debug)\(\s*` + STR, 'g'), 'log', 'debug'],
  [new RegExp(String.raw`\bMessage:\s*(?:fmt\.Sprintf\(\s*)?` + STR, 'g'), 'event', undefined],
  [new RegExp(String.raw`\.Eventf?\([^"]*"[A-Za-z]+",\s*` + STR, 'g'), 'event', undefined],
];

export interface Mined {
  repo: string;
  tag: string;
  file: string;
  kind: MessageKind;
  level?: string;
  template: string;
  reason?: string;
  /** Condition messages: the status the call sets and the condition type. */
  status?: 'False' | 'Unknown';
  condition_type?: string;
}

/** `conditions.SetFalse(v1.ConditionTypeX, "Reason", "message")` and `SetUnknownWithReason(…)`. */
const SET_CONDITION = new RegExp(
  String.raw`\.(SetFalse|SetUnknownWithReason)\(\s*[\w.]*?ConditionType(\w+),\s*"([A-Za-z]+)",\s*(?:fmt\.Sprintf\(\s*)?` +
    STR,
  'g',
);

const GO_PATHSPEC = [
  '--',
  '*.go',
  ':!*_test.go',
  ':!test/**',
  ':!hack/**',
  ':!tools/**',
  ':!vendor/**',
  ':!**/fake/**',
  ':!kwok/**',
  ':!dra-kwok-driver/**',
  ':!website/**',
  ':!designs/**',
];

/** Every message template of one release: from calls, event literals and condition constants. */
export function mineRelease(repo: string, dir: string, tag: string): Mined[] {
  const out: Mined[] = [];
  const grep = git(
    dir,
    'grep',
    '-n',
    '-E',
    String.raw`(Errorf?\(|errors\.New\(|Errorw\(|Warnf?w?\(|Infof?w?\(|Debugf?w?\(|Message:|\.Eventf?\(|Reason:|SetFalse\(|SetUnknownWithReason\(|Condition[A-Za-z]*\s*(=|\)))`,
    tag,
    ...GO_PATHSPEC,
  );
  for (const hit of grep.split('\n')) {
    const m = /^[^:]+:([^:]+):\d+:(.*)$/.exec(hit);
    if (!m) continue;
    const [, file, code] = m as unknown as [string, string, string];
    for (const [pattern, kind, level] of CALLS) {
      for (const found of code.matchAll(pattern)) {
        const template = goString(found[1]!);
        if (template === undefined || template.trim().length < 4) continue;
        out.push({ repo, tag, file, kind, ...(level ? { level } : {}), template });
      }
    }
    // Event reasons and condition types/reasons given as literals or named constants.
    const reason = /\bReason:\s*"([A-Za-z]{3,60})"/.exec(code);
    if (reason) out.push({ repo, tag, file, kind: 'event', template: reason[1]!, reason: reason[1] });
    const condition = /\b(Condition(?:Type|Reason)?[A-Za-z]*)\s*(?:[A-Za-z.]+\s*)?=\s*"([A-Za-z]{3,60})"/.exec(code);
    if (condition) out.push({ repo, tag, file, kind: 'condition', template: condition[2]! });
    for (const found of code.matchAll(SET_CONDITION)) {
      const template = goString(found[4]!);
      if (template === undefined || template.trim().length < 4) continue;
      const status = found[1] === 'SetFalse' ? 'False' : 'Unknown';
      out.push({ repo, tag, file, kind: 'condition', template, reason: found[3]!, status, condition_type: found[2]! });
    }
  }
  return out;
}

/** One mined Karpenter message template, a row of test/fixtures/vocabulary/karpenter-messages.jsonl. */
export interface MessageRow {
  repo: string;
  file: string;
  kind: MessageKind;
  level?: string;
  template: string;
  tags: string[];
  rule: string | null;
  benign_reason?: string;
  silent?: boolean;
  /** Condition messages (SetFalse / SetUnknownWithReason): the status set, the condition type and reason. */
  status?: 'False' | 'Unknown';
  condition_type?: string;
  reason?: string;
}

function mineKarpenter(): MessageRow[] {
  const rows = new Map<string, MessageRow>();
  for (const { repo, dir, from } of KARPENTER_REPOS) {
    for (const tag of minorReleases(dir, from)) {
      const seenHere = new Set<string>();
      for (const mined of mineRelease(repo, dir, tag)) {
        const key = `${repo}\u0000${mined.kind}\u0000${mined.level ?? ''}\u0000${mined.status ?? ''}\u0000${mined.template}`;
        if (seenHere.has(key)) continue;
        seenHere.add(key);
        const row = rows.get(key);
        if (row) {
          row.tags.push(tag);
          row.file = mined.file; // the newest file that holds it
        } else {
          const { rule, benign_reason, silent } = mapTemplate(
            mined.kind,
            mined.level,
            mined.template,
            mined.status,
            mined.condition_type,
          );
          rows.set(key, {
            repo,
            file: mined.file,
            kind: mined.kind,
            ...(mined.level ? { level: mined.level } : {}),
            template: mined.template,
            tags: [tag],
            rule,
            ...(benign_reason ? { benign_reason } : {}),
            ...(silent ? { silent } : {}),
            ...(mined.status
              ? { status: mined.status, condition_type: mined.condition_type, reason: mined.reason }
              : {}),
          });
        }
      }
      process.stderr.write(`${repo}@${tag}: ${seenHere.size} templates\n`);
    }
  }
  return [...rows.values()];
}

/**
 * The EC2 error-code table transcribed from the AWS page (code, meaning, family), read from beside the
 * clone where the team keeps it, each code mapped to a rule or a benign reason.
 */
function ec2Codes(): string {
  const md = readFileSync(join(ROOT, '..', 'shared', 'reference', 'ec2-error-codes.md'), 'utf8');
  const seen = new Set<string>();
  const lines: string[] = [];
  for (const row of md.split('\n')) {
    const m = /^\| `([A-Za-z0-9.]+)` \|[^|]*\|[^|]*\| ([a-z-]+) \|/.exec(row);
    if (!m || seen.has(m[1]!)) continue;
    const [, code, family] = m as unknown as [string, string, string];
    seen.add(code);
    const rule = code in EC2_CODE_OVERRIDES ? EC2_CODE_OVERRIDES[code]! : EC2_FAMILY_RULES[family]!;
    if (rule === undefined) throw new Error(`family ${family} has no mapping`);
    const benign = rule === null ? (EC2_OVERRIDE_REASONS[code] ?? family) : undefined;
    if (benign && !(benign in EC2_BENIGN_REASONS)) throw new Error(`no benign reason ${benign}`);
    const context = EC2_CODE_CONTEXT_ONLY.has(code) ? ', contextOnly: true' : '';
    lines.push(
      `  { code: '${code}', family: '${family}', ${rule ? `rule: '${rule}'` : `rule: null, benign: '${benign}'`}${context} },`,
    );
  }
  // Review aid: a code inside another code of a different rule would fire both.
  const codes = [...seen];
  for (const a of codes)
    for (const b of codes) {
      if (a !== b && b.toLowerCase().includes(a.toLowerCase())) {
        const ra = lines.find((l) => l.includes(`'${a}'`))!.match(/rule: ('[^']+'|null)/)![1];
        const rb = lines.find((l) => l.includes(`'${b}'`))!.match(/rule: ('[^']+'|null)/)![1];
        if (ra !== rb && ra !== 'null') process.stderr.write(`review: ${a} (${ra}) is inside ${b} (${rb})\n`);
      }
    }
  return lines.join('\n');
}

function writeEc2Module(): void {
  const source = `/**
 * Generated by scripts/mine-vocabulary.ts --ec2 from the AWS page of EC2 API error codes and
 * scripts/vocabulary-mapping.ts: edit those, not this file (docs/architecture.md, Vocabulary sources).
 */
import type { Ec2ErrorCode } from './ec2-families';

export const EC2_ERROR_CODES: readonly Ec2ErrorCode[] = [
${ec2Codes()}
];
`;
  const dir = join(ROOT, 'lambdas', 'core', 'recognise', 'vocabulary');
  const path = join(dir, 'ec2-error-codes.ts');
  mkdirSync(dir, { recursive: true });
  writeFileSync(path, source);
  execFileSync('npx', ['prettier', '--write', path], { cwd: ROOT });
}

if (require.main === module && args.includes('--ec2')) {
  writeEc2Module();
} else if (require.main === module) {
  const rows = mineKarpenter();
  const dir = join(ROOT, 'test', 'fixtures', 'vocabulary');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'karpenter-messages.jsonl'), rows.map((row) => JSON.stringify(row)).join('\n') + '\n');
  const byRule = new Map<string, number>();
  for (const row of rows)
    byRule.set(
      row.rule ?? `benign: ${row.benign_reason}`,
      (byRule.get(row.rule ?? `benign: ${row.benign_reason}`) ?? 0) + 1,
    );
  process.stderr.write(`${rows.length} templates\n`);
  for (const [key, count] of [...byRule].sort((a, b) => b[1] - a[1])) process.stderr.write(`${count}\t${key}\n`);
}
