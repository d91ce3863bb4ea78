import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import type { LogRecord } from '../../lambdas/core/model';
import { parseMessage } from '../../lambdas/core/parse/parse-message';
import { logRules } from '../../lambdas/core/recognise/rules';
import { loadSamples, ROOT } from '../helpers';

/**
 * Records as an outage produces them, for the property tests that hold a fast path to the slow one
 * it replaced: every line the project has (real samples, examples, the rules' own example lines),
 * with fresh ids and names, entity-like words dropped into the text, and each in one of the shapes it
 * arrives in (as written, zap console, a Fluent Bit record around a CRI line).
 */
export const PROJECT_LINES: readonly string[] = [
  ...loadSamples().samples.map((s) => s.raw),
  ...readFileSync(join(ROOT, 'examples', 'karpenter-controller.log'), 'utf8').split('\n'),
  ...readFileSync(join(ROOT, 'examples', 'kubernetes-events.jsonl'), 'utf8').split('\n'),
  ...logRules().flatMap((rule) => [
    ...rule.examples.fires.map((example) => example.line),
    ...rule.examples.silent.map((example) => example.line),
  ]),
].filter(Boolean);

const HEX = '0123456789abcdef';
const K8S = 'bcdfghjklmnpqrstvwxz2456789';

/** Words that name entities (or nearly do), dropped into texts. */
const ENTITY_WORDS = [
  'subnet-0a1b2c3d4e5f60718',
  'sg-0123456789abcdef0',
  'ami-0123456789abcdef0',
  'i-0123456789abcdef0',
  'vol-0123456789abcdef0',
  'pvc-0a1b2c3d-0a1b-0a1b-0a1b-0a1b2c3d4e5f',
  'm5.2xlarge',
  'c7g.metal',
  'us-west-2a',
  'eu-central-1b',
  'nodeclaim/default-x7k2p',
  'machine/default-x7k2p',
  'NodeClaim=default-q2w3e',
  'NodePool=batch',
  'nodepool "gpu"',
  'provisioner "default"',
  'external provisioner "ebs.csi.aws.com"',
  'nodepool/spot-pool',
  'EC2NodeClass=default',
  'ec2nodeclass "al2023"',
  'pod default/web-6f7c9d8b4-x2x2x',
  'pods/eviction',
  'pods/web-0',
  'pod="shop/cart-7d9f8c6b5d-k2m4p"',
  'Pod=ml/train-0',
  'not all pods would schedule, ns/api-5d8f7b9c54-8zr7n =>',
  'ip-10-0-1-2.eu-west-1.compute.internal',
  'VcpuLimitExceeded',
  'InsufficientInstanceCapacity',
  'InvalidParameterValue.Malformed',
  'UnauthorizedOperation',
  'perform: ec2:RunInstances',
  'operation error EC2: CreateFleet,',
  'taint {node.kubernetes.io/not-ready: }',
  'did not tolerate dedicated=gpu:NoSchedule;',
  'did not tolerate taint (taint=gpu:NoSchedule)',
  'label "topology.kubernetes.io/zone" does not have known values',
  'incompatible requirements, key karpenter.sh/capacity-type,',
  '3 Insufficient cpu.',
  '2 Insufficient nvidia.com/gpu,',
  'too many pods',
  'spot instances',
  'AttachVolume.Attach failed for volume "pvc-1"',
  'PersistentVolume=pv-1',
  'PDB "shop/cart" prevents pod evictions',
  'PodDisruptionBudget(s)=[shop/a shop/b]',
  'selector map[karpenter.sh/discovery:prod]',
  'https://ec2.us-west-2.amazonaws.com',
  'image "mcr.microsoft.com/windows:ltsc2022"',
  'capacity-type In [spot',
  'system:serviceaccount:karpenter:karpenter',
  'arn="arn:aws:iam::111122223333:role/KarpenterNodeRole"',
  'arn:aws:sts::111122223333:assumed-role/KarpenterController/1700000000',
];

const fresh = (alphabet: string, length: number) =>
  fc.string({ unit: fc.constantFrom(...alphabet), minLength: length, maxLength: length });

