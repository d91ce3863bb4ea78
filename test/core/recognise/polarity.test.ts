import { rulesOf } from '../../helpers';

const node = 'ip-10-0-1-7.ec2.internal';
const eventJson = (kind: string, reason: string, message: string, type = 'Normal') =>
  JSON.stringify({ involvedObject: { kind, name: kind === 'Node' ? node : 'default-abcde' }, type, reason, message });
const zapJson = (message: string) =>
  JSON.stringify({ level: 'INFO', time: '2026-11-30T13:00:00.000Z', logger: 'controller', message });
const zapConsole = (message: string) =>
  `2026-11-30T13:00:00.000Z\tINFO\tcontroller.node\t${message}\t{"commit": "1d7f91c"}`;
const statusIsNow = (reason: string) => `Node ${node} status is now: ${reason}`;

/**
 * Conditions and events that report health never fire, in every shape they are shipped in; the
 * transition to the failing state does (issue 11 item 4). Phrases are the kubelet's node status
 * reasons and messages, and Karpenter v1's status condition events.
 */
describe('condition polarity', () => {
  it.each([
    [
      'event JSON, NodeHasNoDiskPressure',
      eventJson('Node', 'NodeHasNoDiskPressure', statusIsNow('NodeHasNoDiskPressure')),
    ],
    [
      'event JSON, NodeHasSufficientMemory',
      eventJson('Node', 'NodeHasSufficientMemory', statusIsNow('NodeHasSufficientMemory')),
    ],
    ['event JSON, NodeReady', eventJson('Node', 'NodeReady', statusIsNow('NodeReady'))],
    [
      'event JSON, a recovery reason',
      eventJson('Node', 'RecoveredFromDiskPressure', 'Node recovered from disk pressure'),
    ],
    [
      'kubectl row, NodeHasNoDiskPressure',
      `5m   Normal   NodeHasNoDiskPressure   node/${node}   ${statusIsNow('NodeHasNoDiskPressure')}`,
    ],
    [
      'kubectl row, NodeHasSufficientPID',
      `5m   Normal   NodeHasSufficientPID   node/${node}   ${statusIsNow('NodeHasSufficientPID')}`,
    ],
    [
      'describe event, NodeHasNoDiskPressure',
      `  Normal  NodeHasNoDiskPressure  5m (x2 over 5m)  kubelet  ${statusIsNow('NodeHasNoDiskPressure')}`,
    ],
    [
      'describe condition, DiskPressure False',
      '  DiskPressure     False   Mon, 30 Nov 2026 13:00:00 +0000   Mon, 30 Nov 2026 12:00:00 +0000   KubeletHasNoDiskPressure     kubelet has no disk pressure',
    ],
    [
      'describe condition, Ready True',
      '  Ready            True    Mon, 30 Nov 2026 13:00:00 +0000   Mon, 30 Nov 2026 12:00:00 +0000   KubeletReady                 kubelet is posting ready status',
    ],
    [
      'zap JSON, DiskPressure True -> False',
      zapJson(
        'Status condition transitioned, Type: DiskPressure, Status: True -> False, Reason: KubeletHasNoDiskPressure',
      ),
    ],
    [
      'zap console, DiskPressure True -> False',
      zapConsole('Status condition transitioned, Type: DiskPressure, Status: True -> False'),
    ],
    [
      'event JSON, NodeClaim Ready -> True',
      eventJson(
        'NodeClaim',
        'Ready',
        'Status condition transitioned, Type: Ready, Status: False -> True, Reason: Ready',
      ),
    ],
    [
      'event JSON, EC2NodeClass SubnetsReady -> True',
      eventJson(
        'EC2NodeClass',
        'SubnetsReady',
        'Status condition transitioned, Type: SubnetsReady, Status: False -> True',
      ),
    ],
  ])('%s: silent', (_shape, line) => {
    expect(rulesOf(line)).toEqual([]);
  });

  it.each([
    [
      'event JSON, NodeHasDiskPressure',
      eventJson('Node', 'NodeHasDiskPressure', statusIsNow('NodeHasDiskPressure'), 'Warning'),
      'node-disk-pressure',
    ],
    [
      'kubectl row, NodeHasDiskPressure',
      `5m   Warning   NodeHasDiskPressure   node/${node}   ${statusIsNow('NodeHasDiskPressure')}`,
      'node-disk-pressure',
    ],
    [
      'describe event, NodeHasDiskPressure',
      `  Warning  NodeHasDiskPressure  5m  kubelet  ${statusIsNow('NodeHasDiskPressure')}`,
      'node-disk-pressure',
    ],
    [
      'describe condition, DiskPressure True',
      '  DiskPressure     True    Mon, 30 Nov 2026 13:00:00 +0000   Mon, 30 Nov 2026 12:00:00 +0000   KubeletHasDiskPressure       kubelet has disk pressure',
      'node-disk-pressure',
    ],
    [
      'describe condition, Ready False',
      '  Ready            False   Mon, 30 Nov 2026 13:00:00 +0000   Mon, 30 Nov 2026 12:00:00 +0000   KubeletNotReady              PLEG is not healthy: pleg was last seen active 3m0s ago',
      'node-not-ready',
    ],
    [
      'zap JSON, DiskPressure False -> True',
      zapJson(
        'Status condition transitioned, Type: DiskPressure, Status: False -> True, Reason: KubeletHasDiskPressure',
      ),
      'node-disk-pressure',
    ],
    [
      'zap console, DiskPressure False -> True',
      zapConsole('Status condition transitioned, Type: DiskPressure, Status: False -> True'),
      'node-disk-pressure',
    ],
    ['event JSON, NodeNotReady', eventJson('Node', 'NodeNotReady', statusIsNow('NodeNotReady')), 'node-not-ready'],
    [
      'event JSON, NodeClaim Ready -> False',
      eventJson('NodeClaim', 'Ready', 'Status condition transitioned, Type: Ready, Status: True -> False'),
      'node-not-ready',
    ],
    [
      'event JSON, EC2NodeClass SubnetsReady -> False',
      eventJson(
        'EC2NodeClass',
        'SubnetsReady',
        'Status condition transitioned, Type: SubnetsReady, Status: True -> False',
      ),
      'subnet-or-security-group-not-found',
    ],
  ])('%s: fires', (_shape, line, rule) => {
    expect(rulesOf(line)).toEqual([rule]);
  });

  it('a record stating a condition both healthy and failing keeps the failure', () => {
    expect(rulesOf(`${statusIsNow('NodeHasNoDiskPressure')}; ${statusIsNow('NodeHasDiskPressure')}`)).toEqual([
      'node-disk-pressure',
    ]);
  });

  it('a healthy condition removes only its own rule, not other causes in the record', () => {
    expect(
      rulesOf(
        `${statusIsNow('NodeHasNoDiskPressure')}, Warning OOMKilling Memory cgroup out of memory: Killed process 1`,
      ),
    ).toEqual(['oom-killed']);
  });
});
