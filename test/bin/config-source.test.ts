import { App } from 'aws-cdk-lib';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { configFromContext } from '../../bin/config-source';
import { ROOT } from '../helpers';

/** The context `cdk` gives the app: cdk.json's, then the command line's `-c` on top. */
const cdkJsonContext = (JSON.parse(readFileSync(join(ROOT, 'cdk.json'), 'utf8')) as { context: object }).context;
const appWith = (commandLine: Record<string, string>) => new App({ context: { ...cdkJsonContext, ...commandLine } });
const INLINE = JSON.stringify({ clusters: [{ name: 'mine', logGroups: ['/eks/mine/karpenter'] }] });

describe('configFromContext (bin/)', () => {
  it('refuses to run without a configuration, saying how to give one', () => {
    expect(() => configFromContext(appWith({}))).toThrow(
      /No karpenter-doctor configuration: pass -c config=<file\.jsonc>.*-c karpenterDoctor='\{…\}'.*-c config=config\/karpenter-doctor\.example\.jsonc/s,
    );
  });

  it('honours an inline -c karpenterDoctor', () => {
    expect(configFromContext(appWith({ karpenterDoctor: INLINE })).clusters.map((c) => c.name)).toEqual(['mine']);
  });

  it('reads the file named by -c config', () => {
    const config = configFromContext(appWith({ config: 'config/karpenter-doctor.example.jsonc' }));
    expect(config.clusters.map((c) => c.name)).toEqual(['prod', 'staging']);
  });

  it('refuses both at once', () => {
    expect(() =>
      configFromContext(appWith({ config: 'config/karpenter-doctor.example.jsonc', karpenterDoctor: INLINE })),
    ).toThrow(/either -c config=<file> or -c karpenterDoctor=…, not both/);
  });
});
