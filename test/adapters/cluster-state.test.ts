import { eksToken, KubeReadError, readClusterSnapshot } from '../../lambdas/adapters/cluster-state';
import { analyzeSnapshot, pollChanges } from '../../lambdas/core/state';
import { autoModeNodeClass, ec2NodeClass, NO_FREE_IP, nodeClaim, nodePool, pendingPod } from '../support/cluster-state';
import { startKubeStub, type KubeStub } from '../support/kube-stub';

const CREDENTIALS = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY' };
const AT = new Date('2026-12-01T10:05:00Z');

describe('eksToken', () => {
  it('is STS GetCallerIdentity presigned for the cluster, as aws eks get-token writes it', async () => {
    const token = await eksToken('prod', 'us-west-2', CREDENTIALS, AT);
    expect(token).toMatch(/^k8s-aws-v1\.[A-Za-z0-9_-]+$/);
    const url = new URL(Buffer.from(token.slice('k8s-aws-v1.'.length), 'base64url').toString('utf8'));
    expect(url.origin).toBe('https://sts.us-west-2.amazonaws.com');
    expect(Object.fromEntries(url.searchParams)).toMatchObject({
      Action: 'GetCallerIdentity',
      Version: '2011-06-15',
      'X-Amz-Algorithm': 'AWS4-HMAC-SHA256',
      'X-Amz-Credential': 'AKIDEXAMPLE/20261201/us-west-2/sts/aws4_request',
      'X-Amz-Date': '20261201T100500Z',
      'X-Amz-Expires': '60',
      'X-Amz-SignedHeaders': 'host;x-k8s-aws-id',
    });
    expect(url.searchParams.get('X-Amz-Signature')).toMatch(/^[0-9a-f]{64}$/);
  });

  it('signs each cluster apart: the cluster name is a signed header', async () => {
    const signature = async (cluster: string) =>
      new URL(
        Buffer.from((await eksToken(cluster, 'us-west-2', CREDENTIALS, AT)).slice(11), 'base64url').toString(),
      ).searchParams.get('X-Amz-Signature');
    expect(await signature('prod')).not.toBe(await signature('staging'));
    expect(await signature('prod')).toBe(await signature('prod'));
  });
});

describe('readClusterSnapshot, against an API server on 127.0.0.1', () => {
  let stub: KubeStub | undefined;
  afterEach(async () => stub?.close());

  const exhausted = nodeClaim('default-x7k2p', [NO_FREE_IP]);

  it('reads every kind with the bearer token and gives the state reader its snapshot', async () => {
    stub = await startKubeStub({
      lists: {
        'karpenter.sh/v1/nodeclaims': [exhausted],
        'karpenter.sh/v1/nodepools': [nodePool('default', [{ type: 'Ready', status: 'True' }])],
        'karpenter.k8s.aws/v1/ec2nodeclasses': [ec2NodeClass('default', [{ type: 'Ready', status: 'True' }])],
        'eks.amazonaws.com/v1/nodeclasses': [],
        'v1/pods': [pendingPod('web', 'web-0', '0/5 nodes are available: 5 Insufficient cpu.')],
        'v1/events': [],
        'storage.k8s.io/v1/storageclasses': [],
      },
    });
    const { snapshot, skipped } = await readClusterSnapshot({ url: stub.url }, 'k8s-aws-v1.token', AT.getTime());
    expect(skipped).toEqual([]);
    expect(new Set(stub.authorizations)).toEqual(new Set(['Bearer k8s-aws-v1.token']));
    expect(stub.requests).toContain('GET /api/v1/pods?fieldSelector=status.phase%3DPending');
    const rules = analyzeSnapshot(snapshot, { cluster: 'prod' }).analysis.incidents.map((i) => i.rule);
    expect(rules).toEqual(['subnet-ip-exhaustion', 'scheduling-insufficient-resources']);
  });

  it('reads an Auto Mode cluster, where no EC2NodeClass is served', async () => {
    stub = await startKubeStub({
      omit: ['karpenter.k8s.aws/v1'],
      lists: {
        'karpenter.sh/v1/nodeclaims': [],
        'karpenter.sh/v1/nodepools': [nodePool('general-purpose', [], { autoMode: true })],
        'eks.amazonaws.com/v1/nodeclasses': [autoModeNodeClass('default', [])],
        'v1/pods': [],
        'v1/events': [],
        'storage.k8s.io/v1/storageclasses': [],
      },
    });
    const { snapshot, skipped } = await readClusterSnapshot({ url: stub.url }, 't', AT.getTime());
    expect(skipped).toEqual(['/apis/karpenter.k8s.aws/v1/ec2nodeclasses (404)']);
    expect(analyzeSnapshot(snapshot, { cluster: 'prod' }).autoMode.evidence).toContain(
      'NodeClass default (eks.amazonaws.com/v1)',
    );
  });

  it('fails, naming the list, when RBAC refuses a kind it needs', async () => {
    stub = await startKubeStub({
      lists: { 'karpenter.sh/v1/nodeclaims': [] },
      forbidden: ['karpenter.sh/v1/nodepools'],
    });
    const read = readClusterSnapshot({ url: stub.url }, 't', AT.getTime());
    await expect(read).rejects.toBeInstanceOf(KubeReadError);
    await expect(read).rejects.toThrow(
      /^GET \/apis\/karpenter.sh\/v1\/nodepools: 403 nodepools.karpenter.sh is forbidden: User .* cannot list resource "nodepools"/,
    );
  });
});

describe('pollChanges', () => {
  const incident = (findingId: string) => ({ findingId }) as Parameters<typeof pollChanges>[1][number];
  it.each([
    [[], ['a'], ['a'], []],
    [['a'], ['a'], ['a'], []],
    [['a', 'b'], ['b'], ['b'], ['a']],
    [['a'], [], [], ['a']],
    [['b', 'a'], ['c', 'c'], ['c'], ['a', 'b']],
  ])('after %j, a poll finding %j remembers %j and clears %j', (previous, found, seen, cleared) => {
    expect(pollChanges(previous, found.map(incident))).toEqual({ seen, cleared });
  });
});
