import { DEFAULT_SOURCES, isKarpenterRecord } from '../../../lambdas/core/parse/karpenter-source';
import { parseMessage } from '../../../lambdas/core/parse/parse-message';

const LINE = '{"level":"ERROR","message":"failed launching nodeclaim","error":"InsufficientFreeAddressesInSubnet"}';
const fluentBit = (kubernetes: Record<string, string>) =>
  parseMessage(JSON.stringify({ log: LINE, stream: 'stderr', kubernetes }), {})!;

describe('isKarpenterRecord', () => {
  it.each([
    [{ pod_name: 'karpenter-1', namespace_name: 'karpenter', container_name: 'controller' }, true],
    [{ pod_name: 'karpenter-1', namespace_name: 'kube-system', container_name: 'controller' }, true],
    [{ pod_name: 'karpenter-1', namespace_name: 'karpenter' }, true],
    [{ pod_name: 'web-1', namespace_name: 'shop', container_name: 'controller' }, false],
    [{ pod_name: 'aws-node-1', namespace_name: 'kube-system', container_name: 'aws-node' }, false],
    [{ pod_name: 'web-1', container_name: 'controller' }, false],
  ])('judges Fluent Bit metadata %j: %s', (kubernetes, expected) => {
    expect(isKarpenterRecord(fluentBit(kubernetes), DEFAULT_SOURCES)).toBe(expected);
  });

  it('keeps Kubernetes Events, which the API server writes, whoever shipped them', () => {
    const event = JSON.stringify({
      kind: 'Event',
      reason: 'FailedScheduling',
      message: '0/3 nodes are available',
      involvedObject: { kind: 'Pod', name: 'web-1', namespace: 'shop' },
    });
    const shipped = parseMessage(
      JSON.stringify({
        log: event,
        kubernetes: { pod_name: 'exporter-1', namespace_name: 'monitoring', container_name: 'x' },
      }),
      {},
    )!;
    expect(isKarpenterRecord(parseMessage(event, {})!, DEFAULT_SOURCES)).toBe(true);
    expect(isKarpenterRecord(shipped, DEFAULT_SOURCES)).toBe(true);
  });

  it('keeps records without pod metadata (a log group of Karpenter alone)', () => {
    expect(isKarpenterRecord(parseMessage(LINE, {})!, DEFAULT_SOURCES)).toBe(true);
  });

  it('follows the configured namespaces and containers', () => {
    const record = fluentBit({ pod_name: 'kp-1', namespace_name: 'autoscaling', container_name: 'kp' });
    expect(isKarpenterRecord(record, DEFAULT_SOURCES)).toBe(false);
    expect(isKarpenterRecord(record, { namespaces: ['autoscaling'], containers: ['kp'] })).toBe(true);
  });
});
