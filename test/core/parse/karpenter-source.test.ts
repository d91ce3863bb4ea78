import {
  DEFAULT_SOURCES,
  isKarpenterRecord,
  logGroupKind,
  sourcesOfGroup,
} from '../../../lambdas/core/parse/karpenter-source';
import { parseMessage } from '../../../lambdas/core/parse/parse-message';

const LINE = '{"level":"ERROR","message":"failed launching nodeclaim","error":"InsufficientFreeAddressesInSubnet"}';
const EVENT = JSON.stringify({
  kind: 'Event',
  reason: 'FailedScheduling',
  message: '0/3 nodes are available',
  involvedObject: { kind: 'Pod', name: 'web-1', namespace: 'shop' },
});
const shipped = (inner: string, kubernetes: Record<string, string>) =>
  parseMessage(JSON.stringify({ log: inner, stream: 'stderr', kubernetes }), {})!;
const bare = (inner: string) => parseMessage(inner, {})!;

const KARPENTER = { pod_name: 'karpenter-1', namespace_name: 'karpenter', container_name: 'controller' };
const SHOP = { pod_name: 'web-1', namespace_name: 'shop', container_name: 'app' };
const EXPORTER = { pod_name: 'exporter-1', namespace_name: 'monitoring', container_name: 'event-exporter' };
const WITH_EXPORTER = {
  ...DEFAULT_SOURCES,
  eventExporters: { namespaces: ['monitoring'], containers: ['event-exporter'] },
};

describe('logGroupKind', () => {
  it.each([
    ['/aws/containerinsights/prod/application', 'shared'],
    ['/eks/prod/kubernetes-events', 'events'],
    ['/eks/prod/karpenter', 'dedicated'],
    ['/aws/containerinsights/prod/dataplane', 'dedicated'],
    ['/aws/containerinsights/prod/application-old', 'dedicated'],
  ])('calls %s %s by the default names', (group, kind) => {
    expect(logGroupKind(group, DEFAULT_SOURCES)).toBe(kind);
  });

  it('follows configured names, * standing for any run of characters', () => {
    const sources = { ...DEFAULT_SOURCES, sharedLogGroups: ['/fluent-bit/*/pods'], eventLogGroups: ['/k8s/*-events'] };
    expect(logGroupKind('/fluent-bit/prod/pods', sources)).toBe('shared');
    expect(logGroupKind('/k8s/prod-events', sources)).toBe('events');
    expect(logGroupKind('/aws/containerinsights/prod/application', sources)).toBe('dedicated');
  });
});

describe('isKarpenterRecord', () => {
  it.each([
    [KARPENTER, true],
    [{ ...KARPENTER, namespace_name: 'kube-system' }, true],
    [{ pod_name: 'karpenter-1', namespace_name: 'karpenter' }, true],
    [{ ...SHOP, container_name: 'controller' }, false],
    [{ pod_name: 'aws-node-1', namespace_name: 'kube-system', container_name: 'aws-node' }, false],
    [{ pod_name: 'web-1', container_name: 'controller' }, false],
  ])('judges a Karpenter line by its Fluent Bit metadata %j: %s', (kubernetes, expected) => {
    for (const group of [undefined, 'shared', 'dedicated', 'events'] as const) {
      expect(isKarpenterRecord(shipped(LINE, kubernetes), { ...DEFAULT_SOURCES, group })).toBe(expected);
    }
  });

  // Which records count, by who wrote them and where (issue 32): [record, group, counts].
  it.each([
    ['an Event from a workload pod', () => shipped(EVENT, SHOP), 'shared', false],
    ["an Event from Karpenter's own pod", () => shipped(EVENT, KARPENTER), 'shared', false],
    ['an Event from the configured exporter', () => shipped(EVENT, EXPORTER), 'shared', true],
    ['an Event without metadata', () => bare(EVENT), 'shared', false],
    ['an Event without metadata', () => bare(EVENT), 'events', true],
    ['an Event without metadata', () => bare(EVENT), 'dedicated', true],
    ['an Event from a workload pod', () => shipped(EVENT, SHOP), 'events', false],
    ['a line without metadata', () => bare(LINE), 'shared', false],
    ['a line without metadata', () => bare(LINE), 'events', false],
    ['a line without metadata', () => bare(LINE), 'dedicated', true],
  ] as const)('counts %s in a %s group: %s', (_name, record, group, expected) => {
    expect(isKarpenterRecord(record(), { ...WITH_EXPORTER, group })).toBe(expected);
  });

  it('trusts no event exporter until one is configured', () => {
    expect(isKarpenterRecord(shipped(EVENT, EXPORTER), sourcesOfGroup(DEFAULT_SOURCES, '/eks/prod/karpenter'))).toBe(
      false,
    );
  });

  it('keeps what a user hands the CLI (no log group), Events and lines without metadata alike', () => {
    expect(isKarpenterRecord(bare(EVENT), DEFAULT_SOURCES)).toBe(true);
    expect(isKarpenterRecord(bare(LINE), DEFAULT_SOURCES)).toBe(true);
  });

  it('follows the configured namespaces and containers', () => {
    const record = shipped(LINE, { pod_name: 'kp-1', namespace_name: 'autoscaling', container_name: 'kp' });
    expect(isKarpenterRecord(record, DEFAULT_SOURCES)).toBe(false);
    expect(isKarpenterRecord(record, { namespaces: ['autoscaling'], containers: ['kp'] })).toBe(true);
  });
});
