import { analyzeMessages } from '../../../lambdas/core/analyze';
import type { RuleId } from '../../../lambdas/core/recognise/rules';
import { rulesOf } from '../../helpers';

/**
 * Every error message quoted in the seed article (the AWS Knowledge Center article on troubleshooting
 * Karpenter scaling, in Spanish), verbatim between «», with the rule its section stands for. §13
 * (consolidation) quotes no message.
 */
const SEED_MESSAGES: ReadonlyArray<readonly [section: string, rule: RuleId, message: string]> = [
  [
    '§2',
    'volume-attach-limit',
    'Warning FailedAttachVolume pod/example-pod AttachVolume. Attach failed for volume " " : rpc error: code = Internal desc = Could not attach volume " " to node " ": attachment of disk " " failed, expected device to be attached but was attaching',
  ],
  [
    '§2',
    'volume-mount-timeout',
    'Warning FailedMount pod/example-pod Unable to attach or mount volumes: unmounted volumes=[], unattached volumes=[]: timed out waiting for the condition',
  ],
  [
    '§3',
    'in-tree-storage-plugin',
    "ERROR controller.node_state PersistentVolume source 'AWSElasticBlockStore' uses an in-tree storage plugin which is unsupported by Karpenter and is deprecated by Kubernetes",
  ],
  [
    '§4',
    'oom-killed',
    'Warning OOMKilled pod/your-pod-name Container "container-name" was killed due to OOM (Out of Memory). Memory limit: 512Mi, Memory usage: 513Mi',
  ],
  [
    '§5',
    'windows-image-platform-mismatch',
    'Failed to pull image "mcr.microsoft.com/windows/servercore:xxx": rpc error: code = NotFound desc = failed to pull and unpack image "mcr.microsoft.com/windows/servercore:xxx": no match for platform in manifest: not found',
  ],
  ['§6', 'node-not-ready', 'Nodes provisioned by Karpenter are in a NotReady state'],
  [
    '§7',
    'scheduling-affinity-topology',
    "Warning FailedScheduling pod/\"pod-name\" 0/3 nodes are available: 1 node(s) didn't match pod affinity rules, 2 node(s) didn't match pod topology spread constraints rules, 3 nodes(s) didn't match inter-pod anti-affinity rules",
  ],
  [
    '§8',
    'scheduling-insufficient-resources',
    'Warning FailedScheduling 30s (x13 over 60m) default-scheduler 0/5 nodes are available: 1 Insufficient memory. preemption: 0/5 nodes are available: 5 No preemption victims found for incoming pod',
  ],
  [
    '§9',
    'scheduling-untolerated-taint',
    "0/5 nodes are available: 3 node(s) had taint {dedicated: gpu}, that the pod didn't tolerate, 2 node(s) had taint {dedicated: non-gpu}, that the pod didn't tolerate",
  ],
  [
    '§10',
    'scheduling-node-selector-mismatch',
    "Warning FailedScheduling  3m    default-scheduler 0/4 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, 3 node(s) didn't satisfy existing pods anti-affinity rules, 4 node(s) didn't match Pod's node affinity rules",
  ],
  [
    '§11',
    'subnet-ip-exhaustion',
    '"error": "creating machine, creating instance, with fleet error(s), InsufficientFreeAddressesInSubnet: There are not enough free addresses in subnet \'subnet-a to satisfy the requested number of instances"',
  ],
  [
    '§12',
    'incompatible-requirements',
    'incompatible requirements, label \\"eks.amazonaws.com/nodegroup\\" does not have known values"',
  ],
  [
    '§12',
    'incompatible-requirements',
    'incompatible requirements, key topology.kubernetes.io/zone, topology.kubernetes.io/zone In [us-east-1a] not in topology.kubernetes.io/zone In [us-east-1b us-east-1c]',
  ],
  [
    '§12',
    'incompatible-requirements',
    'incompatible requirements, key nodes.ktp.io/role, nodes.ktp.io/role In [ktp-atom-apps] not in nodes.ktp.io/role In [kube-apps]',
  ],
];

describe('seed article error messages', () => {
  it.each(SEED_MESSAGES)('%s message yields %s', (_section, rule, message) => {
    expect(rulesOf(message)).toContain(rule);
  });

  it('§1: the FailedScheduling message on a Karpenter pod yields karpenter-controller-unschedulable', () => {
    // The seed quotes the event as `kubectl describe pod` shows it for the Karpenter pod.
    const describe = [
      'Name:             karpenter-5f689ff758-jhxdr',
      'Namespace:        karpenter',
      'Status:           Pending',
      'Events:',
      '  Type     Reason            Age   From               Message',
      '  ----     ------            ----  ----               -------',
      '  Warning FailedScheduling 3m default-scheduler 0/1 nodes are available: 1 Insufficient memory',
    ];
    const { incidents } = analyzeMessages(
      describe.map((message, index) => ({ message, origin: { file: 'describe.txt', line: index + 1 } })),
      'demo',
    );
    expect(incidents.map((i) => i.rule)).toEqual(['karpenter-controller-unschedulable']);
    expect(incidents[0]!.entities.pods).toEqual(['karpenter/karpenter-5f689ff758-jhxdr']);
  });

  it('§1: the same message about any other pod is a resource shortage, not a controller outage', () => {
    expect(
      rulesOf('Warning FailedScheduling 3m default-scheduler 0/1 nodes are available: 1 Insufficient memory'),
    ).toEqual(['scheduling-insufficient-resources']);
  });
});
