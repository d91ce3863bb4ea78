import { DescribeAutoScalingGroupsCommand, AutoScalingClient } from '@aws-sdk/client-auto-scaling';
import {
  DescribeClusterCommand,
  DescribeNodegroupCommand,
  EKSClient,
  UpdateNodegroupConfigCommand,
} from '@aws-sdk/client-eks';
import { PutEventsCommand } from '@aws-sdk/client-eventbridge';
import {
  GetServiceQuotaCommand,
  ListRequestedServiceQuotaChangeHistoryByQuotaCommand,
  RequestServiceQuotaIncreaseCommand,
  ServiceQuotasClient,
} from '@aws-sdk/client-service-quotas';
import { mockClient } from 'aws-sdk-client-mock';
import 'aws-sdk-client-mock-jest';
import { analyzeSubscription } from '../../lambdas/handlers/analyzer';
import { remediate } from '../../lambdas/handlers/remediator';
import { awslogsEvent } from '../support/awslogs';
import { ACCOUNT, REGION, testSettings } from '../support/aws';
import { ANALYZER_CONTEXT, useHandlerHarness } from '../support/handler-harness';

/**
 * Issue 32: a workload pod of a shared cluster prints what Karpenter or the API server would, in
 * every shape Fluent Bit ships it in. Nothing it prints may reach the remediator as a finding.
 */
const aws = useHandlerHarness();
const eks = mockClient(EKSClient);
const autoScaling = mockClient(AutoScalingClient);
const serviceQuotas = mockClient(ServiceQuotasClient);

const APPLICATION = '/aws/containerinsights/prod/application';
const EVENTS = '/eks/prod/kubernetes-events';
const SHOP = { pod_name: 'web-7d4b9c6f5d-x2x9k', namespace_name: 'shop', container_name: 'app' };
const KARPENTER = { pod_name: 'karpenter-6d8f7b9c54-q2w4x', namespace_name: 'karpenter', container_name: 'controller' };

/** The Event that says Karpenter's own pod cannot be scheduled (the trigger of raise-system-nodegroup). */
const EVENT = {
  kind: 'Event',
  type: 'Warning',
  reason: 'FailedScheduling',
  message: "0/2 nodes are available: 2 node(s) didn't match Pod's node affinity/selector.",
  involvedObject: { kind: 'Pod', namespace: 'kube-system', name: 'karpenter-6d8f7b9c54-q2w4x' },
};
/** A Karpenter line of the vCPU quota of P instances (the trigger of request-quota-increase). */
const ZAP = {
  level: 'ERROR',
  time: '2026-11-28T02:20:30.000Z',
  logger: 'controller',
  message: 'failed launching nodeclaim',
  error:
    'creating instance, insufficient capacity, with fleet error(s), VcpuLimitExceeded: You have requested more vCPU capacity than your current vCPU limit of 64 allows for the instance bucket that the specified instance type belongs to.',
  NodeClaim: { name: 'p4d-karpenter-hmqzq' },
};

/** The three shapes of Fluent Bit's kubernetes filter: Merge_Log Off, Merge_Log_Key log_processed, merged at the root. */
const SHAPES: Array<[string, (inner: object, kubernetes: object) => object]> = [
  ['the log string', (inner, kubernetes) => ({ log: JSON.stringify(inner), stream: 'stdout', kubernetes })],
  ['log_processed', (inner, kubernetes) => ({ log: JSON.stringify(inner), log_processed: inner, kubernetes })],
  ['merged at the root', (inner, kubernetes) => ({ ...inner, stream: 'stdout', kubernetes })],
];
const KINDS: Array<[string, object]> = [
  ['an Event JSON', EVENT],
  ['a zap JSON Karpenter line', ZAP],
];
const FORGERIES = SHAPES.flatMap(([shape, ship]) =>
  KINDS.map(([kind, inner]) => [kind, shape, JSON.stringify(ship(inner, SHOP))] as const),
);

let clock: number;
const settings = () => ({
  ...testSettings(aws.tableName),
  clusters: [{ name: 'prod', systemNodegroup: 'system', logGroups: [APPLICATION, EVENTS] }],
  remediation: {
    raiseSystemNodegroup: { mode: 'apply' as const, maxMinSize: 3 },
    requestQuotaIncrease: { mode: 'apply' as const, maxValue: 512, windowHours: 24 },
    planSubnetCapacity: { mode: 'off' as const },
  },
});

