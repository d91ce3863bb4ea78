import { editTemplate, resolveWorkload, setResourcesCommand } from '../../../lambdas/core/advice/workload-kind';

describe('resolveWorkload', () => {
  it.each([
    ['shop/deployment/checkout', undefined, { namespace: 'shop', kind: 'deployment', name: 'checkout' }],
    // A pod named <name>-<ordinal> may be a StatefulSet's or not (Spark's executors): only an owner tells.
    ['data/statefulset/postgres', undefined, { namespace: 'data', name: 'postgres' }],
    ['data/statefulset/postgres', 'StatefulSet', { namespace: 'data', kind: 'statefulset', name: 'postgres' }],
    ['spark/statefulset/spark-exec', undefined, { namespace: 'spark', name: 'spark-exec' }],
    [
      'batch/workload/nightly-report-28934520',
      undefined,
      { namespace: 'batch', kind: 'cronjob', name: 'nightly-report' },
    ],
    ['kube-system/workload/aws-node', 'DaemonSet', { namespace: 'kube-system', kind: 'daemonset', name: 'aws-node' }],
    ['etl/workload/import', 'Job', { namespace: 'etl', kind: 'job', name: 'import' }],
    ['etl/workload/import', undefined, { namespace: 'etl', name: 'import' }],
    ['shop/workload/checkout-7d9f8c6b5d', 'ReplicaSet', { namespace: 'shop', kind: 'deployment', name: 'checkout' }],
  ] as const)('%s (owner %s)', (entity, ownerKind, expected) => {
    expect(resolveWorkload(entity, { ownerKind })).toEqual(expected);
  });
});

describe('editTemplate', () => {
  it('edits controllers with a mutable template and says it rolls out new pods', () => {
    const change = editTemplate({ namespace: 'shop', kind: 'deployment', name: 'checkout' });
    expect(change.commands).toEqual(['kubectl -n shop edit deployment checkout']);
    expect(change.sideEffect).toMatch(/rolling restart/);
    expect(change.sideEffect).toMatch(/Helm/);
  });

  it('changes the CronJob of a scheduled Job, never a deployment', () => {
    expect(editTemplate({ namespace: 'batch', kind: 'cronjob', name: 'nightly-report' }).commands).toEqual([
      'kubectl -n batch edit cronjob nightly-report',
    ]);
  });

  it('recreates a bare Job, whose template is immutable, and says it kills its pods', () => {
    const change = editTemplate({ namespace: 'etl', kind: 'job', name: 'import' });
    expect(change.commands[1]).toBe('kubectl replace --force -f job.yaml');
    expect(change.sideEffect).toMatch(/deletes the Job and its running pods/);
  });

  it('reads the owner first when the kind is unknown', () => {
    expect(editTemplate({ namespace: 'etl', name: 'import', pod: 'import-x7k2p' }).commands[0]).toBe(
      `kubectl -n etl get pod import-x7k2p -o jsonpath='{range .metadata.ownerReferences[*]}{.kind}/{.name}{"\\n"}{end}'`,
    );
  });
});

describe('setResourcesCommand', () => {
  it('names the container, so sidecars keep theirs', () => {
    expect(
      setResourcesCommand({ namespace: 'shop', kind: 'deployment', name: 'checkout' }, '--requests=memory=1Gi'),
    ).toBe('kubectl -n shop set resources deployment checkout -c <container> --requests=memory=1Gi');
  });

  it('gives none for a Job or an unknown owner', () => {
    expect(setResourcesCommand({ namespace: 'etl', kind: 'job', name: 'import' }, '--requests=cpu=1')).toBeUndefined();
    expect(setResourcesCommand({ namespace: 'etl', name: 'import' }, '--requests=cpu=1')).toBeUndefined();
  });
});

describe('a pod named like a StatefulSet pod (issue 31)', () => {
  it('reads the owner of spark-exec-1 before editing anything', () => {
    const workload = resolveWorkload('spark/statefulset/spark-exec', { pod: 'spark-exec-1' });
    expect(editTemplate(workload).commands).toEqual([
      `kubectl -n spark get pod spark-exec-1 -o jsonpath='{range .metadata.ownerReferences[*]}{.kind}/{.name}{"\\n"}{end}'`,
    ]);
    expect(setResourcesCommand(workload, '--requests=cpu=1')).toBeUndefined();
  });
});
