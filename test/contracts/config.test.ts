import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseConfigFile } from '../../bin/config-source';
import { parseConfig } from '../../contracts/config';
import { configErrorOf as messageOf, refusalOf } from '../support/config-errors';
import { ROOT } from '../helpers';

const minimal = { clusters: [{ name: 'prod', logGroups: ['/aws/containerinsights/prod/application'] }] };

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
      notifications: { maxNoticesPerDelivery: 5, maxNoticesPerHour: 12, maxIncidentsPerDelivery: 50 },
      karpenterSources: {
        namespaces: ['karpenter', 'kube-system'],
        containers: ['controller', 'karpenter'],
        sharedLogGroups: ['/aws/containerinsights/*/application'],
        eventLogGroups: ['*/kubernetes-events'],
        eventExporters: { namespaces: [], containers: [] },
      },
      headroom: { enabled: true, schedule: 'rate(5 minutes)', minFreeIps: 64, minFreePercent: 10, horizonHours: 6 },
      subscriptions: { mode: 'auto', accountPolicyFrom: 200, exclude: [] },
      eventBusName: 'default',
      logRetentionDays: 30,
      reservedConcurrency: 5,
      retainTable: true,
    });
  });

  it('accepts the example config in the repository', () => {
    const text = readFileSync(join(ROOT, 'config', 'karpenter-doctor.example.jsonc'), 'utf8');
    expect(parseConfigFile(text, 'example').clusters.map((c) => c.name)).toEqual(['prod', 'staging']);
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
      { ...minimal, remediation: { requestQuotaIncrease: { maxValue: 0.5 } } },
      'config.remediation.requestQuotaIncrease.maxValue = 0.5: expected a whole number: quotas are raised in whole units',
    ],
    [
      { ...minimal, karpenterSources: { sharedLogGroups: ['/aws/pods?'] } },
      'config.karpenterSources.sharedLogGroups[0] = "/aws/pods?": expected a CloudWatch Logs log group name, with * for any run of characters',
    ],
    [
      { ...minimal, karpenterSources: { containers: ['Controller!'] } },
      'config.karpenterSources.containers[0] = "Controller!": expected a container name',
    ],
    [
      { ...minimal, subscriptions: { mode: 'per-group' } },
      'config.subscriptions.mode = "per-group": expected "auto", "log-groups" or "account-policy"',
    ],
    [
      { clusters: [{ name: 'a', logGroups: ['/aws/containerinsights/a/*'] }], subscriptions: { mode: 'log-groups' } },
      'config.clusters[0].logGroups[0] = "/aws/containerinsights/a/*": expected a log group name: a pattern can only be subscribed by the account policy',
    ],
    [
      { clusters: [{ name: 'a', logGroups: ['/a/*/b'] }] },
      'config.clusters[0].logGroups[0] = "/a/*/b": expected a CloudWatch Logs log group name, or a name prefix ending in *',
    ],
    [
      {
        clusters: [{ name: 'a', logGroups: ['/a'], filterPattern: '?ERROR' }],
        subscriptions: { mode: 'account-policy' },
      },
      'config.clusters[0].filterPattern = "?ERROR": expected no filter pattern per cluster with subscriptions.mode "account-policy"',
    ],
    [
      { ...minimal, subscriptions: { mode: 'account-policy', filterPattern: '{ $.level = "error"' } },
      'config.subscriptions.filterPattern = "{ $.level = \\"error\\"": the account policy\'s filter pattern starts a JSON pattern with "{" but does not end with "}"',
    ],
  ])('rejects %j naming the key, the value and what is allowed', (document, expected) => {
    expect(messageOf(document)).toContain(expected);
  });

  it('accepts log group patterns with the account policy, and the same group name in two accounts', () => {
    const config = parseConfig(
      {
        clusters: [
          { name: 'a', logGroups: ['/aws/containerinsights/a/*'] },
          { name: 'b', account: '111122223333', logGroups: ['/aws/containerinsights/a/application'] },
          { name: 'b', account: '444455556666', logGroups: ['/aws/containerinsights/a/application'] },
        ],
        subscriptions: { mode: 'account-policy', exclude: ['/aws/lambda/noisy'] },
      },
      'test.json',
    );
    expect(config.subscriptions).toEqual({
      mode: 'account-policy',
      accountPolicyFrom: 200,
      exclude: ['/aws/lambda/noisy'],
    });
  });

  it('lists every problem at once', () => {
    const message = messageOf({ clusters: [{ name: '', logGroups: [] }], reservedConcurrency: -1 });
    expect(message.split('\n').filter((line) => line.startsWith('  config.'))).toHaveLength(3);
  });
});

