/**
 * npm run bench: what the analyzer costs, as ratios to a baseline measured in the same run (absolute
 * times on a shared machine are noise). `npm run bench -- raw filtered` runs only those sections; a
 * run of every section rewrites docs/BENCHMARKS.md. Bundled by esbuild and run as the bundle, as
 * Lambda runs the analyzer.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { buildSync, type BuildOptions } from 'esbuild';
import { parseConfigFile } from '../bin/config-source';
import { ENV } from '../contracts/names';
import { isObject, tryJson } from '../lambdas/core/common/json';
import { functionSettingsOf, serializeSettings, SETTINGS_FILE } from '../contracts/settings';
import { ANALYZER_CRYPTO_ON_FIRST_USE, ANALYZER_LAZY_MODULES } from '../lib/constructs/analyzer-function';
import { BUNDLE_OPTIONS, aliasesOf, lazyModulesOf } from '../lib/constructs/lambda-function';
import { DEFAULT_FILTER_TERMS } from '../lib/filter-pattern';
import { analyzeMessages } from '../lambdas/core/analyze';
import { emptyInputStats, fromDocument } from '../lambdas/core/decode/local-input';
import { decodeSubscriptionData, encodeSubscriptionData } from '../lambdas/core/decode/subscription-payload';
import { parseMessage } from '../lambdas/core/parse/parse-message';
import { classify, fragments, prefilterFragments, worthParsingOrPlacement } from '../lambdas/core/recognise/classify';
import { SubstringMatcher } from '../lambdas/core/recognise/substring-matcher';
import { cliGiB, projectRoot } from './bench-cli';

const ROOT = projectRoot(__dirname);
process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';

interface Section {
  name: string;
  title: string;
  /** What the figures mean and how they are measured, for docs/BENCHMARKS.md. */
  method: string;
  /** Fresh processes a full run measures it in, reporting the median one (default 1). */
  processes?: number;
  run(): void | Promise<void>;
}
interface Row {
  section: string;
  measure: string;
  result: string;
  goal: string;
  /** A ratio checked against a budget: what the median over processes is taken of. */
  ratio?: number;
}
const rows: Row[] = [];
let current = '';
const goalOf = (goal: string, ok?: boolean) => (ok === undefined ? goal : `${goal} ${ok ? '✓' : '✗'}`);
const print = (row: Row) => console.log(`${row.measure.padEnd(58)} ${row.result.padEnd(40)} ${row.goal}`);
/** One row of the report; with `ok`, the goal is marked met or not. */
function report(measure: string, result: string, goal = '', ok?: boolean, ratio?: number): void {
  rows.push({ section: current, measure, result, goal: goalOf(goal, ok), ...(ratio === undefined ? {} : { ratio }) });
  print(rows.at(-1)!);
}
const ratio = (value: number) => `${value.toFixed(2)}×`;
const load = () => loadavg()[0]!.toFixed(1);

let seed = 7;
/** mulberry32: deterministic, so every run measures the same corpus. */
const random = (): number => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
};
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
const fresh = (alphabet: string, length: number) => Array.from({ length }, () => pick([...alphabet])).join('');
const rulesOf = (line: string) => {
  const record = parseMessage(line, { line: 1 });
  return record
    ? classify(record)
        .map((signal) => signal.rule)
        .join()
    : '';
};

const lines = (file: string) => readFileSync(join(ROOT, file), 'utf8').split('\n').filter(Boolean);
const examples = ['examples/karpenter-controller.log', 'examples/kubernetes-events.jsonl'].flatMap(lines);
const samples = lines('test/fixtures/karpenter-samples.jsonl').map(
  (l) => JSON.parse(l) as { raw: string; expected_rules: string[] },
);
const healthy = examples.filter((l) => rulesOf(l) === '');
const failing = [
  ...examples.filter((l) => rulesOf(l) !== ''),
  ...samples.filter((s) => s.expected_rules.length).map((s) => s.raw),
];

