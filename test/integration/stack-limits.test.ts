import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { CONFIGS, synthesize, type SynthesizedStack } from './support/stack';

/**
 * What a deployment of each synthesized template needs beyond cfn-lint (templates.test.ts): cdk-nag's
 * AwsSolutions pack, as `cdk synth` ran it, reports nothing unsuppressed, and the template stays within
 * CloudFormation's quotas (AWS CloudFormation User Guide, "Understand CloudFormation quotas").
 */
const QUOTAS = { resources: 500, outputs: 200, parameters: 200, mappings: 200, templateBytes: 1_000_000 };

const configs = Object.entries(CONFIGS);

describe.each(configs)('the %s template', (_, config) => {
  const stack = synthesize(config);

  it('passes cdk-nag AwsSolutions: every rule compliant or suppressed with a reason', () => {
    const rows = nagReport(stack);
    expect(rows.length).toBeGreaterThan(0);
    // Read as cdk-nag writes it: each row says one of its three outcomes.
    expect(rows.filter((row) => !['Compliant', 'Non-Compliant', 'Suppressed'].includes(row.compliance))).toEqual([]);
    const unsuppressed = rows.filter((row) => row.compliance === 'Non-Compliant');
    expect(unsuppressed.map((row) => `${row.rule} ${row.resource}`)).toEqual([]);
    const unexplained = rows.filter((row) => row.compliance === 'Suppressed' && row.reason.trim().length < 20);
    expect(unexplained.map((row) => `${row.rule} ${row.resource}: ${row.reason}`)).toEqual([]);
  });

  it("is within CloudFormation's quotas for one stack", () => {
    const { template } = stack;
    const count = (section: string) => Object.keys((template[section] as object | undefined) ?? {}).length;
    expect({
      resources: count('Resources') <= QUOTAS.resources,
      outputs: count('Outputs') <= QUOTAS.outputs,
      parameters: count('Parameters') <= QUOTAS.parameters,
      mappings: count('Mappings') <= QUOTAS.mappings,
      templateBytes: statSync(stack.templatePath).size <= QUOTAS.templateBytes,
    }).toEqual({ resources: true, outputs: true, parameters: true, mappings: true, templateBytes: true });
  });
});

describe('the polled template', () => {
  const stack = synthesize(CONFIGS.polled);
  const resources = Object.values(stack.template.Resources);
  const ofType = (type: string) => resources.filter((r) => r.Type === type).map((r) => r.Properties!);

  it('polls each cluster with a view-only access entry for its own poller role', () => {
    expect(
      ofType('AWS::EKS::AccessEntry').map((entry) => [
        entry.ClusterName,
        (entry.AccessPolicies as Array<{ PolicyArn: unknown }>).map((p) => JSON.stringify(p.PolicyArn)),
      ]),
    ).toEqual([
      ['prod', [expect.stringContaining('cluster-access-policy/AmazonEKSViewPolicy')]],
      ['internal', [expect.stringContaining('cluster-access-policy/AmazonEKSViewPolicy')]],
    ]);
  });

  it('runs the poller of the private endpoint in its VPC, and the public one outside any', () => {
    const pollers = resources.filter(
      (r) => r.Type === 'AWS::Lambda::Function' && /\/Poller\w+\/Function\//.test(String(r.Metadata?.['aws:cdk:path'])),
    );
    expect(
      pollers.map((fn) => [String(fn.Metadata!['aws:cdk:path']).split('/')[1], fn.Properties!.VpcConfig ?? null]),
    ).toEqual([
      [expect.stringMatching(/^Pollerprod/), null],
      [
        expect.stringMatching(/^Pollerinternal/),
        {
          SubnetIds: ['subnet-0a1b2c3d4e5f60718', 'subnet-0b2c3d4e5f6071829'],
          SecurityGroupIds: ['sg-0123456789abcdef0'],
        },
      ],
    ]);
    // Bundled as `cdk synth` bundles them: each poller has its asset, not the unbundled test mode.
    for (const fn of pollers) expect(String(fn.Metadata!['aws:asset:path'])).toMatch(/^asset\.[0-9a-f]{64}$/);
  });
});

interface NagRow {
  rule: string;
  resource: string;
  compliance: string;
  reason: string;
}

/** cdk-nag's CSV report of the stack (one quoted row per rule and resource), as `cdk synth` wrote it. */
function nagReport(stack: SynthesizedStack): NagRow[] {
  const text = readFileSync(join(stack.outDir, `AwsSolutions--${stack.stackName}-NagReport.csv`), 'utf8');
  return text
    .split('\n')
    .slice(1)
    .filter((line) => line.trim() !== '')
    .map((line) => {
      const [rule = '', resource = '', compliance = '', reason = ''] = [...line.matchAll(/"((?:[^"]|"")*)"/g)].map(
        (m) => m[1]!.replaceAll('""', '"'),
      );
      return { rule, resource, compliance, reason };
    });
}
