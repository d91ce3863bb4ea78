import type { RuleId } from '../../../lambdas/core/recognise/rules';
import { rulesOf } from '../../helpers';

/**
 * Issue 29, node-level half: the families of the node agents around Karpenter (kubelet, node lifecycle
 * controller, nodeadm, cloud-init, AL2 bootstrap.sh, Bottlerocket, VPC CNI, Cilium, Calico, EBS CSI),
 * each message written from its emitter's template (the shared node-and-scheduler message reference
 * names file and commit) and put in the envelopes it reaches us in. None is a line of the released file.
 */
const journald = (ident: string, line: string) => `Feb 02 03:47:49 ip-10-0-1-2 ${ident}[1234]: ${line}`;
const journalIso = (ident: string, line: string) =>
  `2025-02-02T03:47:49+0000 ip-10-0-1-2.us-west-2.compute.internal ${ident}[1234]: ${line}`;
const klog = (file: string, message: string) => `E0202 03:47:49.101234    1234 ${file}] ${message}`;
const dataplane = (unit: string, message: string) =>
  JSON.stringify({ hostname: 'ip-10-0-1-2.us-west-2.compute.internal', systemd_unit: unit, message });
const hostRecord = (ident: string, message: string) =>
  JSON.stringify({ host: 'ip-10-0-1-2', ident, pid: '1234', message });
const eventJson = (kind: string, name: string, reason: string, message: string, component = 'kubelet') =>
  JSON.stringify({ involvedObject: { kind, name }, reason, message, type: 'Warning', source: { component } });
const getEventsRow = (object: string, reason: string, message: string) =>
  `default   4m   Warning   ${reason}   ${object}   ${message}`;
const describeRow = (reason: string, message: string, from = 'kubelet') =>
  `  Warning  ${reason}  4m (x3 over 9m)  ${from}  ${message}`;
const ipamd = (msg: string, level = 'error') =>
  JSON.stringify({ level, ts: '2025-02-02T03:47:49.311Z', caller: 'ipamd/ipamd.go:1110', msg });
const sandbox = (cni: string, error: string) =>
  `Failed to create pod sandbox: rpc error: code = Unknown desc = failed to setup network for sandbox "4c1f9e": plugin type="${cni}" name="${cni}" failed (add): ${error}`;

type Case = readonly [string, string];