const HEX = '0123456789abcdef';
/** The names and ids a failure carries, each made fresh: no two lines of an outage name the same objects. */
const RENAMES: Array<[RegExp, (match: string) => string]> = [
  [/\b(?:subnet|i|sg|eni|lt|vol)-[0-9a-f]{8,17}\b/g, (m) => `${m.slice(0, m.indexOf('-'))}-${fresh(HEX, 17)}`],
  [/\bip-\d{1,3}-\d{1,3}-\d{1,3}-\d{1,3}\b/g, () => `ip-10-${fresh('123456789', 2)}-${fresh('123456789', 2)}-7`],
  [/\b[0-9a-f]{8}(?:-[0-9a-f]{4}){3}-[0-9a-f]{12}\b/g, () => `${fresh(HEX, 8)}-4abc-8def-${fresh(HEX, 12)}`],
  // Kubernetes' random name suffixes (no vowels, so no English word is taken for one).
  [
    /\b[a-z][a-z0-9]*(?:-[a-z0-9]+)*-[bcdfghjklmnpqrstvwxz2456789]{5}\b/g,
    (m) => m.slice(0, -5) + fresh('bcdfghjk2456789', 5),
  ],
];
function renamed(line: string): string {
  const out = RENAMES.reduce((text, [pattern, make]) => text.replace(pattern, make), line);
  return rulesOf(out) === rulesOf(line) ? out : line;
}
/** A line as it is (zap JSON), as zap console, or in a Fluent Bit record around a CRI line. */
function envelope(line: string): string {
  const form = random();
  if (form < 1 / 3) return line;
  if (form < 2 / 3) {
    // Only a zap line has a console form: an Event object or a kubectl row stays as it is.
    const zap = tryJson(line);
    if (!isObject(zap) || typeof zap.level !== 'string' || typeof zap.message !== 'string') return line;
    const { time, level, logger, message, ...rest } = zap;
    return `${String(time)}\t${level}\t${String(logger)}\t${message}\t${JSON.stringify(rest)}`;
  }
  const kubernetes = {
    pod_name: 'karpenter-6d8f7b9c54-8zr7n',
    namespace_name: 'karpenter',
    container_name: 'controller',
  };
  return JSON.stringify({ log: `2026-11-28T02:20:49.824913Z stdout F ${line}`, stream: 'stdout', kubernetes });
}
const rawLine = (failureShare: number) => envelope(random() < failureShare ? renamed(pick(failing)) : pick(healthy));

/** CloudWatch Logs' reading of the default filter: any term, case-sensitive, as a whole word. */
const TERMS = new Set<string>(DEFAULT_FILTER_TERMS);
const passesFilter = (message: string) => message.split(/[^A-Za-z0-9_]+/).some((word) => TERMS.has(word));

let nextEventId = 1;
function payloadOf(messages: string[]): string {
  return encodeSubscriptionData({
    messageType: 'DATA_MESSAGE',
    owner: '111122223333',
    logGroup: '/aws/containerinsights/prod/application',
    logStream: 'karpenter',
    subscriptionFilters: ['karpenter-doctor.prod'],
    // Event ids as CloudWatch Logs writes them (56 digits), none repeated, so none is taken for a retry.
    logEvents: messages.map((message, i) => ({
      id: `3${String(nextEventId++).padStart(55, '0')}`,
      timestamp: 1_795_000_000_000 + i,
      message,
    })),
  });
}
/** `count` deliveries of about `bytes` decoded each, drawn afresh from seed 7: the same whichever ran before. */
function payloads(count: number, bytes: number, next: () => string): string[] {
  seed = 7;
  nextEventId = 1;
  return Array.from({ length: count }, () => {
    const messages: string[] = [];
    for (let size = 0; size < bytes; size += messages.at(-1)!.length + 80) messages.push(next());
    return payloadOf(messages);
  });
}
const RAW_FAILURES = 0.03;
const OUTAGE_FAILURES = 0.05;
let rawMemo: string[] | undefined;
const rawBatch = () => (rawMemo ??= payloads(8, 1_000_000, () => rawLine(RAW_FAILURES)));
let filteredMemo: string[] | undefined;
const filteredBatch = () =>
  (filteredMemo ??= payloads(4, 500_000, () => {
    for (;;) {
      const line = rawLine(OUTAGE_FAILURES);
      if (passesFilter(line)) return line;
    }
  }));
