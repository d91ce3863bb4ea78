import { otherPoolRefusals } from '../../../lambdas/core/advice/untainted-pools';
import { analyzeMessages } from '../../../lambdas/core/analyze';
import { buildFinding } from '../../../lambdas/core/findings/finding';

// Karpenter's scheduler error for a web shop pod: the GPU NodePool is tainted, the untainted default
// one does not fit for another reason (sigs.k8s.io/karpenter scheduling: "incompatible with nodepool %q, %s").
const KARPENTER =
  '{"level":"ERROR","time":"2026-12-01T03:05:01.000Z","logger":"controller","message":"could not schedule pod","Pod":{"name":"checkout-7d9f8c6b5d-x2z4q","namespace":"shop"},"error":"incompatible with nodepool \\"gpu\\", did not tolerate dedicated=gpu:NoSchedule; incompatible with nodepool \\"default\\", incompatible requirements, key kubernetes.io/arch, kubernetes.io/arch In [arm64] not in kubernetes.io/arch In [amd64]"}';

describe('otherPoolRefusals', () => {
  it.each([
    [
      'the untainted pool and its reason',
      [(JSON.parse(KARPENTER) as { error: string }).error],
      ['gpu'],
      [
        'NodePool default: incompatible requirements, key kubernetes.io/arch, kubernetes.io/arch In [arm64] not in kubernetes.io/arch In [amd64]',
      ],
    ],
    [
      'nothing but the tainting pool',
      ['incompatible with nodepool "gpu", did not tolerate a=b:NoSchedule'],
      ['gpu'],
      [],
    ],
    ['no Karpenter line', ['0/3 nodes are available: 3 node(s) had untolerated taint {dedicated: gpu}'], [], []],
  ])('%s', (_name, lines, pools, expected) => {
    expect(otherPoolRefusals(lines, pools)).toEqual(expected);
  });
});

describe('scheduling-untolerated-taint with an untainted NodePool available', () => {
  const [incident] = analyzeMessages([{ message: KARPENTER, origin: { line: 1 } }], 'prod').incidents;
  const finding = buildFinding(incident!, { region: 'eu-west-1' });

  it('first checks, read-only, why the untainted NodePool does not fit', () => {
    const [first] = finding.remediation;
    expect(first!.title).toBe('Do this now: see why no NodePool without this taint fits the pods');
    expect(first!.detail).toContain('NodePool default: incompatible requirements, key kubernetes.io/arch');
    expect(first!.commands.every((c) => /^kubectl (-n \S+ )?get /.test(c))).toBe(true);
    expect(first!.commands.join('\n')).toContain('kubectl -n shop get deployment checkout');
  });

  it('offers the toleration only as a later, conditional step', () => {
    const index = finding.remediation.findIndex((s) => /toleration/.test(s.title));
    expect(index).toBeGreaterThan(0);
    expect(finding.remediation[index]!.title).toMatch(/^Only if the pods belong on those nodes/);
  });
});