/** Each family: lines that must yield exactly this rule (the right cause, not also a neighbour). */
const families: ReadonlyArray<readonly [RuleId, readonly Case[]]> = [
  [
    'node-bootstrap-failed',
    [
      ['nodeadm unit, journald', journald('systemd', 'Failed to start nodeadm-run.service - EKS Nodeadm Run.')],
      ['nodeadm unit, console, name cut by systemd', '[FAILED] Failed to start nodeadm-ru.service - EKS Nodeadm Run.'],
      ['nodeadm unit exit', journald('systemd', "nodeadm-config.service: Failed with result 'exit-code'.")],
      [
        'nodeadm binary refused',
        journald(
          '(nodeadm)',
          'nodeadm-run.service: Failed to locate executable /usr/bin/nodeadm: No such file or directory',
        ),
      ],
      [
        'nodeadm error, host record',
        hostRecord('nodeadm', 'fatal cli/main.go:35 Command failed {"error": "no config in chain"}'),
      ],
      [
        'nodeadm retrying EC2, ISO journal',
        journalIso('nodeadm', 'SDK 2025/02/02 03:47:49 DEBUG retrying request EC2/DescribeInstances, attempt 3'),
      ],
      ['kubelet unit', journald('systemd', 'Dependency failed for kubelet.service - Kubernetes Kubelet.')],
      ['kubelet unit exit', journald('systemd', 'kubelet.service: Main process exited, code=exited, status=1/FAILURE')],
      [
        'kubelet flag removed, dataplane',
        dataplane(
          'kubelet.service',
          klog(
            'run.go:74',
            '"command failed" err="failed to parse kubelet flag: unknown flag: --pod-infra-container-image"',
          ),
        ),
      ],
      [
        'kubelet in-tree cloud provider, klog',
        klog(
          'server.go:211',
          '"command failed" err="cloud provider \\"aws\\" was specified, but built-in cloud providers are disabled. Please set --cloud-provider=external and migrate to an external cloud provider"',
        ),
      ],
      [
        'kubelet node from lister (v1.27+)',
        journald(
          'kubelet',
          klog(
            'kubelet_node_status.go:96',
            '"Error getting the current node from lister" err="node \\"ip-10-0-1-2\\" not found"',
          ),
        ),
      ],
      [
        'node lease never created, describe node',
        'Lease:              Failed to get lease: leases.coordination.k8s.io "ip-10-0-1-2.us-west-2.compute.internal" not found',
      ],
      [
        'AL2 bootstrap.sh missing, bash',
        '/var/lib/cloud/instance/scripts/part-002: line 12: /etc/eks/bootstrap.sh: No such file or directory',
      ],
      [
        'AL2 bootstrap.sh missing, dash',
        journald('cloud-init', '/var/lib/cloud/instance/scripts/part-001: 3: /etc/eks/bootstrap.sh: not found'),
      ],
      [
        'AL2 bootstrap.sh error',
        '2025-02-02T03:47:49+0000 [eks-bootstrap] ERROR: Invalid --ip-family. Only ipv4 or ipv6 are allowed',
      ],
      [
        'cloud-init script exit',
        journald(
          'cloud-init',
          '2025-02-02 03:47:49,117 - util.py[WARNING]: Failed running /var/lib/cloud/instance/scripts/part-001 [1]',
        ),
      ],
      [
        'cloud-init module, older wording',
        'Feb 02 03:47:49 cloud-init[1234]: cc_scripts_user.py[WARNING]: Failed to run module scripts-user (scripts in /var/lib/cloud/instance/scripts)',
      ],
      [
        'Bottlerocket settings PATCH',
        "[    7.100200] early-boot-config[1432]: Error PATCHing '/settings?tx=bottlerocket-launch': Status 400 when PATCHing /settings?tx=bottlerocket-launch: Json deserialize error: unknown field `cluster-nam`",
      ],
      [
        'Bottlerocket provider',
        journald(
          'early-boot-config',
          "Provider '/usr/libexec/early-boot-config/data-providers.d/20-aws-imds' failed: exit status 1",
        ),
      ],
      ['Bottlerocket pluto', journald('pluto', 'Timed out retrieving private DNS name from EC2: deadline has elapsed')],
      ['Bottlerocket unit', '[FAILED] Failed to start User-specified setting generators.'],
    ],
  ],
  [
    'node-not-ready',
    [
      [
        'PLEG, journald klog',
        journald(
          'kubelet',
          klog(
            'kubelet.go:2422',
            '"Skipping pod synchronization" err="PLEG is not healthy: pleg was last seen active 3m2s ago; threshold is 3m0s"',
          ),
        ),
      ],
      [
        'PLEG, older printf klog',
        klog(
          'kubelet.go:1879',
          'skipping pod synchronization - [PLEG is not healthy: pleg was last seen active 3m0.58s ago; threshold is 3m0s]',
        ),
      ],
      [
        'runtime down, describe node',
        '  Ready   False   Mon, 02 Feb 2025 03:52:12 +0000   Mon, 02 Feb 2025 03:40:02 +0000   KubeletNotReady   container runtime is down',
      ],
      [
        'never posted, describe node',
        '  Ready   Unknown   Mon, 02 Feb 2025 03:52:12 +0000   Mon, 02 Feb 2025 03:53:02 +0000   NodeStatusNeverUpdated   Kubelet never posted node status.',
      ],
      ['lease updates failing', klog('controller.go:121', 'failed 5 attempts to update lease')],
      [
        'AddNetwork refused, event row',
        getEventsRow(
          'pod/coredns-5d8f7c9b6-x2x4q',
          'FailedCreatePodSandBox',
          sandbox(
            'aws-cni',
            'add cmd: Error received from AddNetwork gRPC call: rpc error: code = Unavailable desc = connection error: desc = "transport: Error while dialing: dial tcp 127.0.0.1:50051: connect: connection refused"',
          ),
        ),
      ],
      [
        'Cilium agent down, Event JSON',
        eventJson(
          'Pod',
          'api-0',
          'FailedCreatePodSandBox',
          sandbox(
            'cilium-cni',
            'unable to connect to Cilium agent: failed to create cilium agent client after 30.000000 seconds timeout',
          ),
        ),
      ],
      [
        'Calico node missing',
        describeRow(
          'FailedCreatePodSandBox',
          sandbox(
            'calico',
            'stat /var/lib/calico/nodename: no such file or directory: check that the calico/node container is running and has mounted /var/lib/calico/',
          ),
        ),
      ],
      [
        'pause image pull',
        describeRow(
          'FailedCreatePodSandBox',
          'Failed to create pod sandbox: rpc error: code = Unknown desc = failed to get sandbox image "602401143452.dkr.ecr.us-west-2.amazonaws.com/eks/pause:3.10": failed to pull image "602401143452.dkr.ecr.us-west-2.amazonaws.com/eks/pause:3.10": failed to resolve reference: not found',
        ),
      ],
      [
        'aws-node threads',
        'aws-node-x7k2p aws-node runtime: failed to create new OS thread (have 12 already; errno=11)',
      ],
    ],
  ],
  [
    'node-join-unauthorized',
    [
      [
        'reflector, journald',
        journald(
          'kubelet',
          klog(
            'reflector.go:147',
            'k8s.io/client-go/informers/factory.go:159: Failed to watch *v1.Service: failed to list *v1.Service: Unauthorized',
          ),
        ),
      ],
      [
        'reflector, Unhandled Error',
        dataplane(
          'kubelet.service',
          klog(
            'reflector.go:158',
            '"Unhandled Error" err="k8s.io/client-go/informers/factory.go:160: Failed to watch *v1.CSIDriver: failed to list *v1.CSIDriver: Unauthorized" logger="UnhandledError"',
          ),
        ),
      ],
    ],
  ],
  [
    'oom-killed',
    [
      [
        'SystemOOM, event row',
        getEventsRow(
          'node/ip-10-0-1-2.us-west-2.compute.internal',
          'SystemOOM',
          'System OOM encountered, victim process: node, pid: 90211',
        ),
      ],
      ['SystemOOM, Event JSON without victim', eventJson('Node', 'ip-10-0-1-2', 'SystemOOM', 'System OOM encountered')],
      ['kernel memcg', '[ 8123.551201] Memory cgroup out of memory: Killed process 41872 (java) total-vm:8123340kB'],
    ],
  ],
  [
    'subnet-ip-exhaustion',
    [
      [
        'ipamd, subnet short',
        ipamd(
          "Unable to attach IPs/Prefixes for the ENI, subnet doesn't seem to have enough IPs/Prefixes. Consider using new subnet or carve a reserved range using create-subnet-cidr-reservation",
        ),
      ],
      ['ipamd, older empty pool', ipamd('assignPodIPv4AddressUnsafe: no available IP/Prefix addresses')],
      [
        'ipamd, ENI attachment limit',
        ipamd(
          'Failed to attach ENI eni-0abc12: AttachmentLimitExceeded: Interface count 3 exceeds the limit for t3.medium',
        ),
      ],
      [
        'aws-cni sandbox',
        describeRow(
          'FailedCreatePodSandBox',
          sandbox('aws-cni', 'add cmd: failed to assign an IP address to container'),
        ),
      ],
      [
        'Cilium multi-pool',
        describeRow(
          'FailedCreatePodSandBox',
          sandbox(
            'cilium-cni',
            'unable to allocate IP via local cilium agent: [POST /ipam][502] postIpamFailure  all CIDR ranges are exhausted',
          ),
        ),
      ],
      [
        'Cilium ENI, newer wording',
        eventJson(
          'Pod',
          'web-0',
          'FailedCreatePodSandBox',
          sandbox(
            'cilium-cni',
            'unable to allocate IP via local cilium agent: [POST /ipam][502] postIpamFailure  no IPs currently available on the node, allocation will be retried once Cilium Operator allocates more IPs',
          ),
        ),
      ],
      [
        'Calico pools',
        getEventsRow(
          'pod/web-7f9c-x2x4q',
          'FailedCreatePodSandBox',
          sandbox(
            'calico',
            'failed to request IPv4 addresses: Assigned 0 out of 1 requested IPv4 addresses; No IPs available in pools: [10.244.0.0/16]',
          ),
        ),
      ],
      [
        'Calico block limit',
        '2025-02-02 03:55:09.118 [ERROR][3012] ipam/ipam.go 1021: Need to allocate an IPAM block but could not - limit of 20 blocks reached for this node',
      ],
    ],
  ],
  [
    'prefix-delegation-fragmentation',
    [
      [
        'ipamd back-off',
        ipamd('Recently we had InsufficientCidr error hence will wait for 2m0s before retrying', 'warn'),
      ],
      [
        'ipamd, EC2 code beside the subnet line',
        ipamd(
          'Failed to allocate a private IP/Prefix addresses on ENI eni-0d7357: InsufficientCidrBlocks: The specified subnet does not have enough free cidr blocks to satisfy the request.',
        ),
      ],
    ],
  ],
  [
    'volume-mount-timeout',
    [
      [
        'Multi-Attach, describe row',
        describeRow(
          'FailedAttachVolume',
          'Multi-Attach error for volume "pvc-0f1e" Volume is already used by pod(s) redis-0',
          'attachdetach-controller',
        ),
      ],
      [
        'Multi-Attach, Event JSON',
        eventJson(
          'Pod',
          'redis-1',
          'FailedAttachVolume',
          'Multi-Attach error for volume "pvc-0f1e" Volume is already exclusively attached to one node and can\'t be attached to another',
          'attachdetach-controller',
        ),
      ],
      [
        'external-attacher timeout',
        getEventsRow(
          'pod/postgres-0',
          'FailedAttachVolume',
          'AttachVolume.Attach failed for volume "pvc-1629" : timed out waiting for external-attacher of ebs.csi.aws.com CSI driver to attach volume vol-0abc123def4567890',
        ),
      ],
      [
        'EBS CSI wait',
        klog(
          'driver.go:107',
          '"GRPC error" err="rpc error: code = Internal desc = Could not attach volume \\"vol-0abc\\" to node \\"i-0123\\": error waiting for volume attachment: context deadline exceeded"',
        ),
      ],
    ],
  ],
  [
    'volume-attach-limit',
    [
      [
        'EBS CSI limit',
        klog(
          'driver.go:107',
          '"GRPC error" err="rpc error: code = ResourceExhausted desc = Attachment limit exceeded for volume \\"vol-0abc\\" on node \\"i-0123\\": AttachmentLimitExceeded"',
        ),
      ],
      [
        'attach event with the limit',
        describeRow(
          'FailedAttachVolume',
          'AttachVolume.Attach failed for volume "pvc-1629" : rpc error: code = Internal desc = Could not attach volume "vol-0abc" to node "i-0123": attachment of disk "vol-0abc" failed, expected device to be attached but was attaching',
          'attachdetach-controller',
        ),
      ],
    ],
  ],
  [
    'node-not-initialized',
    [
      [
        'node-driver-registrar',
        klog(
          'main.go:123',
          'Registration process failed with error: RegisterPlugin error -- plugin registration failed with err: rpc error: code = Unavailable, restarting registration container.',
        ),
      ],
      [
        'kubelet CSINode',
        journald(
          'kubelet',
          klog('csi_plugin.go:300', 'Failed to initialize CSINode after retrying: timed out waiting for the condition'),
        ),
      ],
    ],
  ],
  [
    'node-disk-pressure',
    [
      [
        'ephemeral limit eviction',
        getEventsRow(
          'pod/builder-7f9c',
          'Evicted',
          'Pod ephemeral local storage usage exceeds the total limit of containers 2Gi.',
        ),
      ],
      ['emptyDir eviction', describeRow('Evicted', 'Usage of EmptyDir volume "cache" exceeds the limit "1Gi".')],
      [
        'eviction manager',
        klog('eviction_manager.go:366', '"Eviction manager: attempting to reclaim" resourceName="ephemeral-storage"'),
      ],
    ],
  ],
];

