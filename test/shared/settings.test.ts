import { analyzerSettings, headroomSettings, remediatorSettings, SettingsError } from '../../lambdas/shared/settings';

const base = { INCIDENT_TABLE_NAME: 'incidents', FINDINGS_TOPIC_ARN: 'arn:aws:sns:eu-west-1:111122223333:findings' };

describe('function settings from the environment', () => {
  it('reads what the stack sets and defaults the rest', () => {
    const settings = analyzerSettings({
      ...base,
      CLUSTERS: '[{"name":"prod","systemNodegroup":"system"}]',
      RENOTIFY_AFTER_MINUTES: '30',
    });

    expect(settings).toMatchObject({
      tableName: 'incidents',
      eventBusName: 'default',
      eventSource: 'io.karpenter-doctor',
      clusters: [{ name: 'prod', systemNodegroup: 'system' }],
      policy: { renotifyAfterMs: 30 * 60_000, suppressForMs: 5 * 60_000, resolveAfterMs: 60 * 60_000 },
      enrichBudgetMs: 8_000,
    });
  });

  it.each([
    [{ FINDINGS_TOPIC_ARN: 'x' }, 'environment variable INCIDENT_TABLE_NAME is not set; it is set by the stack'],
    [{ ...base, CLUSTERS: '{"name":"prod"}' }, 'environment variable CLUSTERS is not a JSON array'],
    [{ ...base, CLUSTERS: '[{"systemNodegroup":"x"}]' }, 'environment variable CLUSTERS[0] has no "name"'],
    [{ ...base, SUPPRESS_MINUTES: 'soon' }, 'environment variable SUPPRESS_MINUTES is "soon"; expected a number >= 0'],
  ])('refuses %j with a message naming the variable', (env, message) => {
    expect(() => analyzerSettings(env)).toThrow(new SettingsError(message));
  });

  it('reads the headroom thresholds and refuses a bad one', () => {
    expect(headroomSettings({ ...base, HEADROOM_THRESHOLDS: '{"minFreeIps":10}' }).thresholds).toEqual({
      minFreeIps: 10,
      minFreePercent: 10,
      horizonHours: 6,
    });
    expect(() => headroomSettings({ ...base, HEADROOM_THRESHOLDS: '{"horizonHours":-1}' })).toThrow(
      'HEADROOM_THRESHOLDS.horizonHours is -1; expected a number >= 0',
    );
  });

  it('turns every remediation off by default and never lets subnet capacity be applied', () => {
    expect(remediatorSettings(base).remediation.raiseSystemNodegroup.mode).toBe('off');
    const settings = remediatorSettings({ ...base, REMEDIATION: '{"planSubnetCapacity":{"mode":"apply"}}' });
    expect(settings.remediation.planSubnetCapacity.mode).toBe('dry-run');
    expect(() => remediatorSettings({ ...base, REMEDIATION: '{"requestQuotaIncrease":{"mode":"yes"}}' })).toThrow(
      'REMEDIATION.requestQuotaIncrease.mode is "yes"; expected off, dry-run or apply',
    );
  });
});
