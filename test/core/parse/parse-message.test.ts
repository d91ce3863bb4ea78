import { analyzeMessages } from '../../../lambdas/core/analyze';
import { assembleRecords } from '../../../lambdas/core/parse/assemble';
import { parseMessage } from '../../../lambdas/core/parse/parse-message';

const parse = (line: string) => parseMessage(line, { line: 1 })!;
const v1Line = JSON.stringify({
  level: 'ERROR',
  time: '2024-08-21T12:03:10.958Z',
  logger: 'controller',
  message: 'Reconciler error',
  NodeClaim: { name: 'default-v64qz' },
  error: 'missing required startup taint, karpenter.sh/unregistered',
});

describe('parseMessage', () => {
  it('reads Karpenter v1 zap JSON: message, error, level, time and fields', () => {
    const record = parse(v1Line);
    expect(record).toMatchObject({
      format: 'zap-json',
      level: 'ERROR',
      logger: 'controller',
      timeMs: Date.parse('2024-08-21T12:03:10.958Z'),
    });
    expect(record.text).toBe('Reconciler error | missing required startup taint, karpenter.sh/unregistered');
    expect(record.fields.NodeClaim).toEqual({ name: 'default-v64qz' });
  });

  it('adds errorCauses that the error does not already contain', () => {
    const record = parse(
      JSON.stringify({
        level: 'ERROR',
        message: 'could not schedule pod',
        error: 'a; b',
        errorCauses: [{ error: 'a' }, { error: 'c' }],
      }),
    );
    expect(record.text).toBe('could not schedule pod | a; b | c');
  });

  it('reads old zap JSON with msg and an epoch ts', () => {
    const record = parse('{"level":"info","ts":1612205335.409803,"msg":"Successfully requested 1 nodes"}');
    expect(record).toMatchObject({
      format: 'zap-json',
      level: 'INFO',
      text: 'Successfully requested 1 nodes',
      timeMs: Date.parse('2021-02-01T18:48:55.409Z'),
    });
  });

  it('reads the zap console format with tabs, with its fields and error', () => {
    const record = parse(
      '2022-02-16T17:58:09.522Z\tERROR\tcontroller.controller.provisioning\tReconciler error\t{"commit": "3d0d368", "error": "no subnets matched selector map[karpenter.sh/discovery:test]"}',
    );
    expect(record).toMatchObject({
      format: 'zap-console',
      level: 'ERROR',
      logger: 'controller.controller.provisioning',
      timeMs: Date.parse('2022-02-16T17:58:09.522Z'),
    });
    expect(record.text).toBe('Reconciler error | no subnets matched selector map[karpenter.sh/discovery:test]');
  });

  it('reads the console format with tabs turned into spaces, and a message containing JSON', () => {
    const record = parse(
      '2023-02-13T10:21:45.282Z        INFO    controller.provisioner  launching machine with 1 pods requesting {"cpu":"3125m"} from types r5a.xlarge    {"commit": "8c27519-dirty", "provisioner": "spot"}',
    );
    expect(record.logger).toBe('controller.provisioner');
    expect(record.text).toBe('launching machine with 1 pods requesting {"cpu":"3125m"} from types r5a.xlarge');
    expect(record.fields).toEqual({ commit: '8c27519-dirty', provisioner: 'spot' });
  });

  it('reads console fields whose error holds many nested objects', () => {
    // Karpenter's scheduler error names each NodePool with its daemonset overhead: one `{` per pool.
    const overhead = 'daemonset overhead={"cpu":"260m", "memory":"390Mi"}';
    const pools = ['a', 'b', 'c', 'd', 'e', 'f', 'g'].map(
      (pool) => `incompatible with nodepool "${pool}", ${overhead}`,
    );
    const fields = { commit: '0871602', Pod: { name: 'inflate-5cd8878fd4-89dhc', namespace: 'default' } };
    const record = parse(
      `2025-04-24T05:21:22.451Z\tERROR\tcontroller\tcould not schedule pod\t${JSON.stringify({ ...fields, error: pools.join('; ') })}`,
    );
    expect(record).toMatchObject({ logger: 'controller', fields: { Pod: { name: 'inflate-5cd8878fd4-89dhc' } } });
    expect(record.text).toBe(`could not schedule pod | ${pools.join('; ')}`);
  });

  it('reads console lines of builds without a logger column', () => {
    const record = parse(
      '2021-06-25T15:00:54.416Z        DEBUG   Excluding instance type t3.nano because there are not enough resources for kubelet',
    );
    expect(record).toMatchObject({ format: 'zap-console', level: 'DEBUG', logger: undefined });
    expect(record.text).toMatch(/^Excluding instance type/);
  });

  it('unwraps a Fluent Bit record whose log is a CRI-prefixed Karpenter JSON line', () => {
    const record = parse(
      JSON.stringify({
        log: `2025-06-25T07:59:24.583353879Z stderr F ${v1Line}`,
        kubernetes: { pod_name: 'karpenter-57f84c84b9-9xknz', namespace_name: 'karpenter' },
      }),
    );
    expect(record.format).toBe('zap-json');
    expect(record.source).toEqual({
      kind: 'Pod',
      name: 'karpenter-57f84c84b9-9xknz',
      namespace: 'karpenter',
      container: '',
    });
    expect(record.text).toContain('missing required startup taint');
  });

  it.each(['log_processed', 'data'])('prefers the merged %s object of a Fluent Bit record', (key) => {
    const record = parse(
      JSON.stringify({ log: 'ignored', [key]: JSON.parse(v1Line), kubernetes: { pod_name: 'p-abcde' } }),
    );
    expect(record.text).toContain('missing required startup taint');
  });

  it('reads a Kubernetes Event object with involvedObject', () => {
    const record = parse(
      JSON.stringify({
        involvedObject: { kind: 'Pod', namespace: 'ml', name: 'web-7d9f8c6b5d-k2m4p' },
        reason: 'FailedScheduling',
        message: '0/3 nodes are available: 3 Insufficient cpu.',
        type: 'Warning',
        source: { component: 'default-scheduler' },
        lastTimestamp: '2024-03-25T12:38:11Z',
        count: 4,
      }),
    );
    expect(record).toMatchObject({
      format: 'k8s-event',
      timeMs: Date.parse('2024-03-25T12:38:11Z'),
      text: 'FailedScheduling | 0/3 nodes are available: 3 Insufficient cpu.',
    });
    expect(record.event).toEqual({
      reason: 'FailedScheduling',
      type: 'Warning',
      object: { kind: 'Pod', namespace: 'ml', name: 'web-7d9f8c6b5d-k2m4p' },
      component: 'default-scheduler',
      count: 4,
    });
  });

  it('reads the flattened exporter shape with eventMessage and eventNamespace', () => {
    const record = parse(
      '{"eventNamespace":"default","involvedObject":{"kind":"Node","name":"ip-172-31-6-136.eu-central-1.compute.internal"},"reason":"DisruptionBlocked","eventMessage":"Cannot disrupt Node: Pod \\"default/cdp\\" has \\"karpenter.sh/do-not-disrupt\\" annotation","source":{"component":"karpenter"},"type":"Normal"}',
    );
    expect(record.event?.object).toEqual({
      kind: 'Node',
      namespace: 'default',
      name: 'ip-172-31-6-136.eu-central-1.compute.internal',
    });
    expect(record.text).toContain('do-not-disrupt');
  });

  it('reads events.k8s.io/v1 events (regarding, note)', () => {
    const record = parse(
      JSON.stringify({
        regarding: { kind: 'Pod', name: 'x-abcde', namespace: 'n' },
        reason: 'FailedMount',
        note: 'MountVolume.SetUp failed',
      }),
    );
    expect(record.text).toBe('FailedMount | MountVolume.SetUp failed');
  });

  it('reads kubectl get events rows, with and without a namespace column', () => {
    const row = parse(
      '3m39s       Normal    DisruptionBlocked                nodeclaim/general-purpose-5c74h   Node is nominated for a pending pod',
    );
    expect(row.event).toMatchObject({
      type: 'Normal',
      reason: 'DisruptionBlocked',
      object: { kind: 'NodeClaim', name: 'general-purpose-5c74h' },
    });
    expect(row.text).toBe('DisruptionBlocked | Node is nominated for a pending pod');
    const withNamespace = parse(
      'payments   2m   Warning   FailedScheduling   pod/api-6f7c9d8b4-x2x2x   0/3 nodes are available',
    );
    expect(withNamespace.event?.object).toEqual({ kind: 'Pod', name: 'api-6f7c9d8b4-x2x2x', namespace: 'payments' });
  });

  it("keeps a row's resource as its kind when it names a member every object inherits", () => {
    // `constructor` is a word of the row, not a kind: the lookup once returned Object's constructor
    // function, and the entity extraction that lower-cases a kind threw, failing the whole delivery.
    const lines = [
      '3m   Warning   FailedScheduling   constructor/web-1   0/3 nodes are available: 3 Insufficient cpu.',
      '  Warning  FailedScheduling  Constructor.core/web-1  0/3 nodes are available: 3 Insufficient cpu.',
    ];
    expect(parse(lines[0]!).event?.object).toEqual({ kind: 'constructor', name: 'web-1' });
    expect(parse(lines[1]!).event?.object).toEqual({ kind: 'Constructor.core', name: 'web-1' });
    const messages = lines.map((message, index) => ({ message, origin: { line: index + 1 } }));
    expect(() => analyzeMessages(messages, 'prod')).not.toThrow();
  });

  it('reads kubectl describe event rows with age, count and source', () => {
    const record = parse(
      "  Normal  Unconsolidatable  14m (x6 over 3h25m)  karpenter  Can't replace a spot node with a spot node",
    );
    expect(record.event).toEqual({ type: 'Normal', reason: 'Unconsolidatable', component: 'karpenter', count: 6 });
    expect(record.text).toBe("Unconsolidatable | Can't replace a spot node with a spot node");
  });

  it('strips kubectl --prefix and pod/container prefixes', () => {
    expect(parse('[pod/karpenter-5f689ff758-jhxdr/controller] {"level":"ERROR","message":"x"}').source?.name).toBe(
      'karpenter-5f689ff758-jhxdr',
    );
    const record = parse(
      'karpenter-f4d59d8ff-nvf9v controller 2022-04-22T22:55:02.881Z\tINFO\tcontroller\tBatched 1 pod(s) in 1.000856504s\t{"commit": "64fe6ef"}',
    );
    expect(record).toMatchObject({ format: 'zap-console', level: 'INFO', text: 'Batched 1 pod(s) in 1.000856504s' });
  });

  it('reads klog lines', () => {
    const record = parse(
      'E0206 17:26:20.694975       1 leaderelection.go:361] Failed to update lock: context deadline exceeded',
    );
    expect(record).toMatchObject({
      format: 'klog',
      level: 'ERROR',
      logger: 'leaderelection.go:361',
      text: 'Failed to update lock: context deadline exceeded',
    });
  });

  describe('node-level lines (Container Insights dataplane and host groups, journalctl, /var/log/messages)', () => {
    const kubeletKlog =
      'E0315 08:41:07.118204    2931 kubelet_node_status.go:96] "Unable to register node with API server" err="Unauthorized" node="ip-10-20-3-41.eu-west-1.compute.internal"';

    it('strips a syslog prefix and reads the klog line after it, keeping the host', () => {
      const record = parse(`Mar 15 08:41:07 ip-10-20-3-41 kubelet[2931]: ${kubeletKlog}`);
      expect(record).toMatchObject({ format: 'klog', level: 'ERROR', logger: 'kubelet_node_status.go:96' });
      expect(record.text).toContain('Unable to register node with API server');
      expect(record.fields).toMatchObject({ hostname: 'ip-10-20-3-41', unit: 'kubelet' });
    });

    it('strips a journalctl short-iso prefix', () => {
      const record = parse(
        '2025-03-15T08:41:07+0000 ip-10-20-3-41.eu-west-1.compute.internal nodeadm[1874]: fatal cli/main.go:35 Command failed {"error": "could not find NodeConfig within UserData"}',
      );
      expect(record.text).toMatch(/^fatal cli\/main\.go:35 Command failed/);
      expect(record.fields).toMatchObject({ hostname: 'ip-10-20-3-41.eu-west-1.compute.internal', unit: 'nodeadm' });
    });

    it('reads a dataplane journal record: the message is a kubelet line, the hostname a node', () => {
      const record = parse(
        JSON.stringify({
          hostname: 'ip-10-20-3-41.eu-west-1.compute.internal',
          systemd_unit: 'kubelet.service',
          message: kubeletKlog,
        }),
      );
      expect(record).toMatchObject({ format: 'klog', level: 'ERROR' });
      expect(record.fields).toMatchObject({
        hostname: 'ip-10-20-3-41.eu-west-1.compute.internal',
        unit: 'kubelet.service',
      });
    });

    it('reads a host record from /var/log/messages', () => {
      const record = parse(
        JSON.stringify({ host: 'ip-10-20-3-41', ident: 'kubelet', pid: '2931', message: kubeletKlog }),
      );
      expect(record).toMatchObject({ format: 'klog', logger: 'kubelet_node_status.go:96' });
    });

    it('leaves zap console lines and Karpenter JSON alone', () => {
      expect(parse('2024-01-02T15:04:05.000Z\tERROR\tcontroller\tReconciler error')).toMatchObject({
        format: 'zap-console',
      });
      expect(parse(JSON.stringify({ level: 'INFO', message: 'x', systemd_unit: 'y' }))).toMatchObject({
        format: 'zap-json',
      });
    });
  });

  it('returns undefined for blank input and plain records for anything else', () => {
    expect(parseMessage('   \n', {})).toBeUndefined();
    expect(parse('panic: Unable to start manager, leader election lost')).toMatchObject({ format: 'plain' });
    expect(parse('{"broken": ')).toMatchObject({ format: 'plain', text: '{"broken":' });
  });
});

