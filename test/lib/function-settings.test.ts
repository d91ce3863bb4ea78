import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { App, Token } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { parseConfig } from '../../contracts/config';
import { SETTINGS_FILE } from '../../contracts/settings';
import { analyzerSettings, headroomSettings, remediatorSettings } from '../../lambdas/shared/settings';
import { KarpenterDoctorStack } from '../../lib/karpenter-doctor-stack';

/** Lambda's limit on a function's environment variables together. */
const MAX_ENVIRONMENT_BYTES = 4 * 1024;
/** What a reference (table name, topic ARN, bus name) can resolve to at most: ARNs stay well under this. */
const REFERENCE_BYTES = 512;

type LambdaFunction = {
  Properties: {
    Handler: string;
    Code: { S3Key: string };
    Description: string;
    Environment: { Variables: Record<string, unknown> };
  };
};

describe('settings of a deployment of 1,000 clusters', () => {
  // One real synth with bundling, as `cdk synth` does it: the settings file must be in each asset.
  // One subscription filter per log group passes CloudFormation's 500 resources at this size; the account-level
  // subscription (issue 16) removes them. The limit is lifted here: this test is about the settings.
  const app = new App({ context: { '@aws-cdk/core:stackResourceLimit': 0 } });
  const clusters = Array.from({ length: 1000 }, (_, i) => ({
    name: `cluster-${String(i).padStart(4, '0')}`,
    account: String(100000000000 + (i % 25)),
    logGroups: [`/aws/containerinsights/cluster-${i}/application`],
    systemNodegroup: 'system',
    discoveryTag: { key: 'karpenter.sh/discovery', value: `cluster-${i}` },
  }));
  const config = parseConfig(
    { clusters, remediation: { raiseSystemNodegroup: { mode: 'dry-run' } }, headroom: { minFreeIps: 128 } },
    'test',
  );
  const stack = new KarpenterDoctorStack(app, 'KarpenterDoctor', { config });
  const functions = Object.values(Template.fromStack(stack).findResources('AWS::Lambda::Function')) as LambdaFunction[];

  it('would not fit in the environment as the cluster list alone', () => {
    expect(Buffer.byteLength(JSON.stringify(config.clusters))).toBeGreaterThan(MAX_ENVIRONMENT_BYTES * 10);
  });

  it('keeps every function environment under 4 KB', () => {
    expect(functions.map((f) => f.Properties.Description.split(':')[0])).toEqual([
      'karpenter-doctor analyzer',
      'karpenter-doctor headroom',
      'karpenter-doctor remediator',
    ]);
    for (const fn of functions) {
      const variables = fn.Properties.Environment.Variables;
      const bytes = Object.entries(variables).reduce(
        (sum, [key, value]) =>
          sum +
          Buffer.byteLength(key) +
          (typeof value === 'string' && !Token.isUnresolved(value) ? Buffer.byteLength(value) : REFERENCE_BYTES),
        0,
      );
      expect(bytes).toBeLessThan(MAX_ENVIRONMENT_BYTES / 2);
      expect(variables.SETTINGS_FILE).toBe(SETTINGS_FILE);
    }
  });

  it('bundles the settings beside each function, and each function reads all of them', () => {
    for (const fn of functions) {
      const assetDir = join(app.outdir, `asset.${fn.Properties.Code.S3Key.replace(/\.zip$/, '')}`);
      expect(readdirSync(assetDir)).toEqual(expect.arrayContaining(['index.js', SETTINGS_FILE]));
      const env = {
        INCIDENT_TABLE_NAME: 'incidents',
        FINDINGS_TOPIC_ARN: 'arn:aws:sns:eu-west-1:111122223333:findings',
        SETTINGS_FILE: join(assetDir, SETTINGS_FILE),
      };
      const settings = analyzerSettings(env);
      expect(settings.clusters).toHaveLength(1000);
      expect(settings.clusters[999]).toMatchObject({ name: 'cluster-0999', account: '100000000024' });
      expect(headroomSettings(env).thresholds.minFreeIps).toBe(128);
      expect(remediatorSettings(env).remediation.raiseSystemNodegroup.mode).toBe('dry-run');
    }
  });
});
