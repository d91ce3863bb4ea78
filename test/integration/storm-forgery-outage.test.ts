import {
  CreateClusterCommand,
  CreateNodegroupCommand,
  DescribeNodegroupCommand,
  type EKSClient,
} from '@aws-sdk/client-eks';
import { PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { CreateTopicCommand, DeleteTopicCommand, SubscribeCommand } from '@aws-sdk/client-sns';
import { GetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import type { DeliveredEvent } from './support/deploy';
import { ACCOUNT, REGION } from './support/moto';
import { CONFIGS, synthesize } from './support/stack';
import { useDeployment } from './support/use-deployment';
import { delivery, Network } from './support/world';
import { FORGERIES } from '../support/forgery';
import { untoleratedTaintEvent } from '../support/kube-events';

/**
 * Issue 12 on the wire: the bundled functions of a real `cdk synth` of the maximal configuration
 * (remediation in apply mode) against the emulator, under a storm, forged events and an SNS outage.
 */
describe('under storms, forgery and outages', () => {
  const stack = synthesize(CONFIGS.maximal);
  const events = '/eks/prod/kubernetes-events';
  const env = useDeployment(stack);

  const findingTopicArn = (): string => env.aws.physicalIds.get(stack.logicalIdAt('Findings/Topic'))!;

  it('sends at most 10 notices for 300 failing workloads, and the digest accounts for every workload', async () => {
    const lines = Array.from({ length: 300 }, (_, i) => untoleratedTaintEvent(i, `team-${i % 60}`));

    const invocation = await env.aws.fn('Analyzer').invoke(delivery(env.aws, events, lines, { owner: ACCOUNT }));

    expect(invocation).toMatchObject({ ok: true });
    const notices = await env.aws.notices.take();
    expect(notices.length).toBeLessThanOrEqual(10);
    const digests = notices.filter((n) => n.document?.kind === 'digest');
    const findings = notices.filter((n) => n.document?.kind !== 'digest');
    expect(digests).toHaveLength(1);
    expect(digests[0]!.attributes).toMatchObject({ rule: 'digest', cluster: 'prod', status: 'digest' });
    const told = findings.reduce((sum, n) => sum + workloadsOf(n.document!), 0);
    const byRule = digests[0]!.document!.byRule as Array<{ workloads: number }>;
    expect(told + byRule.reduce((sum, r) => sum + r.workloads, 0)).toBe(300);
  });

  describe('the remediator', () => {
    let eks: EKSClient;
    beforeEach(async () => {
      eks = env.aws.clients.eks;
      const network = await Network.create(env.aws.clients.ec2);
      const subnet = await network.subnet('10.0.1.0/24', `${REGION}a`, {});
      const role = `arn:aws:iam::${ACCOUNT}:role/eks`;
      await eks.send(
        new CreateClusterCommand({ name: 'prod', roleArn: role, resourcesVpcConfig: { subnetIds: [subnet] } }),
      );
      for (const name of ['system', 'gpu-workers']) {
        await eks.send(
          new CreateNodegroupCommand({
            clusterName: 'prod',
            nodegroupName: name,
            nodeRole: role,
            subnets: [subnet],
            scalingConfig: { minSize: 1, desiredSize: 1, maxSize: 3 },
            tags: { 'karpenter-doctor/remediate': 'true' },
          }),
        );
      }
    });

    const scalingOf = async (name: string) =>
      (await eks.send(new DescribeNodegroupCommand({ clusterName: 'prod', nodegroupName: name }))).nodegroup!
        .scalingConfig;

    /** The Finding event the remediation rule delivers for a Karpenter pod that cannot be scheduled. */
    async function genuineFinding(): Promise<DeliveredEvent> {
      const line = JSON.stringify({
        kind: 'Event',
        type: 'Warning',
        reason: 'FailedScheduling',
        message: "0/2 nodes are available: 2 node(s) didn't match Pod's node affinity/selector.",
        involvedObject: { kind: 'Pod', namespace: 'kube-system', name: 'karpenter-6d8f7b9c54-q2w4x' },
      });
      expect(await env.aws.fn('Analyzer').invoke(delivery(env.aws, events, [line], { owner: ACCOUNT }))).toMatchObject({
        ok: true,
      });
      const delivered = await env.aws.ruleTarget('Remediation/Rule').take();
      expect(delivered).toHaveLength(1);
      return delivered[0]!;
    }

    it('raises the configured system node group on a genuine finding', async () => {
      const event = await genuineFinding();

      const invocation = await env.aws.fn('Remediation').invoke(event);

      expect(invocation).toMatchObject({ ok: true, result: { outcome: 'done' } });
      expect(await scalingOf('system')).toMatchObject({ minSize: 2, desiredSize: 2, maxSize: 3 });
      expect(await scalingOf('gpu-workers')).toMatchObject({ minSize: 1, desiredSize: 1 });
    });

    // Issue 32: a workload pod of the shared application group printing Karpenter's trigger lines.
    it.each(FORGERIES)('changes nothing on %s forged by shop/app in %s', async (_kind, _shape, line) => {
      const application = '/aws/containerinsights/prod/application';

      const invocation = await env.aws
        .fn('Analyzer')
        .invoke(delivery(env.aws, application, [line], { owner: ACCOUNT }));

      expect(invocation).toMatchObject({ ok: true, result: { outcome: 'no-findings', foreign: 1 } });
      for (const event of await env.aws.ruleTarget('Remediation/Rule').take()) {
        await env.aws.fn('Remediation').invoke(event);
      }
      expect(await scalingOf('system')).toMatchObject({ minSize: 1, desiredSize: 1 });
      expect(await env.aws.notices.take()).toEqual([]);
    });

    it.each([
      [
        'an invented finding id',
        (e: DeliveredEvent) => ({ ...e, detail: { ...e.detail, findingId: 'ab'.repeat(12) } }),
      ],
      ['another account', (e: DeliveredEvent) => ({ ...e, account: '999999999999' })],
      [
        'an unknown quota code',
        (e: DeliveredEvent) => ({
          ...e,
          detail: {
            ...e.detail,
            findingId: 'cd'.repeat(12),
            rule: 'ec2-quota-exceeded',
            context: { quotas: [{ quotaCode: 'L-0263D0A3' }], enrichmentErrors: [] },
          },
        }),
      ],
    ])('changes nothing and reports a forged event naming %s as refused', async (_name, forge) => {
      const genuine = await genuineFinding();
      const forged = forge({
        ...genuine,
        detail: {
          ...genuine.detail,
          context: { nodegroups: [{ name: 'gpu-workers', kind: 'managed', remediationOptIn: true }] },
        },
      });

      const invocation = await env.aws.fn('Remediation').invoke(forged);

      expect(invocation).toMatchObject({ ok: true, result: { outcome: 'refused' } });
      expect(await scalingOf('system')).toMatchObject({ minSize: 1, desiredSize: 1 });
      expect(await scalingOf('gpu-workers')).toMatchObject({ minSize: 1, desiredSize: 1 });
      expect(await env.aws.notices.take()).toHaveLength(1); // the finding's own notice, no remediation report
    });

    it('refuses a forged event put on the bus from this account naming another node group', async () => {
      await env.aws.clients.events.send(
        new PutEventsCommand({
          Entries: [
            {
              EventBusName: env.aws.physicalIds.get(stack.logicalIdAt('EventBus'))!,
              Source: 'io.karpenter-doctor',
              DetailType: 'Karpenter Finding',
              Detail: JSON.stringify({
                findingId: 'ef'.repeat(12),
                status: 'open',
                rule: 'karpenter-controller-unschedulable',
                cluster: 'prod',
                remediation: [{ title: 'raise', action: 'raise-system-nodegroup', commands: [] }],
                context: { nodegroups: [{ name: 'gpu-workers', kind: 'managed', remediationOptIn: true }] },
              }),
            },
          ],
        }),
      );
      const [forged] = await env.aws.ruleTarget('Remediation/Rule').take();
      expect(forged).toBeDefined();

      const invocation = await env.aws.fn('Remediation').invoke(forged);

      expect(invocation).toMatchObject({
        ok: true,
        result: { outcome: 'refused', reason: 'no such incident in the incident table' },
      });
      expect(await scalingOf('gpu-workers')).toMatchObject({ minSize: 1, desiredSize: 1 });
    });
  });

  it('sends the open notice on the next delivery after SNS failed all three attempts', async () => {
    const topicArn = findingTopicArn();
    const analyzer = env.aws.fn('Analyzer');
    const t0 = Date.now();
    const first = delivery(env.aws, events, [untoleratedTaintEvent(1, 'dedicated')], { owner: ACCOUNT, startMs: t0 });
    await env.aws.clients.sns.send(new DeleteTopicCommand({ TopicArn: topicArn }));

    for (let attempt = 0; attempt < 3; attempt++) {
      expect(await analyzer.invoke(first, { at: t0 + attempt * 60_000 })).toMatchObject({
        ok: false,
        error: { name: 'PublishError' },
      });
    }

    const { TopicArn } = await env.aws.clients.sns.send(new CreateTopicCommand({ Name: topicArn.split(':').pop()! }));
    expect(TopicArn).toBe(topicArn);
    const queueUrl = env.aws.notices.queueUrl;
    const { Attributes } = await env.aws.clients.sqs.send(
      new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['QueueArn'] }),
    );
    await env.aws.clients.sns.send(
      new SubscribeCommand({ TopicArn, Protocol: 'sqs', Endpoint: Attributes!.QueueArn! }),
    );
    const later = t0 + 10 * 60_000;
    const next = delivery(env.aws, events, [untoleratedTaintEvent(2, 'dedicated')], {
      owner: ACCOUNT,
      startMs: later,
      firstId: 100,
    });

    expect(await analyzer.invoke(next, { at: later })).toMatchObject({ ok: true });

    const notices = await env.aws.notices.take();
    expect(notices).toHaveLength(1);
    expect(notices[0]!.document).toMatchObject({ status: 'open', rule: 'scheduling-untolerated-taint' });
    expect(notices[0]!.attributes).toMatchObject({ status: 'open' });
  });
});

/** Kubernetes' safe-encoding alphabet, as in ReplicaSet and pod name suffixes. */
const workloadsOf = (finding: Record<string, unknown>): number =>
  ((finding.entities as { workloads?: string[] } | undefined)?.workloads ?? []).length;
