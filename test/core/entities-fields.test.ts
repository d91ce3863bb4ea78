import fc from 'fast-check';
import {
  CLAIM_POOL,
  claimPool,
  extractEntities,
  isNodePoolName,
  NODE_POOL_NAME,
  STORAGE_DRIVER,
  workloadOf,
  WORKLOAD_POD_NAMES,
} from '../../lambdas/core/entities';
import type { Entities, LogRecord } from '../../lambdas/core/model';
import { extractEntities as referenceEntities, workloadOf as referenceWorkloadOf } from '../support/entities-reference';

/**
 * What extraction reads outside the text (issue 17): the structured fields, the event's object, the
 * writing pod and the log stream, and the checks it runs on the names it finds (a NodePool's name, the
 * NodePool a NodeClaim's name holds) are read by hand instead of by expressions. These tests hold them
 * to the expressions they replace and the whole record to the frozen extractor
 * (test/support/entities-reference.ts): same kinds in the same order, same values in the same order.
 */

/** Every value of every kind, kinds in the order found. */
const ordered = (entities: Entities) => Object.entries(entities);

/** Names built from the characters the checks look at: letters, digits, dots, dashes, and others. */
const nameLike = fc
  .array(
    fc.constantFrom(
      ...'abcz09-.',
      'csi',
      '.csi',
      'csi.',
      '.com',
      '.io',
      '.org',
      '.net',
      '.aws',
      '.cn',
      'A',
      '_',
      '/',
      ' ',
      '\n',
      '\r',
      '\u2028',
      '\u2029',
      'é',
      'karpenter',
      'default',
      '-x7k2p',
      '-ABCDE',
      '-abcd',
    ),
    { maxLength: 12 },
  )
  .map((parts) => parts.join(''));
const longName = fc
  .tuple(fc.integer({ min: 240, max: 260 }), fc.constantFrom('a', 'a.', 'a-'))
  .map(([length, unit]) => unit.repeat(Math.ceil(length / unit.length)).slice(0, length));

describe('the checks read by hand', () => {
  it('property: isNodePoolName is the name pattern and not a storage driver', () => {
    fc.assert(
      fc.property(fc.oneof(nameLike, longName, fc.string()), (value) => {
        expect(isNodePoolName(value)).toBe(NODE_POOL_NAME.test(value) && !STORAGE_DRIVER.test(value));
      }),
      { numRuns: 20_000 },
    );
    for (const value of ['a', '0', 'a.b', 'ebs.csi.aws.com', 'csi', 'csi.x', 'x.csi', 'xcsi', 'csix', 'a.io', 'aio'])
      expect(isNodePoolName(value)).toBe(NODE_POOL_NAME.test(value) && !STORAGE_DRIVER.test(value));
  });

  it('property: claimPool is what CLAIM_POOL captures', () => {
    fc.assert(
      fc.property(fc.oneof(nameLike, fc.string()), (value) => {
        expect(claimPool(value)).toBe(CLAIM_POOL.exec(value)?.[1]);
      }),
      { numRuns: 20_000 },
    );
    for (const value of ['default-x7k2p', 'a-b-x7k2p', '-x7k2p', 'x-x7k2', 'a\n-x7k2p', 'a-X7K2P', 'ab-x7k2p\n'])
      expect(claimPool(value)).toBe(CLAIM_POOL.exec(value)?.[1]);
  });
});

