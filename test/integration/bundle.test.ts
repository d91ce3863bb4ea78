import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseSettings } from '../../contracts/settings';
import { awslogsEvent } from '../support/awslogs';
import { CONFIGS, synthesize } from './support/stack';

/**
 * The analyzer as `cdk synth` bundles it: a cold start loads index.js alone; the AWS half (and the
 * SDK) is a file of its own beside it, loaded on the first batch with an incident.
 */
describe('the bundled analyzer', () => {
  const stack = synthesize(CONFIGS.example);
  const analyzer = stack.template.Resources[stack.logicalIdAt('Analyzer/Function')]!;
  const dir = join(stack.outDir, String(analyzer.Metadata!['aws:asset:path']));
  const variables = (analyzer.Properties as { Environment: { Variables: unknown } }).Environment.Variables as {
    SETTINGS_FILE: string;
  };

  it('keeps the AWS SDK out of the file a cold start loads, and bundles the AWS half beside it', () => {
    expect(readFileSync(join(dir, 'index.js'), 'utf8')).not.toContain('@aws-sdk/');
    expect(readFileSync(join(dir, 'index.js'), 'utf8')).toContain('require("./analyzer-aws")');
    expect(readFileSync(join(dir, 'analyzer-aws.js'), 'utf8')).toContain('@aws-sdk/client-sns');
    // The SDK's ES build, which esbuild can trim to the commands used, not its one-file CommonJS build.
    expect(readFileSync(join(dir, 'analyzer-aws.js'), 'utf8')).toContain('node_modules/@aws-sdk/client-ec2/dist-es/');
    expect(readFileSync(join(dir, 'analyzer-aws.js'), 'utf8')).not.toContain(
      'node_modules/@aws-sdk/client-ec2/dist-cjs/',
    );
    expect(existsSync(join(dir, 'index.js.map'))).toBe(false);
  });

  it('keeps the classifier, its rules and vocabularies out of the file a cold start loads', () => {
    expect(readFileSync(join(dir, 'index.js'), 'utf8')).not.toContain('lambdas/core/recognise/rules/');
    expect(readFileSync(join(dir, 'index.js'), 'utf8')).not.toContain('lambdas/core/recognise/classify.ts');
    expect(readFileSync(join(dir, 'index.js'), 'utf8')).toContain('require("./analyzer-core")');
    expect(readFileSync(join(dir, 'analyzer-core.js'), 'utf8')).toContain('lambdas/core/recognise/classify.ts');
  });

  it('keeps zod out of the file a cold start loads: the settings schema is a file of its own', () => {
    expect(readFileSync(join(dir, 'index.js'), 'utf8')).not.toContain('node_modules/zod/');
    expect(readFileSync(join(dir, 'index.js'), 'utf8')).toContain('require("./settings-schema")');
    expect(readFileSync(join(dir, 'settings-schema.js'), 'utf8')).toContain('node_modules/zod/');
  });

  it('loads node:crypto on first call in index.js and the classifier half, with the AWS half as it comes', () => {
    for (const file of ['index.js', 'analyzer-core.js']) {
      expect(readFileSync(join(dir, file), 'utf8')).not.toContain('require("node:crypto")');
      expect(readFileSync(join(dir, file), 'utf8')).toContain('// lambdas/shared/deferred-crypto.ts');
    }
    expect(readFileSync(join(dir, 'analyzer-aws.js'), 'utf8')).toContain('require("node:crypto")');
  });

  it('bundles the settings beside index.js, where the environment points', () => {
    expect(variables.SETTINGS_FILE).toBe('settings.json');
    const settings = parseSettings(readFileSync(join(dir, variables.SETTINGS_FILE), 'utf8'), 'bundle');
    expect(settings.clusters.map((c) => c.name)).toEqual(['prod', 'staging']);
  });

  it('handles a batch without an incident without loading the AWS half, zod or node:crypto', () => {
    const event = awslogsEvent(['{"level":"INFO","message":"discovered subnets","subnets":["subnet-1"]}'], {
      logGroup: '/aws/containerinsights/prod/application',
    });
    const script = `
      const { handler } = require(${JSON.stringify(join(dir, 'index.js'))});
      handler(${JSON.stringify(event)}, { invokedFunctionArn: 'arn:aws:lambda:us-east-1:111122223333:function:a', getRemainingTimeInMillis: () => 60000 })
        .then((result) => process.stdout.write(JSON.stringify({
          outcome: result.outcome,
          loaded: Object.keys(require.cache).filter((file) => /(analyzer-aws|settings-schema)\.js$/.test(file)).length,
          crypto: process.moduleLoadList.includes('NativeModule crypto'),
        })));`;
    // From stdin, not `-e`: Node 20 loads node:crypto before an `-e` script runs, as it does not for a file.
    const child = spawnSync(process.execPath, ['-'], {
      input: script,
      encoding: 'utf8',
      env: {
        PATH: process.env.PATH,
        INCIDENT_TABLE_NAME: 'table',
        FINDINGS_TOPIC_ARN: 'arn:aws:sns:us-east-1:111122223333:topic',
        AWS_REGION: 'us-east-1',
        POWERTOOLS_LOG_LEVEL: 'SILENT',
        POWERTOOLS_METRICS_DISABLED: 'true',
        // Relative, as the stack sets it: read from beside index.js.
        SETTINGS_FILE: variables.SETTINGS_FILE,
      },
    });
    expect(JSON.parse(child.stdout)).toEqual({ outcome: 'no-findings', loaded: 0, crypto: false });
  });
});
