/**
 * npm run bench: throughput against the decode-only floor, cold start of the bundled analyzer
 * against an empty bundle, AWS calls per batch, notifications per incident, time to notify, and the
 * worst cases. Everything is measured in this one run and reported as ratios, because absolute times
 * on shared machines are noise. Prints a table and writes the same figures to docs/BENCHMARKS.md.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, platform, release, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { DescribeSubnetsCommand, DescribeVpcsCommand, EC2Client } from '@aws-sdk/client-ec2';
import { EventBridgeClient, PutEventsCommand, type PutEventsRequestEntry } from '@aws-sdk/client-eventbridge';
import { PublishCommand, SNSClient } from '@aws-sdk/client-sns';
import { mockClient } from 'aws-sdk-client-mock';
import { buildSync } from 'esbuild';
import { analyzeMessages } from '../lambdas/core/analyze';
import { classify } from '../lambdas/core/classify';
import { decodeSubscriptionData, encodeSubscriptionData } from '../lambdas/core/decode';
import { emptyInputStats, fromDocument } from '../lambdas/core/input';
import { parseMessage } from '../lambdas/core/parse';
import { analyzeSubscription, type AnalyzerDeps } from '../lambdas/handlers/analyzer';
import { testClients, testObservability, testSettings } from '../test/support/aws';
import { subnetExhaustionLine } from '../test/support/awslogs';
import { startDynalite } from '../test/support/dynalite';
import { cliBenchmarks } from './bench-cli';

const ROOT = join(__dirname, '..');
process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
process.env.POWERTOOLS_METRICS_DISABLED = 'true';
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

interface Row {
  measure: string;
  result: string;
  goal: string;
}
const rows: Row[] = [];
const report = (measure: string, result: string, goal = '') => {
  rows.push({ measure, result, goal });
  console.log(`${measure.padEnd(58)} ${result.padEnd(34)} ${goal}`);
};

// ---------------------------------------------------------------------------------------------
// Corpus: real shapes. Healthy and failing Karpenter v1 lines from examples/ and the shared samples,
// in three envelopes: zap JSON, zap console, and Fluent Bit records around CRI lines.

let seed = 7;
const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
const fails = (line: string) => {
  const record = parseMessage(line, { line: 1 });
  return record ? classify(record).length > 0 : false;
};

const exampleLines = readFileSync(join(ROOT, 'examples', 'karpenter-controller.log'), 'utf8')
  .split('\n')
  .filter(Boolean);
const samplesPath = existsSync(join(ROOT, '..', 'shared', 'reference', 'karpenter-samples.jsonl'))
  ? join(ROOT, '..', 'shared', 'reference', 'karpenter-samples.jsonl')
  : join(ROOT, 'test', 'fixtures', 'karpenter-samples.jsonl');
const samples = readFileSync(samplesPath, 'utf8')
  .split('\n')
  .filter(Boolean)
  .map((l) => JSON.parse(l) as { raw: string; expected_rules: string[] });
const healthy = exampleLines.filter((l) => !fails(l));
const failing = [...exampleLines.filter(fails), ...samples.filter((s) => s.expected_rules.length).map((s) => s.raw)];

function toConsole(line: string): string {
  try {
    const { time, level, logger, message, ...rest } = JSON.parse(line) as Record<string, unknown>;
    return `${String(time)}\t${String(level)}\t${String(logger)}\t${String(message)}\t${JSON.stringify(rest)}`;
  } catch {
    return line;
  }
}
const toFluentBit = (line: string) =>
  JSON.stringify({
    log: `2026-11-28T02:20:49.824913Z stdout F ${line}`,
    stream: 'stdout',
    kubernetes: {
      pod_name: 'karpenter-6d8f7b9c54-8zr7n',
      namespace_name: 'karpenter',
      container_name: 'controller',
      host: 'ip-10-0-12-4.us-west-2.compute.internal',
    },
  });
const envelope = (line: string) => pick([(l: string) => l, toConsole, toFluentBit])(line);

/** Subscription payloads of about `bytes` decoded each, `failureShare` of their lines failures. */
export function payloads(count: number, bytes: number, failureShare: number): string[] {
  return Array.from({ length: count }, (_, p) => {
    const logEvents: Array<{ id: string; timestamp: number; message: string }> = [];
    let size = 0;
    while (size < bytes) {
      const message = envelope(random() < failureShare ? pick(failing) : pick(healthy));
      logEvents.push({
        id: `3${String(p * 1e6 + logEvents.length).padStart(55, '0')}`,
        timestamp: 1_795_000_000_000 + logEvents.length,
        message,
      });
      size += message.length + 80;
    }
    return encodeSubscriptionData({
      messageType: 'DATA_MESSAGE',
      owner: '111122223333',
      logGroup: '/aws/containerinsights/prod/application',
      logStream: `karpenter-${p}`,
      subscriptionFilters: ['karpenter-doctor.prod'],
      logEvents,
    });
  });
}