/** The fields extraction reads, and others. */
const FIELD_NAMES = [
  'NodeClaim',
  'nodeclaim',
  'Machine',
  'machine',
  'NodePool',
  'nodepool',
  'Provisioner',
  'provisioner',
  'EC2NodeClass',
  'nodeclass',
  'AWSNodeTemplate',
  'Node',
  'node',
  'hostname',
  'instance-type',
  'zone',
  'capacity-type',
  'queue',
  'PersistentVolume',
  'persistent-volume',
  'volume',
  'Pod',
  'pod',
  'provider-id',
  'StorageClass',
  'storage-class',
  'level',
  'message',
  'error',
  'namespace',
  'name',
  // Keys that share a read key's first characters or length (ruled out, or looked up and not read).
  'nodeClaim',
  'nodeclaims',
  'mode',
  'n',
  '',
  'Po',
  'zones',
  'queued',
];
const fieldValue: fc.Arbitrary<unknown> = fc.oneof(
  nameLike,
  fc.constantFrom(
    'default-x7k2p',
    'ip-10-0-1-2.ec2.internal',
    'i-0123456789abcdef0',
    'ip-10-0-1-2',
    'node-1',
    'aws:///us-west-2a/i-0123456789abcdef0',
    'aws:///us-west-2a/i-01',
    'kubernetes.io/aws-ebs',
    'ebs.csi.aws.com',
    'karpenter',
    '',
    'web-6d8f7b9c54-8zr7n',
  ),
  fc.record({ name: nameLike }),
  fc.record({ name: nameLike, namespace: fc.constantFrom('', 'default', 'shop', 'karpenter') }),
  fc.record({ namespace: nameLike }),
  fc.constantFrom(null, 3, true, ['a'], undefined),
);
const fields: fc.Arbitrary<Record<string, unknown>> = fc
  .uniqueArray(fc.tuple(fc.constantFrom(...FIELD_NAMES), fieldValue), {
    maxLength: 8,
    selector: ([name]) => name,
  })
  .map((entries) => Object.fromEntries(entries));
const texts = fc.constantFrom(
  '',
  'launched nodeclaim',
  'could not schedule pod default/web-6d8f7b9c54-8zr7n, incompatible with nodepool "default"',
  'forbidden: User "system:serviceaccount:karpenter:karpenter" cannot list',
  'forbidden: User "system:serviceaccount:kube-system:karpenter-controller" cannot list',
  'forbidden: User "system:serviceaccount:kube-system:aws-node" cannot list',
  'InsufficientInstanceCapacity in us-west-2a for m5.large, subnet-0a1b2c3d4e5f60718',
  'nodeclaim/default-x7k2p and nodeclaim/gpu-abcde and machine/x-12345',
);
const objectRef = fc.record(
  {
    kind: fc.constantFrom(
      'Pod',
      'pod',
      'Node',
      'NodeClaim',
      'Machine',
      'NodePool',
      'Provisioner',
      'EC2NodeClass',
      'Event',
    ),
    namespace: fc.constantFrom('', 'default', 'karpenter', 'kube-system'),
    name: fc.constantFrom(
      'karpenter-6d8f7b9c54-8zr7n',
      'web-1',
      'default-x7k2p',
      'default',
      'ip-10-0-1-2.ec2.internal',
    ),
  },
  { requiredKeys: ['name'] },
);
const STREAMS = [
  undefined,
  'karpenter-0',
  'ip-10-0-1-2.ec2.internal-application.var.log.containers.karpenter-6d8f7b9c54-8zr7n_kube-system_controller-0123abcd',
  'x.karpenter-controller-6d8f7b9c54-8zr7n_karpenter_controller-0',
  'fluent-bit-x2x2x_amazon-cloudwatch_fluent-bit-0123abcd',
];
const record: fc.Arbitrary<LogRecord> = fc
  .record({
    text: texts,
    fields,
    object: fc.option(objectRef, { nil: undefined }),
    source: fc.option(objectRef, { nil: undefined }),
    logStream: fc.constantFrom(...STREAMS),
  })
  .map(({ text, fields, object, source, logStream }) => ({
    format: 'zap-json',
    text,
    summary: text,
    fields,
    event: object ? { reason: 'Test', object } : undefined,
    source,
    origin: { logGroup: '/aws/eks/prod', logStream },
  }));

