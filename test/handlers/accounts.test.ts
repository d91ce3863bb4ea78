import { PublishCommand } from '@aws-sdk/client-sns';
import { IncidentStore } from '../../lambdas/adapters/incident-store';
import { findingIdOf } from '../../lambdas/core/incidents/aggregate';
import { analyzeSubscription, type AnalyzerDeps } from '../../lambdas/handlers/analyzer';
import { awslogsEvent, subnetExhaustionLine } from '../support/awslogs';
import { ACCOUNT, testSettings } from '../support/aws';
import { ANALYZER_CONTEXT, useHandlerHarness } from '../support/handler-harness';

const aws = useHandlerHarness();

const SPOKE = '444455556666';
const SUBNET = 'subnet-0a1b2c3d4e5f60718';
const context = ANALYZER_CONTEXT;

const deps = (): AnalyzerDeps =>
  aws.deps(
    {
      ...testSettings(aws.tableName),
      // A cluster prod in each account, with log groups of the same name: two clusters.
      clusters: [
        { name: 'prod', logGroups: ['/eks/prod/karpenter'] },
        { name: 'prod', account: SPOKE, logGroups: ['/eks/prod/karpenter'] },
      ],
    },
    () => Date.parse('2026-11-28T02:21:00Z'),
  );
describe('analyzer across accounts', () => {
  it('keeps the same failure of cluster prod in the home account and in another account as two incidents', async () => {
    const shared = deps();
    // The very same delivery (log group, stream, event ids) once from each account.
    const lines = [subnetExhaustionLine(SUBNET)];

    const home = await analyzeSubscription(awslogsEvent(lines, { owner: ACCOUNT }), context, shared);
    const spoke = await analyzeSubscription(awslogsEvent(lines, { owner: SPOKE }), context, shared);

    expect(home).toMatchObject({ outcome: 'processed', cluster: 'prod' });
    expect(home.account).toBeUndefined();
    expect(spoke).toMatchObject({ outcome: 'processed', cluster: 'prod', account: SPOKE });
    const findings = aws.published();
    expect(findings.map((f) => [f.cluster, f.account, f.status])).toEqual([
      ['prod', ACCOUNT, 'open'],
      ['prod', SPOKE, 'open'],
    ]);
    expect(findings[0]!.findingId).toBe(findingIdOf('prod', 'subnet-ip-exhaustion', undefined));
    expect(findings[1]!.findingId).toBe(findingIdOf('prod', 'subnet-ip-exhaustion', undefined, SPOKE));
    const store = new IncidentStore(aws.dynamo.doc, aws.tableName);
    expect((await store.get(findings[1]!.findingId))?.account).toBe(SPOKE);
    // The event of the spoke's finding names the spoke's cluster and subnet.
    const resources = aws.entries().map((e) => e.Resources ?? []);
    expect(resources[1]).toEqual(
      expect.arrayContaining([
        `arn:aws:eks:eu-west-1:${SPOKE}:cluster/prod`,
        `arn:aws:ec2:eu-west-1:${SPOKE}:subnet/${SUBNET}`,
      ]),
    );
    expect(resources[0]).toContain(`arn:aws:eks:eu-west-1:${ACCOUNT}:cluster/prod`);
  });

  it('still takes a re-delivery from the other account as a duplicate', async () => {
    const shared = deps();
    const event = awslogsEvent([subnetExhaustionLine(SUBNET)], { owner: SPOKE });

    await analyzeSubscription(event, context, shared);
    const again = await analyzeSubscription(event, context, shared);

    expect(again.outcome).toBe('duplicate');
    expect(aws.sns).toHaveReceivedCommandTimes(PublishCommand, 1);
  });
});