const decoded = (data: string) => gunzipSync(Buffer.from(data, 'base64')).toString();
const messagesOf = (data: string) =>
  (JSON.parse(decoded(data)) as { logEvents: Array<{ message: string }> }).logEvents.map((e) => e.message);

/** gunzip + one JSON.parse of the subscription envelope: the least any analyzer does. */
const floor = (data: string) => (JSON.parse(decoded(data)) as { logEvents: unknown[] }).logEvents.length;
/** decode → parse → classify → aggregate, as the analyzer runs before it touches AWS. */
function pipeline(data: string): number {
  const result = decodeSubscriptionData(data);
  return result.ok ? analyzeMessages(fromDocument(result.document, emptyInputStats()), 'prod').incidents.length : 0;
}
const cpuMs = ({ user, system } = process.cpuUsage()) => (user + system) / 1e3;
function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}
const rotated = <T>(items: readonly T[], by: number) => [
  ...items.slice(by % items.length),
  ...items.slice(0, by % items.length),
];
/**
 * Median CPU time of each function over all `inputs`, `rounds` rounds after 2 warm-up ones; each
 * round runs every function once, in an order rotated by one each round, after an untimed scavenge,
 * so that none pays for another's young garbage. CPU time: on a loaded machine wall time mostly
 * measures the wait for a core.
 */
function race<T>(inputs: T[], functions: Array<(input: T) => unknown>, rounds = 15): number[] {
  const gc = (globalThis as { gc?: (options: { type: 'minor' }) => void }).gc;
  const times = functions.map(() => [] as number[]);
  for (let round = -2; round < rounds; round++) {
    for (const index of rotated([...functions.keys()], round + 2)) {
      gc?.({ type: 'minor' });
      const start = cpuMs();
      for (const input of inputs) functions[index]!(input);
      if (round >= 0) times[index]!.push(cpuMs() - start);
    }
  }
  return times.map(median);
}

function throughput(batch: string[], measure: string, limit: number): void {
  const [floorMs, pipelineMs] = race(batch, [floor, pipeline]) as [number, number];
  const mbPerS = batch.reduce((sum, data) => sum + decoded(data).length, 0) / 1e3 / pipelineMs;
  const value = pipelineMs / floorMs;
  const speed = `${ratio(value)} (${mbPerS.toFixed(0)} MB per CPU second)`;
  report(measure, speed, `≤ ${limit}×`, value <= limit, value);
}

const raw: Section = {
  name: 'raw',
  title: 'Raw mix',
  processes: 3,
  method: `A healthy cluster's logs before any filter: 8 deliveries of about 1 MB decoded, ${100 - RAW_FAILURES * 100} % healthy lines from examples/, ${RAW_FAILURES * 100} % failures from examples/ and test/fixtures/karpenter-samples.jsonl with fresh pod, node, subnet and request names, each line as it is, as zap console (a zap line only) or in a Fluent Bit record. The pipeline (\`decodeSubscriptionData\`, then \`analyzeMessages\`: parse → classify → aggregate) against the floor, median CPU time of 15 rounds. A full run measures it in 3 fresh processes and reports the median one, with the range of the three: on a shared machine the same code reads 15 % or more apart from one process to the next.`,
  run: () => throughput(rawBatch(), 'raw mix: pipeline vs floor', 2.5),
};