beforeEach(() => {
  for (const mock of [eks, autoScaling, serviceQuotas]) mock.reset();
  clock = Date.parse('2026-11-28T02:21:00Z');
  autoScaling.on(DescribeAutoScalingGroupsCommand).resolves({ AutoScalingGroups: [] });
  eks.on(DescribeClusterCommand).resolves({ cluster: { name: 'prod' } });
  eks.on(DescribeNodegroupCommand).resolves({
    nodegroup: {
      nodegroupName: 'system',
      clusterName: 'prod',
      scalingConfig: { minSize: 1, desiredSize: 1, maxSize: 3 },
      tags: { 'karpenter-doctor/remediate': 'true' },
    },
  });
  eks.on(UpdateNodegroupConfigCommand).resolves({ update: { id: 'upd-1', status: 'InProgress' } });
  serviceQuotas
    .on(GetServiceQuotaCommand)
    .resolves({ Quota: { ServiceCode: 'ec2', QuotaCode: 'L-417A185B', Value: 64 } });
  serviceQuotas.on(ListRequestedServiceQuotaChangeHistoryByQuotaCommand).resolves({ RequestedQuotas: [] });
  serviceQuotas.on(RequestServiceQuotaIncreaseCommand).resolves({ RequestedQuota: { Id: 'req-1', Status: 'PENDING' } });
});

/** Delivers `lines` from `logGroup`, then hands every Finding event the analyzer put to the remediator in apply mode. */
async function deliverAndRemediate(logGroup: string, lines: string[]) {
  const deps = aws.deps(settings(), () => clock);
  const analysis = await analyzeSubscription(awslogsEvent(lines, { logGroup }), ANALYZER_CONTEXT, deps);
  const findings = aws.events
    .commandCalls(PutEventsCommand)
    .flatMap((call) => call.args[0].input.Entries ?? [])
    .filter((entry) => entry.DetailType === 'Karpenter Finding');
  const context = { invokedFunctionArn: `arn:aws:lambda:${REGION}:${ACCOUNT}:function:karpenter-doctor-remediator` };
  for (const entry of findings) {
    const event = {
      version: '0',
      id: 'e1d1b5c2-0000-4000-8000-000000000000',
      'detail-type': entry.DetailType,
      source: entry.Source,
      account: ACCOUNT,
      time: '2026-11-28T02:21:00Z',
      region: REGION,
      resources: entry.Resources ?? [],
      detail: JSON.parse(entry.Detail!),
    };
    await remediate(
      event,
      context,
      aws.deps(settings(), () => clock),
    );
  }
  return { analysis, findings };
}

describe('a workload pod forging Karpenter', () => {
  it.each(FORGERIES)('%s in %s from shop/app changes nothing in apply mode', async (_kind, _shape, line) => {
    const { analysis, findings } = await deliverAndRemediate(APPLICATION, [line]);

    expect(analysis).toMatchObject({ outcome: 'no-findings', foreign: 1 });
    expect(findings).toEqual([]);
    expect(eks).not.toHaveReceivedCommand(UpdateNodegroupConfigCommand);
    expect(serviceQuotas).not.toHaveReceivedCommand(RequestServiceQuotaIncreaseCommand);
  });

  it.each(KINDS)('%s without any metadata in the shared group is foreign', async (_kind, inner) => {
    const { analysis } = await deliverAndRemediate(APPLICATION, [JSON.stringify(inner)]);

    expect(analysis).toMatchObject({ outcome: 'no-findings', foreign: 1 });
  });
});

describe('the genuine sources, for contrast', () => {
  it('raises the system node group on the Event from the events log group', async () => {
    await deliverAndRemediate(EVENTS, [JSON.stringify(EVENT)]);

    expect(eks).toHaveReceivedCommandWith(UpdateNodegroupConfigCommand, { nodegroupName: 'system' });
  });

  it("reports the quota finding of Karpenter's own line in the shared group", async () => {
    const line = JSON.stringify({ log: JSON.stringify(ZAP), stream: 'stderr', kubernetes: KARPENTER });

    const { analysis, findings } = await deliverAndRemediate(APPLICATION, [line]);

    expect(analysis).toMatchObject({ outcome: 'processed', foreign: 0 });
    expect(findings.map((entry) => JSON.parse(entry.Detail!).rule)).toEqual(['ec2-quota-exceeded']);
  });
});
