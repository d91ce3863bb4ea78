import { subnetExhaustionLine } from '../support/awslogs';
import { denyingEc2Endpoint, type DenyingEndpoint } from './support/deny';
import { ACCOUNT, REGION } from './support/moto';
import { CONFIGS, synthesize } from './support/stack';
import { useDeployment } from './support/use-deployment';
import { delivery, Network, fromKarpenterPod } from './support/world';

/**
 * The analyzer's role may not describe subnets (a policy was narrowed, an SCP denies it): EC2 answers
 * 403 UnauthorizedOperation. The denial is injected on the wire — an EC2 endpoint in front of the
 * emulator that answers DescribeSubnets as EC2 answers a caller without the permission, given to the
 * bundled function as AWS_ENDPOINT_URL_EC2 — because moto does not enforce IAM, and because a
 * middleware inside the bundle could not be reached from the test without changing the bundle.
 */
describe('enrichment denied', () => {
  const stack = synthesize(CONFIGS.example);
  const env = useDeployment(stack, 'once');
  let deny: DenyingEndpoint;

  beforeAll(async () => {
    deny = await denyingEc2Endpoint(env.moto.endpoint, ['DescribeSubnets'], 'KarpenterDoctor-AnalyzerRole');
  });
  afterAll(async () => {
    await deny?.stop();
  });

  it('still sends the notice, and the notice says what could not be checked and why', async () => {
    const network = await Network.create(env.aws.clients.ec2);
    const dry = await network.subnet('10.0.1.0/28', `${REGION}a`, { 'karpenter.sh/discovery': 'prod' });
    await network.exhaust(dry);
    const analyzer = env.aws.fn('Analyzer', { AWS_ENDPOINT_URL_EC2: deny.endpoint });

    const invocation = await analyzer.invoke(
      delivery(env.aws, '/aws/containerinsights/prod/application', [fromKarpenterPod(subnetExhaustionLine(dry))], {
        owner: ACCOUNT,
      }),
    );

    expect(invocation).toMatchObject({ ok: true });
    expect(deny.denied.get('DescribeSubnets')).toBeGreaterThan(0);
    const notices = await env.aws.notices.take();
    expect(notices).toHaveLength(1);
    const finding = notices[0]!.document!;
    expect(finding).toMatchObject({ rule: 'subnet-ip-exhaustion', status: 'open', cluster: 'prod' });
    expect(finding.entities).toMatchObject({ subnets: [dry] });
    const gaps = (finding.context as { enrichmentErrors: Array<{ source: string; message: string }> }).enrichmentErrors;
    expect(gaps).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          source: 'ec2:DescribeSubnets',
          message: expect.stringContaining('UnauthorizedOperation'),
        }),
      ]),
    );
    // Nothing was read, so nothing is made up: no free-IP count for the subnet.
    const subnets = (finding.context as { subnets?: Array<{ subnetId: string }> }).subnets ?? [];
    expect(subnets.map((s) => s.subnetId)).not.toContain(dry);
    const events = (await env.aws.events.take()).filter((e) => e['detail-type'] === 'Karpenter Finding');
    expect(events).toHaveLength(1);
  });
});