describe('assembleRecords', () => {
  const messages = (lines: string[], stream = 's') =>
    lines.map((message, i) => ({ message, origin: { logStream: stream, line: i + 1 } }));

  it('joins AWS SDK continuation lines to the record before them', () => {
    const records = [
      ...assembleRecords(
        messages([
          '2022-09-05T12:16:18.813Z\tERROR\tcontroller.aws.pricing\tupdating spot pricing, UnauthorizedOperation: You are not authorized to perform this operation.',
          '\tstatus code: 403, request id: 8f99fa14, using existing pricing data from 2022-08-17T00:19:52Z\t{"commit": "3d87474"}',
          '2022-09-05T12:16:19.000Z\tINFO\tcontroller\tnext',
        ]),
      ),
    ];
    expect(records).toHaveLength(2);
    expect(records[0]!.text).toContain('status code: 403');
    expect(records[0]!.fields).toEqual({ commit: '3d87474' });
    expect(records[0]!.origin.line).toBe(1);
  });

  it('never joins lines of different streams', () => {
    const records = [...assembleRecords([...messages(['ERROR a']), ...messages(['caused by: b'], 'other')])];
    expect(records).toHaveLength(2);
  });

  it('gives kubectl describe event rows the described object', () => {
    const records = [
      ...assembleRecords(
        messages([
          'Name:         web-7d9f8c6b5d-k2m4p',
          'Namespace:    shop',
          'Events:',
          '  Warning  FailedScheduling  2m  default-scheduler  0/3 nodes are available: 3 Insufficient cpu.',
        ]),
      ),
    ];
    expect(records.at(-1)!.event?.object).toEqual({ kind: 'Pod', name: 'web-7d9f8c6b5d-k2m4p', namespace: 'shop' });
  });
});
