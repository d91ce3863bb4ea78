import type { RuleId } from './catalog';

/**
 * How each log rule is recognised. Matching is on the lower-cased record text (message, error,
 * error causes, event reason), never on the level: real failures are logged at INFO or as Normal
 * events, and healthy lines are logged at ERROR.
 *
 * A rule matches when all fragments of any one clause occur in the text. Fragments are stable pieces
 * of Karpenter, kube-scheduler, kubelet, CSI, CNI and AWS API error text — error codes and the
 * wording of Go error wrapping — so that they generalise across versions rather than memorise lines.
 * Patterns are for the few shapes that need a number or a bracket; each has a fragment that gates it,
 * and each is linear-time (no nested or overlapping quantifiers).
 */
export interface RuleMatcher {
  rule: RuleId;
  clauses: ReadonlyArray<readonly string[]>;
  patterns?: ReadonlyArray<{ gate: string; pattern: RegExp }>;
}

const any = (...fragments: string[]): string[][] => fragments.map((fragment) => [fragment]);

export const RULE_MATCHERS: readonly RuleMatcher[] = [
  {
    rule: 'volume-attach-limit',
    clauses: [
      ...any(
        'failedattachvolume',
        'attachvolume.attach failed',
        'expected device to be attached but was attaching',
        'attachmentlimitexceeded',
        'exceed max volume count',
        'max volume count',
        'maximum number of attachments',
        'volume attachment limit',
      ),
    ],
  },
  {
    rule: 'volume-mount-timeout',
    clauses: [
      ...any(
        'unable to attach or mount volumes',
        'failedmount',
        'mountvolume.setup failed',
        'mountvolume.mountdevice failed',
        'mountvolume.waitforattach failed',
      ),
    ],
  },
  { rule: 'in-tree-storage-plugin', clauses: any('in-tree storage plugin', 'in-tree volume plugin') },
  {
    rule: 'oom-killed',
    clauses: any(
      'oomkill',
      'killed due to oom',
      'out of memory: kill',
      'memory cgroup out of memory',
      'invoked oom-killer',
      'oom-kill:',
      'systemoom',
    ),
  },
  {
    rule: 'missing-resource-requests',
    clauses: any(
      'exceeds its request of 0',
      'without resource requests',
      'has no resource requests',
      'missing resource requests',
    ),
  },
  {
    rule: 'windows-image-platform-mismatch',
    clauses: [
      ...any(
        'no match for platform in manifest',
        'container operating system does not match the host operating system',
      ),
      ['image operating system', 'cannot be used on this platform'],
    ],
  },
  {
    rule: 'node-not-initialized',
    clauses: [
      ...any(
        'inflight check failed',
        "didn't register on the node",
        'did not register on the node',
        'missing required startup taint',
        'startup taint',
        "hasn't registered",
        'has not registered',
        'registration ttl',
        'registrationtimeout',
        'registration timeout',
        'failed to run kubelet',
        'not initialized within',
      ),
      ['expected resource', 'register'],
    ],
  },
  {
    rule: 'node-not-ready',
    clauses: any(
      ' notready',
      'nodenotready',
      'not ready state',
      'noderepairblocked',
      'nodes are unhealthy',
      'kubelet stopped posting node status',
      'container runtime network not ready',
      'cni plugin not initialized',
      'failed to run kubelet',
      'node is not ready',
    ),
  },
  {
    rule: 'scheduling-affinity-topology',
    clauses: any(
      'pod affinity rules',
      'anti-affinity rules',
      'inter-pod affinity',
      'topology spread',
      'unsatisfiable topology',
      'max skew',
      'maxskew',
    ),
  },
  {
    rule: 'scheduling-insufficient-resources',
    clauses: any(
      'too many pods',
      'no preemption victims found',
      'no instance type satisfied resources',
      'no instance type has enough resources',
      'no instance type which had enough resources',
      'insufficient resources',
    ),
    patterns: [{ gate: 'insufficient ', pattern: /\b\d+ insufficient [a-z]/ }],
  },
  {
    rule: 'scheduling-untolerated-taint',
    clauses: any('untolerated taint', "didn't tolerate", 'did not tolerate', 'not tolerate taint'),
  },
  {
    rule: 'scheduling-node-selector-mismatch',
    clauses: any(
      'node affinity/selector',
      'match node selector',
      "match pod's node affinity",
      'match node affinity',
      'match nodeselector',
    ),
  },
  {
    rule: 'subnet-ip-exhaustion',
    clauses: any(
      'insufficientfreeaddressesinsubnet',
      'not enough free addresses in subnet',
      'failed to assign an ip address to container',
      'no available ip/prefix',
      'no available ip addresses',
      'failed to allocate a private ip',
    ),
  },
  {
    rule: 'incompatible-requirements',
    clauses: any('incompatible requirements', 'does not have known values'),
    patterns: [{ gate: ' not in ', pattern: /\bnot in [a-z0-9./-]+ in \[/ }],
  },
  {
    rule: 'consolidation-blocked',
    clauses: any(
      'unconsolidatable',
      'disruptionblocked',
      'prevents pod evictions',
      "violate the pod's disruption budget",
      'cannot disrupt',
      'do-not-disrupt',
      'do-not-evict',
      "can't replace",
      "can't remove",
      'cannot be consolidated',
      'not all pods would schedule',
    ),
  },
  {
    rule: 'insufficient-instance-capacity',
    clauses: any(
      'insufficientinstancecapacity',
      'unfulfillablecapacity',
      'insufficient capacity',
      'insufficientcapacity',
      'insufficienthostcapacity',
      'insufficientreservedinstancecapacity',
      'instance types were unavailable',
      'spotmaxpricetoolow',
    ),
  },
  {
    rule: 'ec2-quota-exceeded',
    clauses: any(
      'vcpulimitexceeded',
      'maxspotinstancecountexceeded',
      'instancelimitexceeded',
      'networkinterfacelimitexceeded',
      'maxfleetcountexceeded',
      'than your current vcpu limit',
      'max spot instance count exceeded',
    ),
  },
  {
    rule: 'nodepool-limits-exceeded',
    clauses: any(
      'exceed limits for',
      'exceed limits',
      'exceeds limits',
      'exceeded limits',
      'exceed nodepool limits',
      'exceeds nodepool limits',
      'exceed provisioner limits',
      'exceeds provisioner limits',
      'nodepool limits exceeded',
    ),
  },
  {
    rule: 'aws-permission-denied',
    clauses: any(
      'unauthorizedoperation',
      'accessdenied',
      'not authorized to perform',
      'authfailure',
      'invalidclienttokenid',
      'not authorized to create the service-linked role',
    ),
  },
  {
    rule: 'aws-api-unreachable',
    clauses: [
      ...any(
        'send request failed',
        'request send failed',
        'webidentityerr',
        'ec2metadataerror',
        'failed to retrieve credentials',
        'unable to detect the cluster endpoint',
        'failed to resolve cluster endpoint',
        'could not find region',
        'missingregion',
        'ec2 imds',
        'requesterror:',
      ),
      ['amazonaws.com', 'i/o timeout'],
      ['amazonaws.com', 'dial tcp'],
      ['amazonaws.com', 'no such host'],
      ['amazonaws.com', 'connection refused'],
      ['amazonaws.com', 'tls handshake timeout'],
      ['amazonaws.com', 'context deadline exceeded'],
    ],
  },
  {
    rule: 'launch-template-or-ami-error',
    clauses: any(
      'invalidlaunchtemplate',
      'invalidblockdevicemapping',
      'invalidamiid',
      'invaliduserdata',
      'invalidparametervalue',
      'invalidparametercombination',
      'invalidparameter:',
      'requirements of amis',
      'no amis found',
      'amis not found',
      'ami not found',
      'resolving ami',
      'creating launch template',
      'launch template not found',
    ),
  },
  {
    rule: 'nodeclass-not-ready',
    clauses: [
      ...any(
        'no nodepools found',
        'no provisioners found',
        'ignoring nodepool',
        'ignoring provisioner',
        'nodeclassnotready',
        'resolving node class',
        'resolving nodeclass',
      ),
      ['ec2nodeclass', 'not found'],
      ['nodeclass', 'not ready'],
      ['awsnodetemplate', 'not found'],
    ],
  },
  {
    rule: 'subnet-or-security-group-not-found',
    clauses: any(
      'no subnets found',
      'no subnets matched',
      'no subnets exist',
      'no security groups exist',
      'no security groups found',
      'no security groups matched',
      'invalidsubnetid',
      'invalidsubnet.notfound',
      'invalidgroup.notfound',
      'invalidsecuritygroupid',
    ),
  },
  {
    rule: 'interruption-queue-error',
    clauses: any(
      'parsing sqs message',
      'nonexistentqueue',
      'queuedoesnotexist',
      'queue does not exist',
      'getting sqs queue',
      'receiving sqs messages',
      'deleting sqs message',
      'interruption queue not found',
    ),
  },
  {
    rule: 'webhook-tls-error',
    // A bare "http: TLS handshake error from …: EOF" is probe noise; only certificate failures count.
    clauses: any(
      'failed calling webhook',
      'failed to call webhook',
      'x509:',
      'tls: bad certificate',
      'certificate signed by unknown authority',
      'certificate has expired',
    ),
  },
  {
    rule: 'leader-election-lost',
    clauses: any(
      'leader election lost',
      'leaderelection lost',
      'failed to renew lease',
      'error retrieving resource lock',
      'failed to update lock',
    ),
  },
  {
    rule: 'volume-zone-conflict',
    clauses: any('volume node affinity conflict', 'zone doesnotexist not in', 'volume node affinity'),
  },
  {
    rule: 'node-disk-pressure',
    clauses: any(
      'diskpressure',
      'disk pressure',
      'disk-pressure',
      'imagegcfailed',
      'freediskspacefailed',
      'failed to garbage collect required amount of images',
      'low on resource: ephemeral-storage',
    ),
  },
  {
    rule: 'windows-ipam-not-enabled',
    clauses: any('vpc-bridge', 'vpc.amazonaws.com/privateipv4address', 'enable-windows-ipam'),
  },
  {
    rule: 'prefix-delegation-fragmentation',
    clauses: any('insufficientcidrblocks', 'insufficient cidr blocks', 'not enough free cidr blocks'),
  },
];

/** Text that says a scheduling attempt failed: the context in which a Karpenter pod is "unschedulable". */
export const SCHEDULING_FAILURE_FRAGMENTS = [
  'failedscheduling',
  'nodes are available',
  'unable to schedule pod',
  'could not schedule pod',
  'failed to schedule pod',
] as const;

/**
 * Status condition transitions to False (Karpenter v1 Events): which rule each condition type means.
 * Transitions to True or Unknown are healthy.
 */
export const CONDITION_RULES: Readonly<Record<string, RuleId>> = {
  subnetsready: 'subnet-or-security-group-not-found',
  securitygroupsready: 'subnet-or-security-group-not-found',
  amisready: 'launch-template-or-ami-error',
  instanceprofileready: 'nodeclass-not-ready',
  nodeclassready: 'nodeclass-not-ready',
  validationsucceeded: 'nodeclass-not-ready',
  registered: 'node-not-initialized',
  initialized: 'node-not-initialized',
};

export const CONDITION_TO_FALSE = /type: ([a-z]{1,40}), status: [a-z]{1,10} -> false/;
