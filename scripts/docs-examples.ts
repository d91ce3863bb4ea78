import { analyzeMessages } from '../lambdas/core/analyze';
import type { FindingContext } from '../lambdas/core/findings/context';
import { zoneTotals } from '../lambdas/core/findings/context';
import { EVENT_SOURCE } from '../contracts/events';
import { findingEventOf } from '../lambdas/core/findings/bus-entries';
import { buildFinding } from '../lambdas/core/findings/finding';
import { subnetExhaustionLine } from '../test/support/awslogs';
import {
  chatNotificationOf,
  emailTextOf,
  snsNotificationOf,
  subjectOf,
} from '../lambdas/core/findings/render-notification';

/**
 * The example messages checked into docs/examples: what one subnet-exhaustion finding looks like as
 * an email, as a chat notification and as an EventBridge event. Built by the real pipeline from
 * Karpenter v1 log lines and a fixed live context, so a change to any renderer shows up here (a test
 * keeps the files in sync; `npm run docs:examples` rewrites them).
 */
export function docsExamples(): Record<string, string> {
  const origin = {
    logGroup: '/aws/containerinsights/prod/application',
    logStream: 'karpenter-6d8f7b9c54-8zr7n_karpenter_controller',
  };
  const messages = [
    subnetExhaustionLine('subnet-0a1b2c3d4e5f60718', 'default-79vdd', '2026-11-28T02:20:49.824Z'),
    subnetExhaustionLine('subnet-0a1b2c3d4e5f60718', 'default-rnjkk', '2026-11-28T02:20:55.689Z'),
    subnetExhaustionLine('subnet-0b2c3d4e5f6071829', 'default-stj8b', '2026-11-28T02:21:00.750Z'),
  ].map((message, index) => ({
    message,
    origin: { ...origin, eventId: `3800000000000000000000000000000000000000000000000000000${index}` },
  }));
  const [incident] = analyzeMessages(messages, 'prod').incidents;
  if (!incident) throw new Error('the example lines no longer yield a finding');

  const subnets = [
    {
      subnetId: 'subnet-0a1b2c3d4e5f60718',
      availabilityZone: 'eu-west-1a',
      vpcId: 'vpc-0123456789abcdef0',
      cidrBlock: '10.0.32.0/24',
      availableIps: 0,
      totalIps: 251,
      discovered: true,
    },
    {
      subnetId: 'subnet-0b2c3d4e5f6071829',
      availabilityZone: 'eu-west-1b',
      vpcId: 'vpc-0123456789abcdef0',
      cidrBlock: '10.0.33.0/24',
      availableIps: 3,
      totalIps: 251,
      discovered: true,
    },
    {
      subnetId: 'subnet-0c3d4e5f607182930',
      availabilityZone: 'eu-west-1c',
      vpcId: 'vpc-0123456789abcdef0',
      cidrBlock: '10.0.34.0/24',
      availableIps: 118,
      totalIps: 251,
      discovered: true,
    },
  ];
  const context: FindingContext = {
    subnets,
    zones: zoneTotals(subnets),
    vpcs: [{ vpcId: 'vpc-0123456789abcdef0', cidrBlocks: ['10.0.0.0/16'], cidrSlotsLeft: 4 }],
    enrichmentErrors: [],
  };
  const finding = buildFinding(incident, {
    status: 'open',
    account: '111122223333',
    region: 'eu-west-1',
    context,
    occurrences: 3,
  });
  const notification = snsNotificationOf(finding);
  const event = findingEventOf(finding, EVENT_SOURCE, {
    partition: 'aws',
    region: 'eu-west-1',
    account: '111122223333',
  });
  const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;
  return {
    'notification-email.txt': `Subject: ${subjectOf(finding)}\n\n${emailTextOf(finding)}\n`,
    'notification-chat.json': json(chatNotificationOf(finding)),
    'sns-message-attributes.json': json(notification.attributes),
    'event-finding.json': json({
      source: event.source,
      'detail-type': event.detailType,
      resources: event.resources,
      detail: JSON.parse(event.detail),
    }),
  };
}
