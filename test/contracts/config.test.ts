import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stripJsonComments } from '../../bin/config-source';
import { ConfigError, parseConfig } from '../../contracts/config';
import { ROOT } from '../helpers';

const minimal = { clusters: [{ name: 'prod', logGroups: ['/aws/containerinsights/prod/application'] }] };
const messageOf = (document: unknown): string => {
  try {
    parseConfig(document, 'test.json');
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error('the config was accepted');
};

describe('parseConfig', () => {
  it('fills every default of a minimal config', () => {
    expect(parseConfig(minimal, 'test.json')).toEqual({
      clusters: minimal.clusters,
      alertEmails: [],
      windows: { suppressMinutes: 5, renotifyMinutes: 360, resolveMinutes: 60, retentionDays: 14 },
      remediation: {
        raiseSystemNodegroup: { mode: 'off', maxMinSize: 3 },
        requestQuotaIncrease: { mode: 'off', maxValue: 512, windowHours: 24 },
        planSubnetCapacity: { mode: 'off' },
      },
      notifications: { maxNoticesPerDelivery: 5, maxIncidentsPerDelivery: 50 },
      karpenterSources: { namespaces: ['karpenter', 'kube-system'], containers: ['controller', 'karpenter'] },
      headroom: { enabled: true, schedule: 'rate(5 minutes)', minFreeIps: 64, minFreePercent: 10, horizonHours: 6 },
      eventBusName: 'default',
      logRetentionDays: 30,
      reservedConcurrency: 5,
      retainTable: true,
    });
  });

  it('accepts the example config in the repository', () => {
    const text = readFileSync(join(ROOT, 'config', 'karpenter-doctor.example.jsonc'), 'utf8');
    expect(parseConfig(JSON.parse(stripJsonComments(text)), 'example').clusters.map((c) => c.name)).toEqual([
      'prod',
      'staging',
    ]);
  });

  it.each([
    [{ clusters: [] }, 'config.clusters = []: expected at least one cluster'],
    [
      { clusters: [{ name: 'Prod Cluster!', logGroups: ['/x'] }] },
      'config.clusters[0].name = "Prod Cluster!": expected an EKS cluster name',
    ],
    [
      { clusters: [{ name: 'prod', logGroups: [] }] },
      'config.clusters[0].logGroups = []: expected at least one log group',
    ],
    [
      { clusters: [{ name: 'prod', account: '1234', logGroups: ['/x'] }] },
      'config.clusters[0].account = "1234": expected an AWS account id of 12 digits',
    ],
    [
      { clusters: [{ name: 'prod', account: 123456789012, logGroups: ['/x'] }] },
      'config.clusters[0].account = 123456789012: expected an AWS account id of 12 digits',
    ],
    [{ ...minimal, alertEmails: ['oncall'] }, 'config.alertEmails[0] = "oncall": expected an email address'],
    [
      { ...minimal, windows: { supressMinutes: 3 } },
      'config.windows: unknown key "supressMinutes"; expected one of suppressMinutes, renotifyMinutes, resolveMinutes, retentionDays',
    ],
    [{ ...minimal, reservedConcurrency: 500 }, 'config.reservedConcurrency = 500: expected at most 100'],
    [
      { ...minimal, logRetentionDays: 10 },
      'config.logRetentionDays = 10: expected a CloudWatch Logs retention in days',
    ],
    [
      { ...minimal, remediation: { planSubnetCapacity: { mode: 'apply' } } },
      'config.remediation.planSubnetCapacity.mode = "apply": expected "off" or "dry-run"',
    ],
    [
      {
        clusters: [
          { name: 'a', logGroups: ['/x'] },
          { name: 'b', logGroups: ['/x'] },
        ],
      },
      'config.clusters[1].logGroups[0] = "/x": expected each log group once; it is already subscribed for cluster a',
    ],
    [
      { clusters: [{ name: 'a', logGroups: ['/aws/lambda/KarpenterDoctor-AnalyzerFunction1A2B'] }] },
      "not one of karpenter-doctor's own functions",
    ],
    [{ ...minimal, headroom: { schedule: 'every 5 minutes' } }, 'config.headroom.schedule = "every 5 minutes"'],
    [
      { ...minimal, remediation: { requestQuotaIncrease: { maxValue: 1e9 } } },
      'config.remediation.requestQuotaIncrease.maxValue = 1000000000: expected at most 10,000',
    ],
    [
      { ...minimal, notifications: { maxNoticesPerDelivery: 500 } },
      'config.notifications.maxNoticesPerDelivery = 500: expected at most 20',
    ],
    [{ ...minimal, karpenterSources: { namespaces: [] } }, 'config.karpenterSources.namespaces = []'],
    [
      { ...minimal, karpenterSources: { containers: ['Controller!'] } },
      'config.karpenterSources.containers[0] = "Controller!": expected a container name',
    ],
  ])('rejects %j naming the key, the value and what is allowed', (document, expected) => {
    expect(messageOf(document)).toContain(expected);
  });

  it('lists every problem at once', () => {
    const message = messageOf({ clusters: [{ name: '', logGroups: [] }], reservedConcurrency: -1 });
    expect(message.split('\n').filter((line) => line.startsWith('  config.'))).toHaveLength(3);
  });
});

describe('stripJsonComments', () => {
  it('removes line and block comments but not comment-like text inside strings', () => {
    const text = '{\n  // a comment\n  "url": "https://example.com/a//b", /* block\n comment */ "n": 1 // end\n}';
    expect(JSON.parse(stripJsonComments(text))).toEqual({ url: 'https://example.com/a//b', n: 1 });
  });

  it('removes trailing commas, as formatters write them', () => {
    expect(JSON.parse(stripJsonComments('{"a": [1, 2,],\n "b": "x,]",\n}'))).toEqual({ a: [1, 2], b: 'x,]' });
  });

  it('keeps escaped quotes inside strings', () => {
    expect(JSON.parse(stripJsonComments('{"a": "say \\"hi\\" // not a comment"}'))).toEqual({
      a: 'say "hi" // not a comment',
    });
  });
});

describe('cdk synth with a bad config', () => {
  it('fails with the validation message and no stack trace', () => {
    const dir = mkdtempSync(join(tmpdir(), 'karpenter-doctor-config-'));
    const file = join(dir, 'bad.json');
    writeFileSync(file, JSON.stringify({ clusters: [{ name: 'prod', logGroups: [] }], reservedConcurrency: 1000 }));

    const result = spawnSync(process.execPath, [join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs'), 'bin/app.ts'], {
      cwd: ROOT,
      env: { ...process.env, CDK_CONTEXT_JSON: JSON.stringify({ config: file }), CDK_OUTDIR: join(dir, 'out') },
      encoding: 'utf8',
    });

    rmSync(dir, { recursive: true, force: true });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(`Invalid karpenter-doctor configuration (${file}):`);
    expect(result.stderr).toContain('config.clusters[0].logGroups = []: expected at least one log group');
    expect(result.stderr).toContain('config.reservedConcurrency = 1000: expected at most 100');
    expect(result.stderr).not.toContain('    at ');
  });
});
