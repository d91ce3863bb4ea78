import { controllerLocation, helmSet } from '../../../lambdas/core/advice/controller';

describe('controllerLocation', () => {
  it('takes the namespace the record names (writing pod, log stream, service account)', () => {
    expect(controllerLocation({ namespaces: ['karpenter'] })).toEqual({
      namespace: 'karpenter',
      deployment: 'karpenter',
      known: true,
    });
  });

  it('reads namespace and deployment from the controller pod an event names', () => {
    expect(
      controllerLocation({
        pods: ['shop/checkout-7d9f8c6b5d-x2z4q', 'platform/karpenter-controller-5d8f7b9c54-q2w4x'],
      }),
    ).toEqual({ namespace: 'platform', deployment: 'karpenter-controller', known: true });
  });

  it('falls back to kube-system, flagged unknown, when nothing names it', () => {
    expect(controllerLocation({ pods: ['shop/checkout-7d9f8c6b5d-x2z4q'] })).toEqual({
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