describe('parseConfigFile (JSON with comments)', () => {
  const messageOfFile = (text: string): string => refusalOf(() => parseConfigFile(text, 'doctor.jsonc'));
  const cluster = '{"name": "prod", "logGroups": ["/eks/prod"]}';

  it('reads line and block comments but not comment-like text inside strings', () => {
    const text = `{\n  // a comment\n  "clusters": [${cluster}], /* block\n comment */ "$schema": "https://example.com/a//b" // end\n}`;
    expect(parseConfigFile(text, 'doctor.jsonc').$schema).toBe('https://example.com/a//b');
  });

  it('reads trailing commas, as formatters write them', () => {
    expect(parseConfigFile(`{"clusters": [${cluster},],\n "$schema": "x,]",\n}`, 'f').$schema).toBe('x,]');
  });

  it('reads a comment of any length between a trailing comma and the closing brace', () => {
    const long = `// ${'a long explanation, '.repeat(15)}`;
    expect(long.length).toBeGreaterThan(200);
    const text = `{\n  "clusters": [${cluster}],\n  "retainTable": false, ${long}\n}\n`;
    expect(parseConfigFile(text, 'doctor.jsonc').retainTable).toBe(false);
    const block = `{"clusters": [${cluster}], "retainTable": false, /* ${'x'.repeat(300)} */ }`;
    expect(parseConfigFile(block, 'doctor.jsonc').retainTable).toBe(false);
  });

  it('reports a syntax error by file, line and column', () => {
    const text = `{\n  "clusters": [${cluster}]\n  "retainTable": false\n}`;
    expect(messageOfFile(text)).toContain('doctor.jsonc:3:3: expected ","');
    expect(messageOfFile('{"clusters": [}')).toContain('doctor.jsonc:1:');
  });

  it('reports a schema problem by file, line and column, and by key', () => {
    const text = `{\n  "clusters": [\n    {"name": "prod", "logGroups": []}\n  ],\n  "reservedConcurrency": 500\n}`;
    const message = messageOfFile(text);
    expect(message).toContain('doctor.jsonc:3:35: config.clusters[0].logGroups = []: expected at least one log group');
    expect(message).toContain('doctor.jsonc:5:26: config.reservedConcurrency = 500: expected at most 100');
  });

  it('reports a missing key where its object is', () => {
    expect(messageOfFile('{\n  "clusters": [{"logGroups": ["/x"]}]\n}')).toContain(
      'doctor.jsonc:2:16: config.clusters[0].name = (missing)',
    );
  });
});

describe('cdk synth with a bad config', () => {
  it('fails with the validation message and no stack trace', () => {
    const dir = mkdtempSync(join(tmpdir(), 'karpenter-doctor-config-'));
    const file = join(dir, 'bad.jsonc');
    const clusters = [
      { name: 'prod', logGroups: [] },
      { name: 'batch', logGroups: ['/eks/batch'], filterPattern: '{ $.level = "error"' },
    ];
    writeFileSync(file, `// a bad config\n${JSON.stringify({ clusters, reservedConcurrency: 1000 }, null, 2)}\n`);

    const result = spawnSync(process.execPath, [join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs'), 'bin/app.ts'], {
      cwd: ROOT,
      env: { ...process.env, CDK_CONTEXT_JSON: JSON.stringify({ config: file }), CDK_OUTDIR: join(dir, 'out') },
      encoding: 'utf8',
    });

    rmSync(dir, { recursive: true, force: true });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(`Invalid karpenter-doctor configuration (${file}):`);
    expect(result.stderr).toContain(`${file}:6:20: config.clusters[0].logGroups = []: expected at least one log group`);
    expect(result.stderr).toContain(
      `${file}:13:24: config.clusters[1].filterPattern = "{ $.level = \\"error\\"": the filter pattern of cluster batch starts a JSON pattern with "{" but does not end with "}"`,
    );
    expect(result.stderr).toContain(`${file}:16:26: config.reservedConcurrency = 1000: expected at most 100`);
    expect(result.stderr).not.toContain('    at ');
  });
});
