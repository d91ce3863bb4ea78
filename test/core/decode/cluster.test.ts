import { clusterResolver, type MappedCluster } from '../../../lambdas/core/decode/cluster';

const HOME = '111122223333';
const OTHER = '444455556666';

const CLUSTERS: MappedCluster[] = [
  { name: 'prod', logGroups: ['/aws/containerinsights/prod/application', '/eks/prod/*'] },
  { name: 'prod-batch', logGroups: ['/eks/prod/batch/*'] },
  { name: 'staging', logGroups: ['/eks/staging/karpenter'] },
  { name: 'payments', account: OTHER, logGroups: ['/aws/containerinsights/prod/application'] },
];

describe('clusterResolver', () => {
  const resolve = clusterResolver(CLUSTERS, HOME);

  it.each([
    ['/aws/containerinsights/prod/application', HOME, 'prod'],
    ['/aws/containerinsights/prod/application', undefined, 'prod'],
    ['/eks/prod/kubernetes-events', HOME, 'prod'],
    ['/eks/staging/karpenter', HOME, 'staging'],
    // the most specific pattern wins
    ['/eks/prod/batch/events', HOME, 'prod-batch'],
    // the same group name in another account is another cluster
    ['/aws/containerinsights/prod/application', OTHER, 'payments'],
  ])('maps %s of account %s to %s', (logGroup, account, expected) => {
    expect(resolve({ logGroup, account })).toBe(expected);
  });

  it.each([
    ['/eks/staging/karpenter-evil', HOME],
    ['/aws/containerinsights/batch/application', HOME],
    ['/eks/prod/kubernetes-events', OTHER],
    ['/eks/staging/karpenter', '999999999999'],
    ['', HOME],
  ])('maps %s of account %s to no cluster', (logGroup, account) => {
    expect(resolve({ logGroup, account })).toBeUndefined();
  });

  it('never takes the cluster from a name the delivery carries', () => {
    // A filter name, a Container Insights path, the only configured cluster: none of them is the mapping.
    const only = clusterResolver([{ name: 'only', logGroups: ['/eks/only/karpenter'] }], HOME);
    expect(only({ logGroup: '/aws/containerinsights/only/application', account: HOME })).toBeUndefined();
  });

  it('maps clusters without an account to any account no cluster names when the home account is unknown', () => {
    const unknownHome = clusterResolver(CLUSTERS);
    expect(unknownHome({ logGroup: '/eks/staging/karpenter', account: HOME })).toBe('staging');
    expect(unknownHome({ logGroup: '/eks/staging/karpenter', account: undefined })).toBe('staging');
    expect(unknownHome({ logGroup: '/aws/containerinsights/prod/application', account: OTHER })).toBe('payments');
    expect(unknownHome({ logGroup: '/eks/staging/karpenter', account: OTHER })).toBeUndefined();
  });

  it('keeps the first cluster that lists a group twice', () => {
    const twice = clusterResolver([
      { name: 'a', logGroups: ['/x'] },
      { name: 'b', logGroups: ['/x'] },
    ]);
    expect(twice({ logGroup: '/x' })).toBe('a');
  });
});