/** gunzip + JSON.parse of the payload, and JSON.parse of each message that is JSON: the floor. */
export function floor(data: string): number {
  const document = JSON.parse(gunzipSync(Buffer.from(data, 'base64')).toString('utf8')) as {
    logEvents: Array<{ message: string }>;
  };
  let parsed = 0;
  for (const event of document.logEvents) {
    if (event.message.charCodeAt(0) === 123) {
      try {
        JSON.parse(event.message);
        parsed++;
      } catch {
        // not JSON after all
      }
    }
  }
  return parsed;
}

/** decode → parse → classify → aggregate, as the analyzer does before it touches AWS. */
export function pipeline(data: string): number {
  const decoded = decodeSubscriptionData(data);
  if (!decoded.ok) return 0;
  return analyzeMessages(fromDocument(decoded.document, emptyInputStats()), 'prod').incidents.length;
}

/** Median time of each function over `rounds` interleaved rounds over all inputs. */
function race(inputs: string[], functions: Array<(data: string) => number>, rounds: number): number[] {
  const times = functions.map(() => [] as number[]);
  for (let round = 0; round < rounds + 2; round++) {
    functions.forEach((fn, index) => {
      const start = process.hrtime.bigint();
      for (const input of inputs) fn(input);
      const elapsed = Number(process.hrtime.bigint() - start) / 1e6;
      if (round >= 2) times[index]!.push(elapsed);
    });
  }
  return times.map(median);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

const ratio = (value: number) => `${value.toFixed(2)}×`;

// ---------------------------------------------------------------------------------------------

async function main(): Promise<void> {
  console.log(`karpenter-doctor benchmarks: ${machine()}\n`);

  // Throughput
  const batch = payloads(8, 1_000_000, 0.03);
  const decodedBytes = batch.reduce((sum, data) => sum + gunzipSync(Buffer.from(data, 'base64')).length, 0);
  const [floorMs, pipelineMs] = race(batch, [floor, pipeline], 15);
  report(
    'throughput: decode→classify→aggregate vs decode-only floor',
    `${ratio(pipelineMs! / floorMs!)} (${((decodedBytes / 1e6 / pipelineMs!) * 1000).toFixed(1)} MB/s)`,
    'goal ≤ 1.5×, never > 2×',
  );

  // Memory: what one analysis keeps is its incidents, never its lines.
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc) {
    // Growth of the heap over one batch, from a collected heap: what the batch allocates (its peak, at most).
    let growth = 0;
    for (const data of batch) {
      gc();
      const start = process.memoryUsage().heapUsed;
      pipeline(data);
      growth = Math.max(growth, process.memoryUsage().heapUsed - start);
    }
    gc();
    const before = process.memoryUsage().heapUsed;
    for (let round = 0; round < 12; round++) for (const data of batch) pipeline(data);
    gc();
    const after = process.memoryUsage().heapUsed;
    report(
      'memory: heap after 96 × 1 MB batches vs before (after a GC)',
      ratio(after / before),
      'goal ≈ 1× (nothing kept per line)',
    );
    report(
      'memory: heap growth over one batch vs its decoded size',
      `${ratio(growth / (decodedBytes / batch.length))} (${(growth / 2 ** 20).toFixed(1)} MiB)`,
    );
  } else {
    report('memory', 'not measured: run with node --expose-gc (npm run bench does)');
  }

  // Worst cases
  const longLine = payloadOf(['{"level":"ERROR","message":"' + 'x'.repeat(256 * 1024) + '"}']);
  const tinyLines = payloadOf(Array.from({ length: 10_000 }, (_, i) => String.fromCharCode(97 + (i % 26))));
  const [longFloor, longPipeline] = race([longLine], [floor, pipeline], 15);
  report('worst case: one 256 KB line, vs floor', ratio(longPipeline! / longFloor!));
  const [tinyFloor, tinyPipeline] = race([tinyLines], [floor, pipeline], 15);
  report('worst case: 10,000 one-character lines, vs floor', ratio(tinyPipeline! / tinyFloor!));

  coldStart();
  sdkLoadedForHealthyBatch();
  await withAws(batch[0]!, floorMs! / batch.length);
  await cliBenchmarks(report, () => envelope(random() < 0.03 ? pick(failing) : pick(healthy)));

  writeFileSync(join(ROOT, 'docs', 'BENCHMARKS.md'), markdown());
  console.log('\nwrote docs/BENCHMARKS.md');
}

function payloadOf(messages: string[]): string {
  return encodeSubscriptionData({
    messageType: 'DATA_MESSAGE',
    owner: '111122223333',
    logGroup: '/aws/containerinsights/prod/application',
    logStream: 'worst-case',
    subscriptionFilters: [],
    logEvents: messages.map((message, i) => ({ id: String(i), timestamp: 1_795_000_000_000 + i, message })),
  });
}