/** A line with its ids and generated name suffixes replaced by fresh ones. */
const renamed = (line: string): fc.Arbitrary<string> =>
  fc.tuple(fresh(HEX, 17), fresh(K8S, 5), fc.integer({ min: 1, max: 254 })).map(([hex, suffix, octet]) =>
    line
      .replace(/\b(subnet|sg|i|vol|ami)-[0-9a-f]{8,17}\b/g, (_, prefix: string) => `${prefix}-${hex}`)
      .replace(/\bip-10-\d{1,3}/g, `ip-10-${octet}`)
      .replace(
        /\b([a-z][a-z0-9]*(?:-[a-z0-9]+)*)-[bcdfghjklmnpqrstvwxz2456789]{5}\b/g,
        (_, stem: string) => `${stem}-${suffix}`,
      ),
  );

/** Entity-like words dropped into a JSON line's message or error, or after a text line. */
const withWords = (line: string): fc.Arbitrary<string> =>
  fc.array(fc.constantFrom(...ENTITY_WORDS), { maxLength: 4 }).map((words) => {
    if (words.length === 0) return line;
    const added = words.join(' ');
    try {
      const value = JSON.parse(line) as Record<string, unknown>;
      const key = typeof value.error === 'string' ? 'error' : typeof value.message === 'string' ? 'message' : undefined;
      if (key) return JSON.stringify({ ...value, [key]: `${value[key] as string}, ${added}` });
    } catch {
      // Not JSON: the words go at the end of the line.
    }
    return `${line} ${added}`;
  });

const toConsole = (line: string): string => {
  try {
    const { time, level, logger, message, ...rest } = JSON.parse(line) as Record<string, unknown>;
    return `${String(time)}\t${String(level)}\t${String(logger)}\t${String(message)}\t${JSON.stringify(rest)}`;
  } catch {
    return line;
  }
};
const toFluentBit = (pod: string, namespace: string) => (line: string) =>
  JSON.stringify({
    log: `2026-11-28T02:20:49.824913Z stdout F ${line}`,
    stream: 'stdout',
    kubernetes: { pod_name: pod, namespace_name: namespace, container_name: 'controller', host: 'ip-10-0-12-4' },
  });

/** One raw line as an outage's log group holds it, from one of `lines`. */
const lineFrom = (lines: fc.Arbitrary<string>): fc.Arbitrary<string> =>
  lines
    .chain(renamed)
    .chain(withWords)
    .chain((line) =>
      fc
        .constantFrom(
          (l: string) => l,
          toConsole,
          toFluentBit('karpenter-6d8f7b9c54-8zr7n', 'karpenter'),
          toFluentBit('web-6d8f7b9c54-8zr7n', 'shop'),
        )
        .map((envelope) => envelope(line)),
    );

/** One raw line as an outage's log group holds it. */
export const outageLine: fc.Arbitrary<string> = lineFrom(fc.constantFrom(...PROJECT_LINES));

/** Log streams, some of them a Karpenter container's (which name its namespace). */
const LOG_STREAMS = [
  undefined,
  'karpenter-0',
  'ip-10-0-1-2.ec2.internal-application.var.log.containers.karpenter-6d8f7b9c54-8zr7n_kube-system_controller-0123abcd',
  'fluent-bit-x2x2x_amazon-cloudwatch_fluent-bit-0123abcd',
];

/** A record parsed from a line, with a log stream and a CloudWatch time. */
const recordOf = (line: fc.Arbitrary<string>): fc.Arbitrary<LogRecord> =>
  fc
    .tuple(line, fc.constantFrom(...LOG_STREAMS), fc.integer({ min: 1_700_000_000_000, max: 1_800_000_000_000 }))
    .map(([raw, logStream, timestampMs]) => parseMessage(raw, { logGroup: '/aws/eks/prod', logStream, timestampMs }))
    .filter((record): record is LogRecord => record !== undefined);

/** The project's lines of Kubernetes Events that name themselves (uid or name): their copies count once. */
export const NAMED_EVENT_LINES: readonly string[] = PROJECT_LINES.filter((line) => {
  const event = parseMessage(line, { line: 1 })?.event;
  return event?.uid !== undefined || event?.name !== undefined;
});

/** A record parsed from an outage line. */
export const outageRecord: fc.Arbitrary<LogRecord> = recordOf(outageLine);

/**
 * A long run of records drawn from a few project lines, each with fresh names: the same few
 * incidents, hundreds of records each, as in a long outage (entity kinds fill up to their caps).
 */
export const longOutage = (
  minLength: number,
  maxLength: number,
  from: readonly string[] = PROJECT_LINES,
): fc.Arbitrary<LogRecord[]> =>
  fc
    .uniqueArray(fc.constantFrom(...from), { minLength: 1, maxLength: 4 })
    .chain((lines) => fc.array(recordOf(lineFrom(fc.constantFrom(...lines))), { minLength, maxLength }));