/**
 * Released real lines (the shared real-lines-train set) that the rule modules cannot carry as
 * examples: the default subscription filter (15 characters under CloudWatch's limit) has no term for them,
 * so they are recognised when pasted or read from a file, not when subscribed.
 */
const releasedBeyondFilter: ReadonlyArray<readonly [string, RuleId, string]> = [
  ['train-190 (aws/karpenter-provider-aws#8720)', 'node-not-initialized', 'Node not registered with cluster'],
  [
    'train-259 (terraform-aws-modules/terraform-aws-eks#1179)',
    'node-bootstrap-failed',
    '/var/lib/cloud/instance/scripts/part-001: line 7: /etc/eks/bootstrap.sh: No such file or directory',
  ],
  [
    'train-242 (awslabs/amazon-eks-ami#2632)',
    'node-bootstrap-failed',
    'Feb 19 07:57:30 localhost nodeadm[2015]: SDK 2026/02/19 07:57:30 DEBUG retrying request EC2/DescribeInstances, attempt 2',
  ],
];

const beyondFilter: ReadonlyArray<readonly [string, RuleId, string]> = [
  [
    'ipamd ENI limit, debug',
    'subnet-ip-exhaustion',
    ipamd('Skipping ENI allocation as the max ENI limit is already reached', 'debug'),
  ],
  [
    'Calico affine blocks, info',
    'subnet-ip-exhaustion',
    '2025-02-02 03:55:09.118 [INFO][3012] ipam/ipam.go 1021: No more free affine blocks and strict affinity enabled host="ip-10-0-1-2"',
  ],
];

