import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseConfigFile } from '../../bin/config-source';
import { analyzeMessages } from '../../lambdas/core/analyze';
import { ROOT } from '../helpers';

/** Sections of a Fluent Bit classic-mode configuration file, keys lower-cased. */
function sections(text: string): Array<{ name: string; keys: Record<string, string> }> {
  const result: Array<{ name: string; keys: Record<string, string> }> = [];
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const header = /^\[([A-Z]+)\]$/.exec(line);
    if (header) result.push({ name: header[1]!, keys: {} });
    else {
      const [key, ...value] = line.split(/\s+/);
      result.at(-1)!.keys[key!.toLowerCase()] = value.join(' ');
    }
  }
  return result;
}

describe('docs/fluent-bit/kubernetes-events.conf', () => {
  const config = sections(readFileSync(join(ROOT, 'docs', 'fluent-bit', 'kubernetes-events.conf'), 'utf8'));
  const input = config.find((s) => s.name === 'INPUT')!;
  const output = config.find((s) => s.name === 'OUTPUT')!;

  it('reads Events with the kubernetes_events input and sends them to CloudWatch Logs', () => {
    expect(input.keys.name).toBe('kubernetes_events');
    expect(output.keys).toMatchObject({ name: 'cloudwatch_logs', match: input.keys.tag });
    expect(output.keys.log_group_name).toBeDefined();
  });

  it('writes to a log group that the example config subscribes', () => {
    const file = join(ROOT, 'config', 'karpenter-doctor.example.jsonc');
    const example = parseConfigFile(readFileSync(file, 'utf8'), file);
    expect(example.clusters.flatMap((c) => c.logGroups)).toContain(output.keys.log_group_name);
  });

  it('produces records the analyzer diagnoses: an Event object as the CloudWatch message', () => {
    // The record shape of Fluent Bit's kubernetes_events input (the Event object as the API serves it), for a
    // FailedScheduling of a Karpenter controller pod.
    const record = {
      metadata: {
        name: 'karpenter-5d7b9c8f4-x2x9k.17c0023',
        namespace: 'karpenter',
        creationTimestamp: '2026-11-28T02:30:00Z',
      },
      involvedObject: { kind: 'Pod', namespace: 'karpenter', name: 'karpenter-5d7b9c8f4-x2x9k', apiVersion: 'v1' },
      reason: 'FailedScheduling',
      message:
        '0/2 nodes are available: 2 Insufficient cpu. preemption: 0/2 nodes are available: 2 No preemption victims found for incoming pod.',
      source: { component: 'default-scheduler' },
      firstTimestamp: '2026-11-28T02:30:00Z',
      lastTimestamp: '2026-11-28T02:30:00Z',
      count: 1,
      type: 'Warning',
      reportingComponent: 'default-scheduler',
    };

    const { incidents } = analyzeMessages(
      [
        {
          message: JSON.stringify(record),
          origin: { logGroup: output.keys.log_group_name, logStream: output.keys.log_stream_name },
        },
      ],
      'prod',
    );

    expect(incidents.map((i) => i.rule)).toEqual(['karpenter-controller-unschedulable']);
  });
});
