import { analyzeMessages } from '../../../lambdas/core/analyze';
import { boundIncidents, memberOf } from '../../../lambdas/core/incidents/digest';
import { buildFinding } from '../../../lambdas/core/findings/finding';
import { CATALOG, severityOf } from '../../../lambdas/core/recognise/rules';
import { pricingOnly } from '../../../lambdas/core/recognise/rules/aws-api-unreachable';

/**
 * A Pricing API that cannot be reached is not an outage: Karpenter's pricing controller keeps the
 * on-demand prices built into its release (aws/karpenter-provider-aws@v1.14.1
 * pkg/providers/pricing/pricing.go) and launches go on; settings.isolatedVPC=true stops the calls.
 * The rule id stays aws-api-unreachable (public contract); its severity follows the evidence.
 */
const sdkTimeout = (operation: string, endpoint: string, wrap = 'updating pricing, ') =>
  JSON.stringify({
    level: 'ERROR',
    time: '2026-11-28T02:14:07.412Z',
    logger: 'controller',
    message: 'Reconciler error',
    commit: '6e7eab7',
    controller: 'providers.pricing',
    namespace: '',
    name: '',
    error: `${wrap}operation error ${operation}, exceeded maximum number of attempts, 3, https response error StatusCode: 0, RequestID: , request send failed, Post "https://${endpoint}/": dial tcp 52.94.231.18:443: i/o timeout`,
  });

const PRICING = sdkTimeout(
  'Pricing: GetProducts',
  'api.pricing.us-east-1.amazonaws.com',
  'updating pricing, retreiving on-demand pricing data, getting pricing data, ',
);
const SPOT_PRICES = sdkTimeout(
  'EC2: DescribeSpotPriceHistory',
  'ec2.eu-west-1.amazonaws.com',
  'updating pricing, retrieving spot pricing data, ',
);
const LAUNCH = sdkTimeout('EC2: CreateFleet', 'ec2.eu-west-1.amazonaws.com', 'creating instance, ');
const NODE_DECLINED =
  '{"level":"ERROR","time":"2026-11-28T02:15:00.000Z","logger":"controller","message":"could not schedule pod","error":"incompatible with nodepool \\"default\\", did not tolerate dedicated=gpu:NoSchedule","Pod":{"name":"web-7d9f8c6b5d-x2z4q","namespace":"shop"}}';

const findingsOf = (...lines: string[]) =>
  analyzeMessages(
    lines.map((message, i) => ({ message, origin: { line: i + 1 } })),
    'prod',
  ).incidents.map((incident) => buildFinding(incident, { region: 'eu-west-1' }));

describe('aws-api-unreachable: its severity follows what cannot be reached', () => {
  it('the Pricing API alone is LOW, with isolatedVPC through the chart as the fix', () => {
    const [finding] = findingsOf(PRICING);
    expect(finding).toMatchObject({ rule: 'aws-api-unreachable', severity: 'low' });
    expect(CATALOG['aws-api-unreachable'].severity).toBe('high');
    expect(finding!.diagnosis).toMatch(/built into its release/);
    expect(finding!.diagnosis).toContain('api.pricing.us-east-1.amazonaws.com');
    const commands = finding!.remediation.flatMap((step) => step.commands);
    expect(
      commands.some((c) => /^helm -n \S+ upgrade karpenter .*--reuse-values --set settings\.isolatedVPC=true$/.test(c)),
    ).toBe(true);
    expect(commands.join('\n')).not.toContain('create-vpc-endpoint');
  });

  it.each([
    ['EC2 (Spot prices come from DescribeSpotPriceHistory)', [SPOT_PRICES]],
    ['EC2 launches', [LAUNCH]],
    ['the Pricing API and EC2 in one incident', [PRICING, LAUNCH]],
  ])('%s stays HIGH, with the VPC endpoints first', (_what, lines) => {
    const findings = findingsOf(...lines).filter((f) => f.rule === 'aws-api-unreachable');
    expect(findings.map((f) => f.severity)).toEqual(['high']);
    expect(findings[0]!.remediation[0]!.title).toMatch(/VPC endpoints/);
  });

  it.each([
    [{ endpoints: ['api.pricing.us-east-1.amazonaws.com'] }, true],
    [{ endpoints: ['api.pricing.cn-northwest-1.amazonaws.com.cn'] }, true],
    [{ iamActions: ['pricing:GetProducts'] }, true],
    [{ endpoints: ['api.pricing.us-east-1.amazonaws.com'], iamActions: ['pricing:GetProducts'] }, true],
    [{ endpoints: ['api.pricing.us-east-1.amazonaws.com', 'sts.eu-west-1.amazonaws.com'] }, false],
    [{ endpoints: ['api.pricing.us-east-1.amazonaws.com'], iamActions: ['ec2:DescribeSpotPriceHistory'] }, false],
    [{}, false],
  ])('pricingOnly(%j) is %s', (entities, expected) => {
    expect(pricingOnly(entities)).toBe(expected);
    expect(severityOf({ rule: 'aws-api-unreachable', entities })).toBe(expected ? 'low' : 'high');
  });

  it('orders and digests by the incident severity: a LOW pricing incident comes after a MEDIUM one', () => {
    const { incidents } = analyzeMessages(
      [PRICING, PRICING, PRICING, NODE_DECLINED].map((message, i) => ({ message, origin: { line: i + 1 } })),
      'prod',
    );
    expect(incidents.map((i) => [i.rule, severityOf(i)])).toEqual([
      ['scheduling-untolerated-taint', CATALOG['scheduling-untolerated-taint'].severity],
      ['aws-api-unreachable', 'low'],
    ]);
    expect(boundIncidents(incidents, 1).tracked.map((i) => i.rule)).toEqual(['scheduling-untolerated-taint']);
    expect(memberOf(incidents[1]!, 'untracked').severity).toBe('low');
  });
});