describe('lines the default filter does not pass, recognised when read directly', () => {
  it.each([...releasedBeyondFilter, ...beyondFilter])('%s → %s', (_what, rule, line) => {
    expect(rulesOf(line)).toEqual([rule]);
  });
});

describe.each(families)('%s', (rule, cases) => {
  it.each(cases)('%s', (_shape, line) => {
    expect(rulesOf(line)).toEqual([rule]);
  });
});

/** Healthy templates of the same emitters (polarity "healthy" or "transient" in the reference): silent. */
const healthy: readonly Case[] = [
  ['nodeadm unit started', '[  OK  ] Started nodeadm-config.service - EKS Nodeadm Config.'],
  ['nodeadm unit done', journald('systemd', 'nodeadm-run.service: Deactivated successfully.')],
  ['nodeadm validating', journald('nodeadm', 'info init/init.go:97 Validating configuration..')],
  [
    'nodeadm falls back',
    journald('nodeadm', 'info init/init.go:180 Could not find instance info locally, making EC2 API call...'),
  ],
  ['kubelet registering', klog('kubelet_node_status.go:75', '"Attempting to register node" node="ip-10-0-1-2"')],
  [
    'kubelet registered before',
    klog('kubelet_node_status.go:114', '"Node was previously registered" node="ip-10-0-1-2"'),
  ],
  ['PLEG not yet run', klog('kubelet.go:2395', '"Skipping pod synchronization" err="pleg has yet to be successful"')],
  [
    'lease fallback',
    klog(
      'controller.go:117',
      '"failed to update lease using latest lease, fallback to ensure lease" err="Operation cannot be fulfilled"',
    ),
  ],
  [
    'kubelet ready',
    '  Ready   True   Mon, 02 Feb 2025 03:52:12 +0000   Mon, 02 Feb 2025 03:40:02 +0000   KubeletReady   kubelet is posting ready status',
  ],
  [
    'node healthy again',
    'I0202 03:55:00.000000       1 node_lifecycle_controller.go:1045] "Node is healthy again, removed all taints" node="ip-10-0-1-2"',
  ],
  [
    'attach succeeded',
    describeRow(
      'SuccessfulAttachVolume',
      'AttachVolume.Attach succeeded for volume "pvc-1629"',
      'attachdetach-controller',
    ),
  ],
  ['ipamd starting', ipamd('Starting L-IPAMD v1.19.2  ...', 'info')],
  [
    'ipamd IP limit, out of sync',
    ipamd(
      'AssignPrivateIpAddresses returned PrivateIpAddressLimitExceeded. This can happen if the data store is out of sync.',
      'warn',
    ),
  ],
  ['cni binary copied', ipamd('Successfully copied CNI plugin binary and config file.', 'info')],
  [
    'Calico new block',
    '2025-02-02 03:55:09.118 [INFO][3012] ipam/ipam.go 421: Ran out of existing affine blocks for host host="ip-10-0-1-2"',
  ],
  ['Bottlerocket user data sent', journald('early-boot-config', '03:47:49 [INFO] Sending user data to API')],
  [
    'cloud-init runs the script',
    journald(
      'cloud-init',
      "2025-02-02 03:47:40,101 - util.py[DEBUG]: Running command ['/var/lib/cloud/instance/scripts/part-001'] with allowed return codes [0]",
    ),
  ],
  [
    'SystemOOM absent: memory fine',
    '  MemoryPressure   False   Mon, 02 Feb 2025 03:52:12 +0000   Mon, 02 Feb 2025 03:40:02 +0000   KubeletHasSufficientMemory   kubelet has sufficient memory available',
  ],
];

describe('healthy node-agent lines stay silent', () => {
  it.each(healthy)('%s', (_shape, line) => {
    expect(rulesOf(line)).toEqual([]);
  });
});
