import { controllerLocation, helmSet, podOfLogStream } from '../../../lambdas/core/advice/controller';

describe('podOfLogStream', () => {
  it.each([
    [
      'ip-10-0-1-7.us-west-2.compute.internal-application.var.log.containers.karpenter-57f84c84b9-9xknz_kube-system_controller-3dad569bd5d74c70072b461f986b92da15c10d1b745b8686c65d1395a95bb361.log',
      { pod: 'karpenter-57f84c84b9-9xknz', namespace: 'kube-system' },
    ],
    [
      'karpenter-57f84c84b9-9xknz_system-karpenter_controller_3dad569bd5d74c70072b461f986b92da15c10d1b745b8686c65d1395a95bb361',
      { pod: 'karpenter-57f84c84b9-9xknz', namespace: 'system-karpenter' },
    ],
    ['2019/03/13/[$LATEST]94fa867e5374431291a7fc14e2f56ae7', undefined],
    ['events', undefined],
  ])('%s', (stream, expected) => expect(podOfLogStream(stream)).toEqual(expected));
});

describe('controllerLocation', () => {
  it('reads the namespace and deployment from a Container Insights stream', () => {
    expect(
      controllerLocation({
        logStreams: ['fluent-bit-kube.var.log.containers.karpenter-6d8f7b9c54-q2w4x_karpenter_controller-0a1b.log'],
      }),
    ).toEqual({ namespace: 'karpenter', deployment: 'karpenter', known: true });
  });

  it('reads it from the controller pod named by an event', () => {
    expect(
      controllerLocation({ pods: ['shop/checkout-7d9f8c6b5d-x2z4q', 'platform/karpenter-5d8f7b9c54-q2w4x'] }),
    ).toEqual({
      namespace: 'platform',
      deployment: 'karpenter',
      known: true,
    });
  });

  it('falls back to kube-system, flagged unknown, when nothing names it', () => {
    expect(controllerLocation({ logStreams: ['events'], pods: ['shop/checkout-7d9f8c6b5d-x2z4q'] })).toEqual({
      namespace: 'kube-system',
      deployment: 'karpenter',
      known: false,
    });
  });
});

describe('helmSet', () => {
  it('keeps the other values and the installed chart version', () => {
    const [list, upgrade] = helmSet(
      { namespace: 'kube-system', deployment: 'karpenter', known: true },
      { replicas: 1 },
    );
    expect(list).toBe('helm -n kube-system list --filter karpenter');
    expect(upgrade).toBe(
      'helm -n kube-system upgrade karpenter oci://public.ecr.aws/karpenter/karpenter --version <installed-chart-version> --reuse-values --set replicas=1',
    );
  });
});