/** What workloadOf answers by the expressions: the first that matches, its group. */
const byExpressions = (pod: string): string | undefined => {
  const slash = pod.indexOf('/');
  const namespace = slash > 0 ? pod.slice(0, slash) : 'default';
  const name = slash > 0 ? pod.slice(slash + 1) : pod;
  if (name.length > 253) return undefined;
  const kinds = ['deployment', 'statefulset', 'workload'];
  for (let i = 0; i < WORKLOAD_POD_NAMES.length; i++) {
    const match = WORKLOAD_POD_NAMES[i]!.exec(name);
    if (match) return `${namespace}/${kinds[i]!}/${match[1]!}`;
  }
  return undefined;
};
/** Pod names from the pieces the expressions read: hash characters, digits, dashes, and others. */
const podName = fc
  .tuple(
    fc.constantFrom('', 'shop/', 'default/', '/', 'a/b/'),
    fc.array(
      fc.constantFrom(
        ...'bcdz2459aeiou0136-.',
        '-',
        '--',
        'web',
        '-6d8f7b9c54',
        '-8zr7n',
        '-x7k2p',
        '-12',
        '-123456',
        '\n',
        '\u2028',
        'A',
        ' ',
        'x'.repeat(190),
        'y'.repeat(60),
      ),
      { maxLength: 10 },
    ),
  )
  .map(([namespace, parts]) => namespace + parts.join(''));

describe('workloads read by hand', () => {
  it('property: workloadOf answers as its expressions (and as the reference)', () => {
    fc.assert(
      fc.property(fc.oneof(podName, fc.string()), (pod) => {
        const expected = byExpressions(pod);
        expect(workloadOf(pod)).toBe(expected);
        expect(referenceWorkloadOf(pod)).toBe(expected);
      }),
      { numRuns: 30_000 },
    );
    for (const pod of [
      'shop/web-6d8f7b9c54-8zr7n',
      'web-6d8f7b9c-8zr7n',
      'web-6d8f7b9c54x-8zr7n',
      'db-0',
      'db-12345',
      'db-123456',
      'ds-8zr7n',
      '-8zr7n',
      'a-bcdfgh-bcdfg',
      'a-bcdfgh-bcdfgh-bcdfg',
      'a\n-bcdfg',
      `${'x'.repeat(200)}-bcdfg`,
      `${'x'.repeat(201)}-bcdfg`,
      `${'x'.repeat(195)}-bcdfghjklm-bcdfg`,
    ])
      expect(workloadOf(pod)).toBe(byExpressions(pod));
  });
});

describe('lists read by hand', () => {
  it('property: the PDBs of a bracketed list are those the reference extractor reads', () => {
    const list = fc
      .array(fc.constantFrom('shop/a', 'b/c-1', 'prose', 'x/Y', 'ns/z.', 'ns/q,', ' ', ',', ', ', '  ', ',,'), {
        maxLength: 8,
      })
      .map((parts) => parts.join(''));
    fc.assert(
      fc.property(list, fc.constantFrom('PodDisruptionBudget(s)=[', 'PodDisruptionBudget=['), (names, opening) => {
        const text = `cannot disrupt NodeClaim: pdb prevents pod evictions (${opening}${names}])`;
        const each: LogRecord = {
          format: 'plain',
          text,
          summary: text,
          fields: {},
          origin: {},
        };
        expect(ordered(extractEntities(each))).toEqual(ordered(referenceEntities(each)));
      }),
      { numRuns: 3000 },
    );
  });
});

describe('entities outside the text', () => {
  it('property: records with any of the fields read, event objects, writers and streams: same as the reference, in order', () => {
    fc.assert(
      fc.property(fc.array(record, { minLength: 1, maxLength: 6 }), (records) => {
        for (const each of records) expect(ordered(extractEntities(each))).toEqual(ordered(referenceEntities(each)));
      }),
      { numRuns: 3000 },
    );
  });
});
