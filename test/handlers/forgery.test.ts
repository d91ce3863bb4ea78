import { DescribeNodegroupCommand, UpdateNodegroupConfigCommand } from '@aws-sdk/client-eks';
import { PutEventsCommand } from '@aws-sdk/client-eventbridge';
import {
  GetServiceQuotaCommand,
  ListRequestedServiceQuotaChangeHistoryByQuotaCommand,
  RequestServiceQuotaIncreaseCommand,
} from '@aws-sdk/client-service-quotas';
import 'aws-sdk-client-mock-jest';
import { analyzeSubscription } from '../../lambdas/handlers/analyzer';
import { remediate } from '../../lambdas/handlers/remediator';
import { awslogsEvent } from '../support/awslogs';
import { testSettings } from '../support/aws';
import { ANALYZER_CONTEXT, useHandlerHarness } from '../support/handler-harness';
import { FORGED_EVENT, FORGED_KINDS, FORGED_QUOTA_LINE, FORGERIES, KARPENTER_CONTROLLER } from '../support/forgery';
import { findingDelivery, REMEDIATOR_CONTEXT, useRemediationMocks } from '../support/remediation';

/**
 * Issue 32: a workload pod of a shared cluster prints what Karpenter or the API server would, in
 * every shape Fluent Bit ships it in. Nothing it prints may reach the remediator as a finding.
 */
const aws = useHandlerHarness();
const { eks, serviceQuotas } = useRemediationMocks();

const APPLICATION = '/aws/containerinsights/prod/application';
const EVENTS = '/eks/prod/kubernetes-events';

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
  clock = Date.parse('2026-11-28T02:21:00Z');
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
  for (const entry of findings) {
    const event = findingDelivery(JSON.parse(entry.Detail!), {
      time: '2026-11-28T02:21:00Z',
      resources: entry.Resources ?? [],
    });
    await remediate(
      event,
      REMEDIATOR_CONTEXT,
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

  it.each(FORGED_KINDS)('%s without any metadata in the shared group is foreign', async (_kind, inner) => {
    const { analysis } = await deliverAndRemediate(APPLICATION, [JSON.stringify(inner)]);

    expect(analysis).toMatchObject({ outcome: 'no-findings', foreign: 1 });
  });
});

describe('the genuine sources, for contrast', () => {
  it('raises the system node group on the Event from the events log group', async () => {
    await deliverAndRemediate(EVENTS, [JSON.stringify(FORGED_EVENT)]);

    expect(eks).toHaveReceivedCommandWith(UpdateNodegroupConfigCommand, { nodegroupName: 'system' });
  });

  it("reports the quota finding of Karpenter's own line in the shared group", async () => {
    const line = JSON.stringify({
      log: JSON.stringify(FORGED_QUOTA_LINE),
      stream: 'stderr',
      kubernetes: KARPENTER_CONTROLLER,
    });

    const { analysis, findings } = await deliverAndRemediate(APPLICATION, [line]);

    expect(analysis).toMatchObject({ outcome: 'processed', foreign: 0 });
    expect(findings.map((entry) => JSON.parse(entry.Detail!).rule)).toEqual(['ec2-quota-exceeded']);
  });
});
