import { findingIdOf } from '../../../lambdas/core/incidents/aggregate';
import { clusterOfDocument } from '../../../lambdas/core/decode/cluster';
import { DETAIL_TYPES } from '../../../contracts/events';
import { findingEventOf, scopeOfArn } from '../../../lambdas/core/findings/bus-entries';
import { buildFinding } from '../../../lambdas/core/findings/finding';

const scope = { partition: 'aws', region: 'eu-west-1', account: '111122223333' };

describe('findingEventOf', () => {
  it('carries the finding as detail and the ARNs of the cluster, subnets and node groups as resources', () => {
    const finding = buildFinding(
      {
        findingId: findingIdOf('prod', 'subnet-ip-exhaustion', undefined),
        cluster: 'prod',
        rule: 'subnet-ip-exhaustion',
        occurrences: 2,
        entities: { subnets: ['subnet-0a', 'subnet-0b'] },
        evidence: [],
      },
      {
        context: {
          enrichmentErrors: [],
          nodegroups: [
            {
              name: 'system',
              kind: 'managed',
              autoScalingGroups: [],
              arn: 'arn:aws:eks:eu-west-1:111122223333:nodegroup/prod/system/abc',
            },
          ],
        },
      },
    );

    const entry = findingEventOf(finding, 'io.karpenter-doctor', scope);

    expect(entry.detailType).toBe(DETAIL_TYPES.finding);
    expect(JSON.parse(entry.detail)).toEqual({ ...finding, reason: 'open' });
    expect(entry.resources).toEqual([
      'arn:aws:eks:eu-west-1:111122223333:cluster/prod',
      'arn:aws:ec2:eu-west-1:111122223333:subnet/subnet-0a',
      'arn:aws:ec2:eu-west-1:111122223333:subnet/subnet-0b',
      'arn:aws:eks:eu-west-1:111122223333:nodegroup/prod/system/abc',
    ]);
  });
});

describe('scopeOfArn', () => {
  it.each([
    [
      'arn:aws-cn:lambda:cn-north-1:111122223333:function:x',
      { partition: 'aws-cn', region: 'cn-north-1', account: '111122223333' },
    ],
    ['not an arn', undefined],
    [undefined, undefined],
  ])('reads %s', (arn, expected) => {
    expect(scopeOfArn(arn)).toEqual(expected);
  });
});

describe('clusterOfDocument', () => {
  it.each([
    [{ logGroup: '/eks/karpenter', subscriptionFilters: ['karpenter-doctor.payments'] }, ['a', 'b'], 'payments'],
    [{ logGroup: '/aws/containerinsights/batch/application', subscriptionFilters: ['other'] }, ['a', 'b'], 'batch'],
    [{ logGroup: '/eks/karpenter', subscriptionFilters: [] }, ['only'], 'only'],
    [{ logGroup: '/eks/karpenter', subscriptionFilters: ['karpenter-doctor.'] }, ['a', 'b'], '/eks/karpenter'],
  ])('names the cluster of %j', (document, configured, expected) => {
    expect(clusterOfDocument(document, 'karpenter-doctor.', configured)).toBe(expected);
  });
});