const filtered: Section = {
  name: 'filtered',
  title: 'Filtered stream',
  processes: 3,
  method: `What the Lambda receives: lines of a cluster in an outage (${OUTAGE_FAILURES * 100} % failures, drawn as for the raw mix) that pass the stack's default subscription filter (\`DEFAULT_FILTER_TERMS\` of lib/filter-pattern.ts, any term, case-sensitive, as a whole word), packed into 4 deliveries of about 500 kB decoded. Pipeline against floor as for the raw mix.`,
  run() {
    throughput(filteredBatch(), 'filtered stream: pipeline vs floor', 5.5);
    const messages = filteredBatch().flatMap(messagesOf);
    const share = messages.filter((message) => rulesOf(message) !== '').length / messages.length;
    report('filtered stream: lines that classify', `${(share * 100).toFixed(0)} % of ${messages.length}`);
  },
};

/** The analyzer bundled into `dir` as the stack bundles it: index.js, its lazy modules, the settings file. */
function bundleAnalyzer(dir: string): void {
  const lazy = lazyModulesOf({ handlerFile: 'analyzer.ts', lazyModules: ANALYZER_LAZY_MODULES });
  const options: BuildOptions = {
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: BUNDLE_OPTIONS.target,
    mainFields: [...BUNDLE_OPTIONS.mainFields],
    minify: BUNDLE_OPTIONS.minify,
    sourcemap: BUNDLE_OPTIONS.sourceMap,
    external: lazy.map((module) => `./${module.name}`),
    logLevel: 'silent',
  };
  for (const { name, entry } of [{ name: 'index', entry: 'lambdas/handlers/analyzer.ts' }, ...lazy]) {
    const aliases = aliasesOf(name, { cryptoOnFirstUse: ANALYZER_CRYPTO_ON_FIRST_USE });
    const alias = Object.fromEntries(Object.entries(aliases).map(([from, to]) => [from, join(ROOT, to)]));
    buildSync({ ...options, alias, entryPoints: [join(ROOT, entry)], outfile: join(dir, `${name}.js`) });
  }
  const config = parseConfigFile(
    readFileSync(join(ROOT, 'config', 'karpenter-doctor.example.jsonc'), 'utf8'),
    'example',
  );
  writeFileSync(join(dir, SETTINGS_FILE), serializeSettings(functionSettingsOf(config)));
}

/** CPU time of the require of `file`, and of the whole process after one batch, in a fresh Node process. */
function coldRun(file: string, event: unknown): { importMs: number; batchMs: number } {
  const script = `const c0 = process.cpuUsage(); const { handler } = require(${JSON.stringify(file)}); const c = process.cpuUsage(c0);
    handler(${JSON.stringify(event)}, { invokedFunctionArn: 'arn:aws:lambda:eu-west-1:111122223333:function:x', getRemainingTimeInMillis: () => 60000 })
      .then(() => { const f = process.cpuUsage(); process.stdout.write(JSON.stringify({ importMs: (c.user + c.system) / 1e3, batchMs: (f.user + f.system) / 1e3 })); });`;
  const env = { PATH: process.env.PATH, AWS_REGION: 'eu-west-1', POWERTOOLS_LOG_LEVEL: 'SILENT' };
  const names = {
    INCIDENT_TABLE_NAME: 'b',
    FINDINGS_TOPIC_ARN: 'arn:aws:sns:eu-west-1:1:b',
    POWERTOOLS_METRICS_DISABLED: 'true',
  };
  const child = spawnSync(process.execPath, ['-e', script], {
    encoding: 'utf8',
    env: { ...env, ...names, [ENV.settingsFile]: SETTINGS_FILE },
  });
  if (child.status !== 0) throw new Error(`cold start of ${file} failed: ${child.stderr.slice(0, 400)}`);
  return JSON.parse(child.stdout) as { importMs: number; batchMs: number };
}