/** Import time of the bundled analyzer against an empty bundle, in fresh processes. */
function coldStart(): void {
  const dir = mkdtempSync(join(tmpdir(), 'karpenter-doctor-bench-'));
  const empty = join(dir, 'empty.ts');
  writeFileSync(empty, 'export const handler = async () => ({});\n');
  const bundle = (entry: string, out: string) =>
    buildSync({
      entryPoints: [entry],
      bundle: true,
      platform: 'node',
      format: 'cjs',
      target: 'node20',
      minify: true,
      outfile: out,
      logLevel: 'silent',
    });
  const analyzerOut = join(dir, 'analyzer.js');
  const emptyOut = join(dir, 'empty.js');
  bundle(join(ROOT, 'lambdas', 'handlers', 'analyzer.ts'), analyzerOut);
  bundle(empty, emptyOut);
  const importMs = (file: string) => {
    const script = `const t=process.hrtime.bigint();require(${JSON.stringify(file)});process.stdout.write(String(Number(process.hrtime.bigint()-t)/1e6))`;
    const result = spawnSync(process.execPath, ['-e', script], {
      encoding: 'utf8',
      env: { ...process.env, NODE_OPTIONS: '' },
    });
    return Number(result.stdout);
  };
  const analyzer: number[] = [];
  const baseline: number[] = [];
  for (let i = 0; i < 11; i++) {
    analyzer.push(importMs(analyzerOut));
    baseline.push(importMs(emptyOut));
  }
  const size = readFileSync(analyzerOut).length;
  rmSync(dir, { recursive: true, force: true });
  report(
    'cold start: import of the bundled analyzer vs empty bundle',
    `${ratio(median(analyzer) / median(baseline))} (${median(analyzer).toFixed(1)} vs ${median(baseline).toFixed(2)} ms)`,
  );
  report('bundle size of the analyzer (minified, SDK included)', `${(size / 1024).toFixed(0)} KiB`);
}

/** Whether handling a batch without any finding loads an AWS SDK module, in a fresh process. */
function sdkLoadedForHealthyBatch(): void {
  const event = JSON.stringify({ awslogs: { data: payloadOf(healthy.slice(0, 200)) } });
  const script = `
    const { handler } = require(${JSON.stringify(join(ROOT, 'lambdas', 'handlers', 'analyzer.ts'))});
    const before = Object.keys(require.cache).filter((k) => k.includes('@aws-sdk')).length;
    handler(${event}, { invokedFunctionArn: 'arn:aws:lambda:eu-west-1:111122223333:function:x', getRemainingTimeInMillis: () => 60000 })
      .then((result) => {
        const after = Object.keys(require.cache).filter((k) => k.includes('@aws-sdk')).length;
        process.stdout.write(JSON.stringify({ outcome: result.outcome, before, after }));
      });`;
  const result = spawnSync(process.execPath, ['--import', 'tsx', '-e', script], {
    cwd: ROOT,
    encoding: 'utf8',
    env: {
      ...process.env,
      INCIDENT_TABLE_NAME: 'bench',
      FINDINGS_TOPIC_ARN: 'arn:aws:sns:eu-west-1:111122223333:bench',
      AWS_REGION: 'eu-west-1',
    },
  });
  const parsed = JSON.parse(result.stdout || '{}') as { outcome?: string; after?: number };
  report(
    'AWS SDK modules loaded by a batch without a finding',
    parsed.outcome === 'no-findings' ? `${parsed.after} modules` : `could not measure: ${result.stderr.slice(0, 80)}`,
    'goal 0',
  );
}

