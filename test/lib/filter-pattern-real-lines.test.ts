import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_FILTER_TERMS } from '../../lib/filter-pattern';
import { ROOT } from '../helpers';

/**
 * Every failure line of the released real lines (issue 29; a vendored copy of the failures of
 * `real-lines-train.jsonl`, with their source threads) passes the default subscription filter in the
 * envelope it reaches CloudWatch in: controller lines as Container Insights Fluent Bit records of the
 * `/application` group, events as the Event JSON an exporter writes, node-level lines as journald
 * records of the `/dataplane` group, status condition messages in Karpenter's transition event. The filter sees the event message as stored, JSON escaping and all.
 */
interface RealLine {
  id: string;
  format: 'json' | 'console' | 'k8s-event' | 'k8s-describe' | 'other';
  source: string;
  raw: string;
  note?: string;
}

const lines: RealLine[] = readFileSync(join(ROOT, 'test', 'fixtures', 'real-lines', 'train-failures.jsonl'), 'utf8')
  .split('\n')
  .filter(Boolean)
  .map((line) => JSON.parse(line) as RealLine);

/** CloudWatch Logs term semantics, read strictly: any term as a whole, case-sensitive word. */
function passesAsWords(message: string): boolean {
  const words = new Set(message.split(/[^A-Za-z0-9_]+/));
  return DEFAULT_FILTER_TERMS.some((term) => words.has(term));
}

/** The Container Insights record of a controller line (the optimized Fluent Bit config, Merge_Log On). */
function fluentBitRecord(line: string): string {
  let processed: unknown;
  try {
    processed = JSON.parse(line);
  } catch {
    processed = undefined;
  }
  return JSON.stringify({
    time: '2025-05-06T07:08:09.101234567Z',
    stream: 'stderr',
    _p: 'F',
    log: line,
    ...(typeof processed === 'object' && processed !== null ? { log_processed: processed } : {}),
    kubernetes: {
      pod_name: 'karpenter-6c9f8d7b5d-x7k2p',
      namespace_name: 'kube-system',
      pod_id: '3f2b1c0d-9e8f-4a7b-8c6d-5e4f3a2b1c0d',
      host: 'ip-10-1-2-3.us-east-2.compute.internal',
      container_name: 'controller',
      docker_id: '0f1e2d3c4b5a69788796a5b4c3d2e1f0',
      container_image: 'public.ecr.aws/karpenter/controller:1.0.6',
    },
  });
}

/**
 * The Event JSON of a `kubectl get events` or `kubectl describe` row: its type and reason as fields,
 * the rest of the row as its message (a row without a type is taken as Normal, the stricter case).
 */
function eventRecord(row: string): string {
  const parsed = /\b(Warning|Normal)\s+([A-Za-z]+)\s+(.*)$/.exec(row);
  return JSON.stringify({
    kind: 'Event',
    apiVersion: 'v1',
    metadata: { name: 'ip-10-1-2-3.us-east-2.compute.internal.181c2f3e4d5a6b7c', namespace: 'default' },
    involvedObject: { kind: 'Node', name: 'ip-10-1-2-3.us-east-2.compute.internal' },
    reason: parsed?.[2] ?? '',
    message: parsed?.[3] ?? row.trim(),
    type: parsed?.[1] ?? 'Normal',
    source: { component: 'karpenter' },
    count: 3,
  });
}

/** The `/dataplane` record of a journal line, as the Container Insights systemd input renames its fields. */
const dataplaneRecord = (line: string): string =>
  JSON.stringify({
    hostname: 'ip-10-1-2-3.us-east-2.compute.internal',
    systemd_unit: 'kubelet.service',
    message: line,
  });

/**
 * A status condition's message reaches CloudWatch only inside Karpenter's transition event (v1), as
 * `Status condition transitioned, Type: …, Status: … -> False, Reason: …, Message: …`.
 */
const conditionEvent = (message: string): string =>
  JSON.stringify({
    kind: 'Event',
    involvedObject: { kind: 'NodeClaim', name: 'default-x7k2p' },
    reason: 'Registered',
    message: `Status condition transitioned, Type: Registered, Status: Unknown -> False, Reason: NodeNotFound, Message: ${message.trim()}`,
    type: 'Normal',
    source: { component: 'karpenter' },
  });

const envelope = (line: RealLine): string => {
  if (/condition message/i.test(line.note ?? '')) return conditionEvent(line.raw);
  switch (line.format) {
    case 'json':
    case 'console':
      return fluentBitRecord(line.raw);
    case 'k8s-event':
    case 'k8s-describe':
      return eventRecord(line.raw);
    default:
      return dataplaneRecord(line.raw);
  }
};

describe('the default subscription filter on the released real failure lines', () => {
  it('holds the 197 failure lines of the released file', () => {
    expect(lines).toHaveLength(197);
  });

  it.each(lines.map((line) => [line.id, line.format, line] as const))(
    'passes %s (%s) in its envelope',
    (_id, _format, line) => {
      expect(passesAsWords(envelope(line))).toBe(true);
    },
  );

  it('reports how many pass as bare lines, outside any envelope', () => {
    const bare = lines.filter((line) => passesAsWords(line.raw)).length;
    // A measurement for the note; the envelopes above are what CloudWatch filters.
    process.stdout.write(`default filter pattern passes ${bare}/${lines.length} bare real failure lines\n`);
    expect(bare).toBeGreaterThan(lines.length / 2);
  });
});
