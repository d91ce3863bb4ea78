import { parseConfig } from '../../contracts/config';
import { configErrorOf as messageOf } from '../support/config-errors';
import { isCompleteSettings } from '../../contracts/settings-check';
import { functionSettingsOf, parseSettings, serializeSettings } from '../../contracts/settings';
import { clusterResolver } from '../../lambdas/core/decode/cluster';

const withCluster = (cluster: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  clusters: [{ name: 'auto', ...cluster }],
  ...extra,
});

describe('clusters[].autoModeLogs', () => {
  it.each([
    [{ autoModeLogs: {} }, { create: true }, []],
    [
      { autoModeLogs: { logGroupName: '/eks/auto/karpenter' } },
      { create: true, logGroupName: '/eks/auto/karpenter' },
      [],
    ],
    [{ logGroups: ['/eks/auto/by-hand'], autoModeLogs: { create: false } }, { create: false }, ['/eks/auto/by-hand']],
  ])('accepts %j', (cluster, autoModeLogs, logGroups) => {
    const parsed = parseConfig(withCluster(cluster), 'test.json').clusters[0]!;
    expect(parsed.autoModeLogs).toEqual(autoModeLogs);
    expect(parsed.logGroups).toEqual(logGroups);
  });

  it.each([
    [{}, /config\.clusters\[0\]\.logGroups = \[\]: expected at least one log group .*or autoModeLogs/],
    [{ autoModeLogs: { create: false } }, /clusters\[0\]\.logGroups = \[\]: expected at least one log group/],
    [
      { autoModeLogs: { logGroupName: 'has spaces' } },
      /autoModeLogs\.logGroupName.*expected a CloudWatch Logs log group name/s,
    ],
    [{ autoModeLogs: { logGroupName: '/eks/*' } }, /autoModeLogs\.logGroupName/],
    [{ autoModeLogs: { type: 'compute' } }, /autoModeLogs: unknown key "type"; expected one of create, logGroupName/],
    [
      { account: '222233334444', autoModeLogs: {} },
      /clusters\[0\]\.autoModeLogs.*in account 222233334444: the Auto Mode log delivery is created only for clusters of the deploying account/s,
    ],
  ])('refuses %j', (cluster, message) => {
    expect(messageOf(withCluster(cluster))).toMatch(message);
  });

  it("refuses a created group that is another cluster's group", () => {
    const message = messageOf({
      clusters: [
        { name: 'a', logGroups: ['/aws/vendedlogs/eks/b/auto-mode-compute'] },
        { name: 'b', autoModeLogs: {} },
      ],
    });
    expect(message).toMatch(
      /config\.clusters\[1\]\.autoModeLogs = .*expected each log group once; it is already subscribed for cluster a/,
    );
  });

  it("puts the created group among the cluster's log groups in the settings, so the analyzer maps it", () => {
    const config = parseConfig(
      {
        clusters: [
          { name: 'auto', autoModeLogs: {} },
          {
            name: 'mixed',
            logGroups: ['/aws/containerinsights/mixed/application'],
            autoModeLogs: { logGroupName: '/eks/mixed/karpenter' },
          },
        ],
      },
      'test.json',
    );
    const settings = functionSettingsOf(config);
    expect(settings.clusters.map((c) => c.logGroups)).toEqual([
      ['/aws/vendedlogs/eks/auto/auto-mode-compute'],
      ['/aws/containerinsights/mixed/application', '/eks/mixed/karpenter'],
    ]);
    // The functions' fast check and the zod schema both accept what the stack writes, unchanged.
    expect(isCompleteSettings(JSON.parse(serializeSettings(settings)))).toBe(true);
    expect(parseSettings(serializeSettings(settings), 'settings.json')).toEqual(settings);
    const resolve = clusterResolver(settings.clusters);
    expect(resolve({ logGroup: '/aws/vendedlogs/eks/auto/auto-mode-compute' })).toBe('auto');
    expect(resolve({ logGroup: '/eks/mixed/karpenter' })).toBe('mixed');
  });

  it('lets the settings check refuse a cluster with no log group at all', () => {
    const settings = functionSettingsOf(parseConfig(withCluster({ autoModeLogs: {} }), 'test.json'));
    const broken = {
      ...settings,
      clusters: [{ ...settings.clusters[0]!, logGroups: [], autoModeLogs: { create: false } }],
    };
    expect(isCompleteSettings(JSON.parse(JSON.stringify(broken)))).toBe(false);
  });
});
