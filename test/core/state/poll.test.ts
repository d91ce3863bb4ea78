import { clusterSays, pollChanges } from '../../../lambdas/core/state';
import { snapshotOf } from '../../../lambdas/core/state';
import type { Entities } from '../../../lambdas/core/model';
import { ec2NodeClass, list, nodeClaim, nodePool, pendingPod } from '../../support/cluster-state';

const READ_AT = Date.parse('2026-12-01T10:20:00Z');
const launchedTrue = nodeClaim('default-x7k2p', [{ type: 'Launched', status: 'True' }]);
const healthyPool = nodePool('default', [
  { type: 'Ready', status: 'True' },
  { type: 'NodeRegistrationHealthy', status: 'True' },
]);
const snapshot = snapshotOf(
  [
    list([launchedTrue]),
    list([healthyPool]),
    list([ec2NodeClass('default', [{ type: 'SubnetsReady', status: 'True' }])]),
    list([pendingPod('shop', 'web-7d9f-abcde', '0/3 nodes are available')]),
  ],
  READ_AT,
);

describe('clusterSays: what the cluster says now about a cleared incident', () => {
  it.each<[string, Entities, string]>([
    ['a NodeClaim whose launch succeeded', { nodeclaims: ['default-x7k2p'] }, 'NodeClaim default-x7k2p: Launched=True'],
    ['a NodeClaim deleted since', { nodeclaims: ['default-q7m2d'] }, 'NodeClaim default-q7m2d is gone'],
    [
      'a NodePool and its node class',
      { nodepools: ['default'], nodeclasses: ['default'] },
      'NodePool default: Ready=True, NodeRegistrationHealthy=True; EC2NodeClass default: SubnetsReady=True',
    ],
    ['a pod since scheduled', { pods: ['shop/api-0'] }, 'pod shop/api-0 is no longer pending'],
    [
      'a pod still pending, its failure no longer stated',
      { pods: ['shop/web-7d9f-abcde'] },
      'pod shop/web-7d9f-abcde is pending with no failure stated',
    ],
    ['no object named', { subnets: ['subnet-0a1b2c3d4e5f60718'] }, 'the cluster no longer states this failure'],
    [
      'more objects than a notice names',
      { nodeclaims: ['a-00001', 'a-00002', 'a-00003', 'a-00004', 'a-00005'] },
      'NodeClaim a-00001 is gone; NodeClaim a-00002 is gone; NodeClaim a-00003 is gone; and 2 more',
    ],
  ])('%s', (_, entities, said) => {
    expect(clusterSays(entities, snapshot)).toBe(said);
  });
});

describe('pollChanges', () => {
  const incident = (findingId: string) => ({ findingId }) as never;
  it.each<[string, string[], string[], { seen: string[]; cleared: string[] }]>([
    ['the first poll', [], ['b', 'a'], { seen: ['a', 'b'], cleared: [] }],
    ['the same failures again', ['a', 'b'], ['a', 'b'], { seen: ['a', 'b'], cleared: [] }],
    ['one failure no longer stated', ['a', 'b'], ['b'], { seen: ['b'], cleared: ['a'] }],
    ['a healthy cluster', ['a'], [], { seen: [], cleared: ['a'] }],
  ])('%s', (_, previous, found, changes) => {
    expect(pollChanges(previous, found.map(incident))).toEqual(changes);
  });
});
