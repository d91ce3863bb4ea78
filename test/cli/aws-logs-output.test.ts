import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from '../support/cli';
import { ROOT } from '../helpers';

/**
 * What users paste when they fetch Karpenter's logs with the AWS CLI: the JSON of
 * `aws logs filter-log-events` and `aws logs get-log-events` (Container Insights records of the
 * controller, two pods), read event by event with each event's stream, id and time.
 */
const FIXTURES = join('test', 'fixtures', 'aws-logs');

interface Evidence {
  logStream?: string;
  eventId?: string;
  timestamp: string;
  line?: number;
}

async function analyze(argv: string[], stdin?: string) {
  const { code, stdout, stderr } = await runCli(['analyze', '--format', 'json', ...argv], {
    ...(stdin !== undefined ? { readStdin: () => stdin } : {}),
  });
  expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
  const report = JSON.parse(stdout) as {
    stats: { records: number };
    findings: Array<{ rule: string; evidence: Evidence[] }>;
  };
  return {
    records: report.stats.records,
    findings: report.findings.map((f) => ({ rule: f.rule, evidence: f.evidence[0]! })),
  };
}

describe('analyze on AWS CLI log output', () => {
  it('reads filter-log-events output as its events, each with its stream, id and time', async () => {
    const { records, findings } = await analyze([join(FIXTURES, 'filter-log-events.json')]);
    expect(records).toBe(5);
    expect(findings.map((f) => [f.rule, f.evidence.logStream?.slice(0, 25), f.evidence.timestamp])).toEqual([
      ['subnet-ip-exhaustion', 'karpenter-5d7c9f8b6-abcde', '2025-03-04T10:00:02.000Z'],
      ['webhook-tls-error', 'karpenter-5d7c9f8b6-fghij', '2025-03-04T10:00:03.000Z'],
      ['ec2-quota-exceeded', 'karpenter-5d7c9f8b6-abcde', '2025-03-04T10:00:04.000Z'],
    ]);
    expect(findings[0]!.evidence.eventId).toBe('3834000001741082402000000000000000000001');
  });

  it('reads get-log-events output (no stream names, forward and backward tokens) the same way', async () => {
    const { records, findings } = await analyze([join(FIXTURES, 'get-log-events.json')]);
    expect(records).toBe(4);
    expect(findings.map((f) => f.rule)).toEqual(['subnet-ip-exhaustion', 'ec2-quota-exceeded']);
  });

  it('reads the compact form (jq -c, or piped on one line) from standard input', async () => {
    const compact = JSON.stringify(JSON.parse(readFileSync(join(ROOT, FIXTURES, 'filter-log-events.json'), 'utf8')));
    const { records, findings } = await analyze(['-'], `${compact}\n`);
    expect(records).toBe(5);
    expect(findings.map((f) => f.rule)).toEqual(['subnet-ip-exhaustion', 'webhook-tls-error', 'ec2-quota-exceeded']);
  });

  it.each([
    ['events without a timestamp', { events: [{ message: 'no subnets found' }], nextToken: 'x' }],
    ['an events field that is not log events', { events: ['no subnets found'], searchedLogStreams: [] }],
    [
      'log events without any paging key or ingestion time',
      { events: [{ timestamp: 1, message: 'no subnets found' }] },
    ],
  ])('keeps a JSON record with %s as one record', async (_name, value) => {
    const { records } = await analyze(['-'], `${JSON.stringify(value)}\n`);
    expect(records).toBe(1);
  });
});