/** AWS calls per batch, notifications per incident and time to notify, with AWS mocked and DynamoDB local. */
async function withAws(oneMbPayload: string, floorPerPayloadMs: number): Promise<void> {
  const dynamo = await startDynalite();
  const ec2 = mockClient(EC2Client);
  const sns = mockClient(SNSClient);
  const events = mockClient(EventBridgeClient);
  const subnets = ['subnet-0a1b2c3d4e5f60718', 'subnet-0b2c3d4e5f6071829', 'subnet-0c3d4e5f607182930'];
  ec2.on(DescribeSubnetsCommand).resolves({
    Subnets: subnets.map((SubnetId, i) => ({
      SubnetId,
      AvailabilityZone: `eu-west-1${'abc'[i]}`,
      VpcId: 'vpc-1',
      CidrBlock: `10.0.${i}.0/24`,
      AvailableIpAddressCount: 0,
    })),
  });
  ec2.on(DescribeVpcsCommand).resolves({ Vpcs: [{ VpcId: 'vpc-1', CidrBlock: '10.0.0.0/16' }] });
  sns.on(PublishCommand).resolves({ MessageId: 'm' });
  events.on(PutEventsCommand).callsFake((input: { Entries: PutEventsRequestEntry[] }) => ({
    FailedEntryCount: 0,
    Entries: input.Entries.map(() => ({ EventId: 'e' })),
  }));
  let dynamoCalls = 0;
  dynamo.client.middlewareStack.add((next) => (args) => {
    dynamoCalls++;
    return next(args);
  });
  let clock = Date.parse('2026-11-28T03:00:00Z');
  const deps = async (): Promise<AnalyzerDeps> => ({
    settings: testSettings(await dynamo.createTable()),
    clients: testClients(dynamo.doc),
    ...testObservability('bench'),
    now: () => clock,
  });
  const context = {
    invokedFunctionArn: 'arn:aws:lambda:eu-west-1:111122223333:function:bench',
    getRemainingTimeInMillis: () => 60_000,
  };
  const line = (subnet: string, i: number) => subnetExhaustionLine(subnet, `default-${i}`);

  const calls: string[] = [];
  for (const count of [1, 100, 10_000]) {
    for (const mock of [ec2, sns, events]) mock.resetHistory();
    dynamoCalls = 0;
    const event = { awslogs: { data: payloadOf(Array.from({ length: count }, (_, i) => line(subnets[i % 3]!, i))) } };
    await analyzeSubscription(event, context, await deps());
    calls.push(
      `${count}: ${ec2.commandCalls(DescribeSubnetsCommand).length}/${ec2.calls().length}/${sns.calls().length + events.calls().length}/${dynamoCalls}`,
    );
  }
  report(
    'AWS calls per batch, 1 / 100 / 10,000 failing lines',
    calls.join('  '),
    'DescribeSubnets/EC2/publish/DynamoDB, constant',
  );

  const shared = await deps();
  for (const mock of [sns, events]) mock.resetHistory();
  for (let i = 0; i < 100; i++) {
    await analyzeSubscription({ awslogs: { data: payloadOf([line(subnets[0]!, i)]).replace(/^/, '') } }, context, {
      ...shared,
    });
    clock += 60_000;
  }
  report('notifications per incident over 100 invocations', `${sns.commandCalls(PublishCommand).length}`, 'goal 1');

  const times: number[] = [];
  for (let i = 0; i < 5; i++) {
    for (const mock of [sns, events]) mock.resetHistory();
    const fresh = await deps();
    const start = process.hrtime.bigint();
    await analyzeSubscription({ awslogs: { data: oneMbPayload } }, context, fresh);
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  report(
    'time to notify, 1 MB batch (handler, DynamoDB local)',
    `${ratio(median(times) / floorPerPayloadMs)} of its decode floor (${median(times).toFixed(0)} ms)`,
  );
  await dynamo.stop();
}

function machine(): string {
  const cpu = cpus();
  return `${cpu.length} × ${cpu[0]?.model ?? 'unknown CPU'}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, ${platform()} ${release()}, Node ${process.version}`;
}

function markdown(): string {
  return [
    '# Benchmarks',
    '',
    'Written by `npm run bench` (scripts/bench.ts). Every figure is measured in one run on one machine and,',
    'where it can be, given as a ratio to a baseline measured alongside it: absolute times on shared',
    'machines are noise.',
    '',
    `Machine: ${machine()}.`,
    '',
    '| measure | result | goal |',
    '| --- | --- | --- |',
    ...rows.map((r) => `| ${r.measure} | ${r.result} | ${r.goal} |`),
    '',
    '- Throughput: 8 subscription payloads of about 1 MB decoded each, 97 % healthy Karpenter v1 lines',
    '  and 3 % failures (from examples/ and the shared real samples), each line as zap JSON, zap console',
    '  or a Fluent Bit record around a CRI line. The floor is gunzip + JSON.parse of the same payloads',
    '  and JSON.parse of every message that is JSON.',
    '- Cold start: `require` of the esbuild bundle of lambdas/handlers/analyzer.ts against an empty',
    '  bundle, each in 11 fresh Node processes (medians).',
    '- CLI: the compiled CLI (npm run build) in fresh processes. Start-up is the median wall time of 15',
    '  interleaved runs of `karpenter-doctor --version` and of `node -e 0`. The logs are the throughput',
    '  corpus as lines (3 % failures); peak RSS is the process maximum (getrusage). grep gets the',
    "  prefilter's fragments in every raw form (`grep -F -i -c -f`, LC_ALL=C): the cost of only finding",
    '  the lines worth parsing, which analyze does before parsing, classifying and aggregating them.',
    '- AWS calls: each cell is DescribeSubnets / all EC2 / SNS + EventBridge / DynamoDB calls for one batch',
    '  whose lines all name the same three subnets.',
    '',
  ].join('\n');
}

if (require.main === module) void main();