const cold: Section = {
  name: 'cold',
  title: 'Cold start',
  method:
    'The analyzer bundled by esbuild with the options of lib/constructs/lambda-function.ts (index.js, the lazy modules it requires on first use beside it, node:crypto deferred where the stack defers it, the example configuration’s settings file) against an empty bundle, each in a fresh Node process (`node -e`), 20 rounds alternating which runs first, medians. CPU time (user + system) of the `require` of index.js, and of the whole process once the handler has run a first batch of 200 healthy lines (Node start-up included).',
  run() {
    const dir = mkdtempSync(join(tmpdir(), 'karpenter-doctor-bench-'));
    try {
      writeFileSync(join(dir, 'empty.ts'), 'export const handler = async () => ({ outcome: "no-findings" });\n');
      buildSync({
        entryPoints: [join(dir, 'empty.ts')],
        bundle: true,
        platform: 'node',
        format: 'cjs',
        outfile: join(dir, 'empty.js'),
        logLevel: 'silent',
      });
      bundleAnalyzer(join(dir, 'analyzer'));
      const event = { awslogs: { data: payloadOf(healthy.slice(0, 200)) } };
      const files = [join(dir, 'empty.js'), join(dir, 'analyzer', 'index.js')];
      const runs = files.map(() => [] as Array<{ importMs: number; batchMs: number }>);
      for (let round = 0; round < 20; round++)
        for (const i of [round % 2, 1 - (round % 2)]) runs[i]!.push(coldRun(files[i]!, event));
      const [empty, analyzer] = runs.map((r) => [
        median(r.map((x) => x.importMs)),
        median(r.map((x) => x.batchMs)),
      ]) as number[][];
      const versus = (i: number, digits: number) =>
        `${ratio(analyzer![i]! / empty![i]!)} (${analyzer![i]!.toFixed(digits)} vs ${empty![i]!.toFixed(digits)} ms)`;
      report('cold import: analyzer vs empty bundle', versus(0, 1), '≤ 5×', analyzer![0]! / empty![0]! <= 5);
      report('cold start through a first batch: whole process vs empty', versus(1, 0));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};

const cli: Section = {
  name: 'cli',
  title: 'CLI',
  method:
    'The compiled CLI (`npm run build`), `analyze --format json` on a 1 GiB file of raw-mix lines (a block of 40,000 repeated), in a fresh process: wall time, CPU time and peak RSS (`process.resourceUsage()` at exit). Absolute figures: the budget is the user’s wait, so they move with the load of the machine.',
  run: async () => {
    const r = await cliGiB(Array.from({ length: 40_000 }, () => rawLine(RAW_FAILURES)).join('\n') + '\n');
    report('CLI analyze, 1 GiB: exit code, findings', `exit ${r.code}, ${r.findings} findings`, 'exit 0', r.code === 0);
    const time = `${r.wallS.toFixed(0)} s (${r.cpuS.toFixed(0)} s)`;
    report('CLI analyze, 1 GiB: wall time (CPU time)', time, '≤ 180 s', r.wallS <= 180);
    report('CLI analyze, 1 GiB: peak RSS', `${r.rssMiB.toFixed(0)} MiB`, '≤ 200 MiB', r.rssMiB <= 200);
  },
};

const matcher: Section = {
  name: 'matcher',
  title: 'Substring matcher',
  method:
    'The one fast path kept, lambdas/core/recognise/substring-matcher.ts (Aho–Corasick: one table lookup per character, whatever the number of fragments; each entry holds the row offset of the next state, complemented where a fragment ends, so a character costs one load and a sign test; states numbered breadth-first, so the shallow rows most characters visit lie together), against the simplest alternatives, in the same rounds (9): the prefilter (`test` of `prefilterFragments()`, case ignored) over every line of the raw mix, against one case-insensitive alternation RegExp and a loop of `includes` over the lower-cased line; the classifier (`findAll` of `fragments()`) over the record texts of the filtered stream, against a loop of `includes`; and the pipeline’s prefilter (`worthParsingOrPlacement`) over every message of the filtered stream, which keeps them all: the cost `testedWhileItPays` (lambdas/core/parse/assemble.ts) leaves out for 7 messages in 8. CPU time against the floor of the same deliveries.',
  run() {
    const lower = (list: readonly string[]) => [...new Set(list.map((f) => f.toLowerCase()))];
    const [prefilter, classifier] = [lower(prefilterFragments()), lower(fragments())];
    const [automaton, all] = [new SubstringMatcher(prefilter), new SubstringMatcher(classifier)];
    const alternation = new RegExp(prefilter.map((f) => f.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'), 'i');
    const some = (text: string, lowered = text.toLowerCase()) => prefilter.some((f) => lowered.includes(f));
    const every = (text: string, lowered = text.toLowerCase()) =>
      new Set(classifier.filter((f) => lowered.includes(f)));
    type Batch = { data: string; texts: string[] };
    const each = (fn: (text: string) => unknown) => (b: Batch) => b.texts.forEach((text) => fn(text));
    const measure = (batch: Batch[], fns: Array<(text: string) => unknown>) => {
      const [floorMs, ...ms] = race(batch, [(b) => floor(b.data), ...fns.map(each)], 9) as number[];
      return ms.map(
        (m) => `${ratio(m / floorMs!)} the floor${m === ms[0] ? '' : `, ${ratio(m / ms[0]!)} Aho–Corasick`}`,
      );
    };
    const raws = rawBatch().map((data) => ({ data, texts: messagesOf(data) }));
    const [ac, regex, includes] = measure(raws, [(t) => automaton.test(t), (t) => alternation.test(t), some]);
    report(`prefilter over the raw mix (${prefilter.length} fragments): Aho–Corasick`, ac!);
    report('prefilter: one alternation RegExp', regex!);
    report('prefilter: a loop of includes', includes!);
    const texts = (data: string) => messagesOf(data).flatMap((m) => parseMessage(m, {})?.text ?? []);
    const [acAll, includesAll] = measure(
      filteredBatch().map((data) => ({ data, texts: texts(data) })),
      [(t) => all.findAll(t), every],
    );
    report(`classifier over the filtered stream (${classifier.length} fragments): Aho–Corasick`, acAll!);
    report('classifier: a loop of includes', includesAll!);
    const filteredMessages = filteredBatch().map((data) => ({ data, texts: messagesOf(data) }));
    const [prefilterAll] = measure(filteredMessages, [worthParsingOrPlacement]);
    report('pipeline prefilter over every message of the filtered stream', prefilterAll!);
  },
};

const SECTIONS = [raw, filtered, cold, cli, matcher];

function markdown(started: string, loads: string[]): string {
  const table = (section: string) => [
    '| measure | result | goal |',
    '| --- | --- | --- |',
    ...rows.filter((r) => r.section === section).map((r) => `| ${r.measure} | ${r.result} | ${r.goal} |`),
  ];
  return [
    '# Benchmarks',
    '',
    'Written by `npm run bench` (scripts/bench.ts and scripts/bench-cli.ts, bundled by esbuild and run as the',
    `bundle, as Lambda runs the analyzer); \`npm run bench -- <section>…\` (${SECTIONS.map((s) => s.name).join(', ')})`,
    'runs sections in one process and leaves this file as it is; a full run runs each section in a fresh',
    'process, so that no figure depends on the sections before it, and each throughput section in three,',
    'reporting the median one. Throughput and cold start are ratios to a baseline',
    'measured in the same run, because absolute times on a shared machine are noise. The floor is the',
    'least any analyzer does with a delivery: gunzip + one JSON.parse of the subscription envelope (not of',
    'each message). A goal is a budget the plain pipeline must keep: ✓ met in this run, ✗ not.',
    'AWS calls per delivery and notices per incident are bounds, so tests assert them rather than the',
    'bench: test/handlers/storm.test.ts and test/handlers/analyzer.test.ts.',
    '',
    `Run of ${started} on ${cpus().length} × ${cpus()[0]?.model ?? 'CPU'}, Node ${process.version}; load average ${loads[0]} at the start, ${loads[1]} at the end.`,
    '',
    ...SECTIONS.flatMap((s) => [`## ${s.title}`, '', s.method, '', ...table(s.name), '']),
  ].join('\n');
}

/**
 * The rows of one section measured in several processes: each ratio row is the median process's (its
 * goal marked by its own ratio), with the range of all; any other row is the first process's.
 */
function medianRows(runs: Row[][]): Row[] {
  return runs[0]!.map((first, index) => {
    if (first.ratio === undefined || runs.length === 1) return first;
    const all = runs.map((run) => run[index]!).sort((a, b) => a.ratio! - b.ratio!);
    const mid = all[Math.floor(all.length / 2)]!;
    const range = `${ratio(all[0]!.ratio!)}–${ratio(all.at(-1)!.ratio!)}`;
    return { ...mid, result: `${mid.result}, median of ${all.length} processes (${range})` };
  });
}

/** Where a section run by a full run writes its rows (an environment variable naming a file). */
const ROWS_OUT = 'KARPENTER_DOCTOR_BENCH_ROWS';

/**
 * A section of a full run in a fresh process, so that no figure depends on what ran before it (the
 * floor's JSON.parse is cheaper in a heap that an earlier section grew). Its lines are printed as it runs.
 */
function sectionInOwnProcess(name: string): Row[] {
  const dir = mkdtempSync(join(tmpdir(), 'karpenter-doctor-bench-rows-'));
  try {
    const out = join(dir, 'rows.json');
    const child = spawnSync(process.execPath, ['--expose-gc', __filename, name], {
      stdio: ['ignore', 'inherit', 'inherit'],
      env: { ...process.env, [ROWS_OUT]: out },
    });
    if (child.status !== 0) throw new Error(`bench section ${name} failed (exit ${child.status})`);
    return JSON.parse(readFileSync(out, 'utf8')) as Row[];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const only = process.argv.slice(2);
  const unknown = only.filter((name) => !SECTIONS.some((s) => s.name === name));
  if (unknown.length)
    throw new Error(`unknown section ${unknown.join(', ')}; known: ${SECTIONS.map((s) => s.name).join(', ')}`);
  const started = new Date().toISOString().slice(0, 16).replace('T', ' ') + ' UTC';
  const loads = [load()];
  if (process.env[ROWS_OUT]) {
    // One section of a full run, in a process of its own: its rows go back to the parent.
    for (const section of SECTIONS.filter((s) => only.includes(s.name))) {
      current = section.name;
      await section.run();
    }
    writeFileSync(process.env[ROWS_OUT]!, JSON.stringify(rows));
    return;
  }
  console.log(`karpenter-doctor bench, ${started}, load average ${loads[0]}\n`);
  for (const section of SECTIONS.filter((s) => only.length === 0 || only.includes(s.name))) {
    if (only.length === 0) {
      const runs = Array.from({ length: section.processes ?? 1 }, () => sectionInOwnProcess(section.name));
      const merged = medianRows(runs);
      if (runs.length > 1) merged.filter((row) => row.ratio !== undefined).forEach(print);
      rows.push(...merged);
      continue;
    }
    current = section.name;
    await section.run();
  }
  loads.push(load());
  console.log(`\nload average ${loads.join(' → ')}`);
  if (only.length > 0) return;
  writeFileSync(join(ROOT, 'docs', 'BENCHMARKS.md'), markdown(started, loads));
  console.log('wrote docs/BENCHMARKS.md');
}

if (require.main === module) void main();
