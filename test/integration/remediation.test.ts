import type { DeliveredEvent, Notice } from './support/deploy';
import { REGION } from './support/moto';
import { CONFIGS, synthesize, type SynthesizedStack } from './support/stack';
import { useDeployment } from './support/use-deployment';
import { Cluster, delivery, Network } from './support/world';

/**
 * Karpenter's own pods cannot be scheduled → the analyzer's Finding event → the template's
 * remediation rule (its real event pattern, an SQS queue in place of the Lambda target) → the
 * bundled remediator, handed each event the rule delivered, as Lambda would be → a report notice and
 * the node group as EKS reports it. The example configuration runs the raise in dry-run; the maximal
 * one applies it, capped at 4 and only on a node group tagged karpenter-doctor/remediate=true.
 *
 * Not emulated, so not here: Lambda invocation (moto needs Docker; the test hands the remediator the
 * events the rule let through) and Service Quotas for EC2 (moto answers NoSuchResourceException), so
 * request-quota-increase stays on aws-sdk-client-mock in test/handlers/remediator.test.ts.
 */
const OPT_IN = { 'karpenter-doctor/remediate': 'true' };
const eventsLogGroup = '/eks/prod/kubernetes-events';

/** A Kubernetes Warning event, as Fluent Bit's kubernetes_events input ships it: the controller pod is Pending. */
const controllerPending = (pod: string): string =>
  JSON.stringify({
    kind: 'Event',
    apiVersion: 'v1',
    metadata: { name: `${pod}.18a2b3c4d5e6f708`, namespace: 'kube-system' },
    involvedObject: { kind: 'Pod', namespace: 'kube-system', name: pod, apiVersion: 'v1' },
    reason: 'FailedScheduling',
    message:
      '0/2 nodes are available: 2 Insufficient cpu. preemption: 0/2 nodes are available: 2 No preemption victims found for incoming pod.',
    source: { component: 'default-scheduler' },
    type: 'Warning',
    count: 4,
  });

describe('remediation of Karpenter pods that cannot be scheduled', () => {
  const env = useDeployment(undefined, 'on-demand');
  let cluster: Cluster;

  async function deployWithCluster(stack: SynthesizedStack, systemGroupTags: Record<string, string>): Promise<void> {
    await env.redeploy(stack);
    const network = await Network.create(env.aws.clients.ec2);
    const subnets = [
      await network.subnet('10.0.0.0/24', `${REGION}a`, {}),
      await network.subnet('10.0.1.0/24', `${REGION}b`, {}),
    ];
    cluster = await Cluster.create(env.aws.clients.eks, 'prod', subnets);
    await cluster.nodegroup('system', { minSize: 1, desiredSize: 1, maxSize: 5 }, systemGroupTags);
  }

  /** The analyzer reads the delivery; every event the remediation rule lets through goes to the remediator. */
  async function karpenterPodsPending(): Promise<{ finding: Notice; delivered: DeliveredEvent[] }> {
    const analyzed = await env.aws
      .fn('Analyzer')
      .invoke(delivery(env.aws, eventsLogGroup, [controllerPending('karpenter-6d8f7b9c54-q2w4x')]));
    expect(analyzed).toMatchObject({ ok: true });
    const notices = await env.aws.notices.take();
    const finding = notices.find((n) => n.document?.rule === 'karpenter-controller-unschedulable');
    expect(finding).toBeDefined();
    const delivered = await env.aws.ruleTarget('Remediation/Rule').take();
    for (const event of delivered) expect(await env.aws.fn('Remediation').invoke(event)).toMatchObject({ ok: true });
    return { finding: finding!, delivered };
  }

  const reportsIn = (notices: Notice[]) => notices.filter((n) => n.attributes.status === 'remediation');

  describe('in dry-run (the example configuration)', () => {
    const stack = synthesize(CONFIGS.example);
    beforeEach(() => deployWithCluster(stack, OPT_IN));

    it('reports the planned raise of the system node group and changes nothing', async () => {
      const { finding, delivered } = await karpenterPodsPending();

      expect(delivered).toHaveLength(1);
      expect(delivered[0]!.detail.findingId).toBe(finding.document!.findingId);
      const reports = reportsIn(await env.aws.notices.take());
      expect(reports).toHaveLength(1);
      expect(reports[0]!.document).toMatchObject({
        action: 'raise-system-nodegroup',
        mode: 'dry-run',
        outcome: 'planned',
        before: { minSize: 1, desiredSize: 1, maxSize: 5 },
        after: { minSize: 2, desiredSize: 2, maxSize: 5 },
      });
      expect(String(reports[0]!.document!.commands)).toContain('--nodegroup-name system');
      expect(await cluster.scaling('system')).toEqual({ minSize: 1, desiredSize: 1, maxSize: 5 });
      const remediationEvents = (await env.aws.events.take()).filter(
        (e) => e['detail-type'] === 'Karpenter Remediation',
      );
      expect(remediationEvents).toHaveLength(1);
      // The remediator's own event is not a finding: the rule never hands it back to the remediator.
      expect(await env.aws.ruleTarget('Remediation/Rule').take()).toEqual([]);
    });
  });

  describe('in apply mode (the maximal configuration, cap 4)', () => {
    const stack = synthesize(CONFIGS.maximal);

    it('raises the opted-in system node group within its cap, once, and reports it', async () => {
      await deployWithCluster(stack, OPT_IN);

      const { delivered } = await karpenterPodsPending();

      expect(delivered).toHaveLength(1);
      const reports = reportsIn(await env.aws.notices.take());
      expect(reports).toHaveLength(1);
      expect(reports[0]!.document).toMatchObject({
        action: 'raise-system-nodegroup',
        mode: 'apply',
        outcome: 'applied',
      });
      const raised = await cluster.scaling('system');
      expect(raised).toEqual({ minSize: 2, desiredSize: 2, maxSize: 5 });
      expect(raised.minSize).toBeLessThanOrEqual(4);

      // EventBridge delivers the same event again (a retry): the change is not made twice.
      expect(await env.aws.fn('Remediation').invoke(delivered[0]!)).toMatchObject({ ok: true });
      expect(reportsIn(await env.aws.notices.take())).toEqual([]);
      expect(await cluster.scaling('system')).toEqual(raised);
    });

    it('leaves a node group without the opt-in tag as it is, and says why', async () => {
      await deployWithCluster(stack, {});

      await karpenterPodsPending();

      const reports = reportsIn(await env.aws.notices.take());
      expect(reports).toHaveLength(1);
      expect(reports[0]!.document).toMatchObject({
        action: 'raise-system-nodegroup',
        mode: 'apply',
        outcome: 'skipped',
      });
      expect(String(reports[0]!.document!.summary)).toContain('karpenter-doctor/remediate');
      expect(await cluster.scaling('system')).toEqual({ minSize: 1, desiredSize: 1, maxSize: 5 });
    });
  });
});
