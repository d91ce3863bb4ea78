import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseConfig } from '../../contracts/config';
import { functionSettingsOf, serializeSettings } from '../../contracts/settings';
import { clusterSettingsOf } from '../../lambdas/core/decode/cluster';
import { analyzerSettings, headroomSettings, remediatorSettings, SettingsError } from '../../lambdas/shared/settings';

const base = { INCIDENT_TABLE_NAME: 'incidents', FINDINGS_TOPIC_ARN: 'arn:aws:sns:eu-west-1:111122223333:findings' };

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'karpenter-doctor-settings-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let files = 0;
/** An environment whose settings file holds `text`. */
function withFile(text: string, env: Record<string, string> = base): NodeJS.ProcessEnv {
  const path = join(dir, `settings-${++files}.json`);
  writeFileSync(path, text);
  return { ...env, SETTINGS_FILE: path };
}

/** An environment with the settings the stack writes for `config`. */
const withConfig = (config: unknown, env?: Record<string, string>): NodeJS.ProcessEnv =>
  withFile(serializeSettings(functionSettingsOf(parseConfig(config, 'test'))), env);

const prod = { name: 'prod', logGroups: ['/aws/containerinsights/prod/application'], systemNodegroup: 'system' };

describe('function settings', () => {
  it('reads names from the environment and the rest from the settings file, defaults from the schema', () => {
    const settings = analyzerSettings(withConfig({ clusters: [prod], windows: { renotifyMinutes: 30 } }));

    expect(settings).toMatchObject({
      tableName: 'incidents',
      eventBusName: 'default',
      eventSource: 'io.karpenter-doctor',
      clusters: [{ name: 'prod', systemNodegroup: 'system' }],
      policy: {
        renotifyAfterMs: 30 * 60_000,
        suppressForMs: 5 * 60_000,
        resolveAfterMs: 60 * 60_000,
        retainForMs: 14 * 86_400_000,
      },
      enrichBudgetMs: 8_000,
      limits: { maxNoticesPerCluster: 5, maxIncidentsPerDelivery: 50 },
      sources: { namespaces: ['karpenter', 'kube-system'], containers: ['controller', 'karpenter'] },
    });
  });

  it('carries the account of a cluster, and defaults the discovery tag to the cluster name', () => {
    const settings = analyzerSettings(
      withConfig({
        clusters: [
          { ...prod, account: '444455556666' },
          { name: 'batch', logGroups: ['/eks/batch'], discoveryTag: { key: 'example.com/karpenter' } },
        ],
      }),
    );
    expect(settings.clusters[0]!.account).toBe('444455556666');
    expect(settings.clusters[1]!.account).toBeUndefined();
    expect(clusterSettingsOf(settings.clusters, 'prod')).toEqual({
      discoveryTagKey: 'karpenter.sh/discovery',
      discoveryTagValue: 'prod',
      systemNodegroup: 'system',
      systemAutoScalingGroup: undefined,
    });
    expect(clusterSettingsOf(settings.clusters, 'batch')).toMatchObject({
      discoveryTagKey: 'example.com/karpenter',
      discoveryTagValue: 'batch',
    });
  });

  it('reads the headroom thresholds and the remediation, all off by default', () => {
    const env = withConfig({ clusters: [prod], headroom: { minFreeIps: 10 } });
    expect(headroomSettings(env).thresholds).toEqual({ minFreeIps: 10, minFreePercent: 10, horizonHours: 6 });
    expect(remediatorSettings(env).remediation).toEqual({
      raiseSystemNodegroup: { mode: 'off', maxMinSize: 3 },
      requestQuotaIncrease: { mode: 'off', maxValue: 512, windowHours: 24 },
      planSubnetCapacity: { mode: 'off' },
    });
  });

  it('fills in the defaults of a settings file written without them (the zod schema reads it)', () => {
    const sections = { windows: {}, notifications: {}, karpenterSources: {}, headroom: {}, remediation: {} };
    const settings = analyzerSettings(withFile(JSON.stringify({ clusters: [prod], ...sections })));
    expect(settings.policy.renotifyAfterMs).toBe(360 * 60_000);
    expect(settings.sources.namespaces).toEqual(['karpenter', 'kube-system']);
  });

  it('reads the file once per environment', () => {
    const env = withConfig({ clusters: [prod] });
    expect(analyzerSettings(env).clusters).toHaveLength(1);
    rmSync(env.SETTINGS_FILE!);
    expect(analyzerSettings(env).clusters).toHaveLength(1);
  });

  const valid = serializeSettings(functionSettingsOf(parseConfig({ clusters: [prod] }, 'test')));
  it.each([
    [base, 'environment variable SETTINGS_FILE is not set; it is set by the stack'],
    [
      { ...base, SETTINGS_FILE: '/nonexistent/settings.json' },
      'Cannot read the settings file /nonexistent/settings.json',
    ],
  ])('refuses %j with a message naming what is missing', (env, message) => {
    expect(() => analyzerSettings(env)).toThrow(SettingsError);
    expect(() => analyzerSettings(env)).toThrow(message);
  });

  it.each([
    ['{"clusters": [', 'are not JSON'],
    [
      valid.replace('"name":"prod"', '"name":"-prod"'),
      'settings.clusters[0].name = "-prod": expected an EKS cluster name',
    ],
    [valid.replace('"mode":"off"}}', '"mode":"apply"}}'), 'settings.remediation.planSubnetCapacity.mode = "apply"'],
    [
      valid.replace('{"clusters"', '{"clustrs":[],"clusters"'),
      'settings: unknown key "clustrs"; expected one of clusters,',
    ],
  ])('refuses a settings file that the schema does not allow (%#)', (text, message) => {
    expect(() => analyzerSettings(withFile(text))).toThrow(SettingsError);
    expect(() => analyzerSettings(withFile(text))).toThrow(message);
  });

  it('refuses an environment without the table name', () => {
    expect(() => analyzerSettings(withFile(valid, { FINDINGS_TOPIC_ARN: 'x' }))).toThrow(
      'environment variable INCIDENT_TABLE_NAME is not set; it is set by the stack',
    );
  });

  it('refuses a bad enrichment budget', () => {
    expect(() => analyzerSettings(withFile(valid, { ...base, ENRICH_BUDGET_MS: 'soon' }))).toThrow(
      'environment variable ENRICH_BUDGET_MS is "soon"; expected a number >= 0',
    );
  });
});
