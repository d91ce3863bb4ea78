import { analyzeMessages } from '../../../lambdas/core/analyze';
import { buildFinding } from '../../../lambdas/core/findings/finding';
import {
  analyzeSnapshot,
  autoModeAdvice,
  type ClusterSnapshot,
  LAUNCH_REASON_ERRORS,
  snapshotOf,
} from '../../../lambdas/core/state';
import { subnetExhaustionLine } from '../../support/awslogs';
import {
  autoModeNodeClass,
  ec2NodeClass,
  event,
  list,
  nodeClaim,
  nodePool,
  pendingPod,
  type ConditionInput,
} from '../../support/cluster-state';

const READ_AT = Date.parse('2026-12-01T10:05:00Z');
const snapshot = (parts: Partial<ClusterSnapshot>): ClusterSnapshot => ({
  nodeClaims: [],
  nodePools: [],
  nodeClasses: [],
  pods: [],
  events: [],
  readAtMs: READ_AT,
  ...parts,
});
const rulesOf = (s: ClusterSnapshot) =>
  analyzeSnapshot(s, { cluster: 'prod' }).analysis.incidents.map((incident) => incident.rule);
const unrecognisedOf = (s: ClusterSnapshot) => analyzeSnapshot(s, { cluster: 'prod' }).analysis.unrecognised;

/** Karpenter v1.14 keeps a failed launch Unknown with the CreateError's reason and message (launch.go). */
const launchFailed = (reason: string, message: string) =>
  snapshot({
    nodeClaims: [nodeClaim('default-x7k2p', [{ type: 'Launched', status: 'Unknown', reason, message }])],
  });

describe('analyzeSnapshot: a NodeClaim whose launch failed', () => {
  // Messages as ToReasonMessage (aws/karpenter-provider-aws pkg/errors) and CreateError write them.
  it.each([
    [
      'VCPULimitExceeded',
      'Error creating fleet request: An instance was requested that would exceed your VCPU quota',
      'ec2-quota-exceeded',
    ],
    [
      'SpotQuotaExceeded',
      'Error creating fleet request: A spot instance launch was requested but this would exceed your spot instance quota',
      'ec2-quota-exceeded',
    ],
    [
      'FleetQuotaExceeded',
      'Error creating fleet request: A fleet launch was requested but this would exceed your fleet request quota',
      'ec2-quota-exceeded',
    ],
    [
      'InsufficientFreeAddressesInSubnet',
      'Error creating fleet request: There are not enough free IP addresses to launch an instance in this subnet',
      'subnet-ip-exhaustion',
    ],
    [
      'Unauthorized',
      'Error creating fleet request: User is not authorized to perform this operation because no identity-based policy allows it',
      'aws-permission-denied',
    ],
    [
      'SpotSLRCreationFailed',
      'User does not have sufficient permission to create the Spot ServiceLinkedRole to launch spot instances',
      'aws-permission-denied',
    ],
    [
      'AMINotFound',
      "Error creating fleet request: AMI used for instance launch either does not exist or you don't have permissions to use it",
      'launch-template-or-ami-error',
    ],
    [
      'InvalidAMIID',
      'Error creating fleet request: AMI used for instance launch is invalid',
      'launch-template-or-ami-error',
    ],
    [
      'AMIAuthorizationFailure',
      'Error creating fleet request: User is not authorized for AMI used in instance launch',
      'aws-permission-denied',
    ],
    [
      'LaunchTemplateNotFound',
      "Launch templates not found when creating fleet request: Launch template used for instance launch wasn't found",
      'launch-template-or-ami-error',
    ],
    [
      'SecurityGroupSubnetVPCMismatch',
      'Error creating fleet request: Security groups and subnets must be in the same VPC.',
      'launch-template-or-ami-error',
    ],
    [
      'InstanceProfileNameInvalid',
      'Error creating fleet request: Instance profile name used from EC2NodeClass status does not exist',
      'launch-template-or-ami-error',
    ],
    [
      'UserDataSizeLimitExceeded',
      'Error getting launch template configs: Rendered user data exceeds the EC2 user data size limit',
      'launch-template-or-ami-error',
    ],
    ['RequestLimitExceeded', 'Error creating fleet request: Request limit exceeded', 'aws-api-throttled'],
    [
      'LaunchFailed',
      'creating instance, getting launch template configs, resolving ami, no amis exist given constraints',
      'launch-template-or-ami-error',
    ],
    ['NodeClassReadinessUnknown', 'NodeClass is in Ready=Unknown', 'nodeclass-not-ready'],
  ])('reason %s gives its rule', (reason, message, rule) => {
    expect(rulesOf(launchFailed(reason, message))).toContain(rule);
  });

  // No rule says more than the reason for these: each is shown, with its reason, as unrecognised.
  it.each([
    ['InternalError', 'Error creating fleet request: An internal error has occurred'],
    ['InstanceTypeResolutionFailed', 'Error resolving instance types'],
    ['SubnetResolutionFailed', 'Error getting subnets'],
    ['FreeTierIneligible', 'The specified instance type is not eligible for Free Tier'],
  ])('reason %s is shown as unrecognised with the reason', (reason, message) => {
    const s = launchFailed(reason, message);
    expect(rulesOf(s)).toEqual([]);
    const unrecognised = unrecognisedOf(s);
    expect(unrecognised.count).toBe(1);
    expect(unrecognised.top[0]!.message).toContain(`Reason: ${reason}`);
  });

  it('covers every Launched reason of Karpenter v1.14 in its table', () => {
    const v114 = [
      'VCPULimitExceeded',
      'SpotQuotaExceeded',
      'FleetQuotaExceeded',
      'InsufficientFreeAddressesInSubnet',
      'Unauthorized',
      'SpotSLRCreationFailed',
      'AMINotFound',
      'InvalidAMIID',
      'AMIAuthorizationFailure',
      'LaunchTemplateNotFound',
      'SecurityGroupSubnetVPCMismatch',
      'InstanceProfileNameInvalid',
      'UserDataSizeLimitExceeded',
      'RequestLimitExceeded',
      'InternalError',
      'NodeClassReadinessUnknown',
      'InstanceTypeResolutionFailed',
      'SubnetResolutionFailed',
    ];
    expect(Object.keys(LAUNCH_REASON_ERRORS).sort()).toEqual(v114.sort());
  });

  it('is silent while the launch is awaiting reconciliation or has launched', () => {
    expect(rulesOf(launchFailed('AwaitingReconciliation', 'object is awaiting reconciliation'))).toEqual([]);
    const launched = snapshot({ nodeClaims: [nodeClaim('default-x7k2p', [{ type: 'Launched', status: 'True' }])] });
    expect(rulesOf(launched)).toEqual([]);
    expect(unrecognisedOf(launched).count).toBe(0);
  });
});

describe('analyzeSnapshot: NodePool, node class and NodeClaim conditions', () => {
  const pool = (c: ConditionInput) => snapshot({ nodePools: [nodePool('default', [c])] });
  const ec2 = (c: ConditionInput) => snapshot({ nodeClasses: [ec2NodeClass('default', [c])] });
  const auto = (c: ConditionInput) => snapshot({ nodeClasses: [autoModeNodeClass('default', [c])] });
  const claim = (c: ConditionInput) =>
    snapshot({ nodeClaims: [nodeClaim('default-x7k2p', [{ type: 'Launched', status: 'True' }, c])] });
  it.each([
    [
      'NodePool Ready',
      pool({ type: 'Ready', status: 'False', reason: 'NodeClassNotReady', message: 'NodeClass not ready' }),
      'nodeclass-not-ready',
      'default',
    ],
    [
      'NodePool NodeClassReady',
      pool({
        type: 'NodeClassReady',
        status: 'False',
        reason: 'NodeClassNotFound',
        message: 'NodeClass not found on cluster',
      }),
      'nodeclass-not-ready',
      'default',
    ],
    [
      'NodePool NodeRegistrationHealthy (registration)',
      pool({
        type: 'NodeRegistrationHealthy',
        status: 'False',
        reason: 'RegistrationFailed',
        message: 'Failed to register node',
      }),
      'node-bootstrap-failed',
      undefined,
    ],
    [
      'NodePool NodeRegistrationHealthy (a launch reason)',
      pool({
        type: 'NodeRegistrationHealthy',
        status: 'False',
        reason: 'InsufficientFreeAddressesInSubnet',
        message: 'There are not enough free IP addresses to launch an instance in this subnet',
      }),
      'subnet-ip-exhaustion',
      undefined,
    ],
    [
      'NodePool ValidationSucceeded',
      pool({
        type: 'ValidationSucceeded',
        status: 'False',
        reason: 'NodePoolValidationFailed',
        message: 'invalid value: restricted label "kubernetes.io/hostname" cannot be used',
      }),
      'resource-validation-failed',
      'default',
    ],
    [
      'EC2NodeClass AMIsReady',
      ec2({ type: 'AMIsReady', status: 'False', reason: 'AMINotFound', message: 'AMISelector did not match any AMIs' }),
      'ami-discovery-failed',
      'default',
    ],
    [
      'EC2NodeClass SubnetsReady',
      ec2({
        type: 'SubnetsReady',
        status: 'False',
        reason: 'SubnetsNotFound',
        message: 'SubnetSelector did not match any Subnets',
      }),
      'subnet-or-security-group-not-found',
      'default',
    ],
    [
      'EC2NodeClass SecurityGroupsReady',
      ec2({
        type: 'SecurityGroupsReady',
        status: 'False',
        reason: 'SecurityGroupsNotFound',
        message: 'SecurityGroupSelector did not match any SecurityGroups',
      }),
      'subnet-or-security-group-not-found',
      'default',
    ],
    [
      'EC2NodeClass InstanceProfileReady',
      ec2({
        type: 'InstanceProfileReady',
        status: 'False',
        reason: 'InstanceProfileNotFound',
        message: 'instance profile not found',
      }),
      'nodeclass-not-ready',
      'default',
    ],
    [
      'EC2NodeClass ValidationSucceeded (authorization)',
      ec2({
        type: 'ValidationSucceeded',
        status: 'False',
        reason: 'CreateFleetAuthCheckFailed',
        message:
          "Controller isn't authorized to call ec2:CreateFleet: User is not authorized to perform this operation because no identity-based policy allows it",
      }),
      'aws-permission-denied',
      undefined,
    ],
    [
      'EC2NodeClass ValidationSucceeded (tags)',
      ec2({
        type: 'ValidationSucceeded',
        status: 'False',
        reason: 'TagValidationFailed',
        message: 'tag key "kubernetes.io/cluster/prod" is restricted',
      }),
      'resource-validation-failed',
      'default',
    ],
    [
      'Auto Mode NodeClass SubnetsReady',
      auto({
        type: 'SubnetsReady',
        status: 'False',
        reason: 'SubnetsNotFound',
        message: 'SubnetSelector did not match any Subnets',
      }),
      'subnet-or-security-group-not-found',
      'default',
    ],
    [
      'Auto Mode NodeClass InstanceProfileReady',
      auto({
        type: 'InstanceProfileReady',
        status: 'False',
        reason: 'InstanceProfileNotFound',
        message: 'instance profile not found',
      }),
      'nodeclass-not-ready',
      'default',
    ],
    [
      'NodeClaim Registered',
      claim({
        type: 'Registered',
        status: 'False',
        reason: 'RegistrationTimeout',
        message: 'Node not registered with cluster',
      }),
      'node-not-initialized',
      'default',
    ],
    [
      'NodeClaim Initialized',
      claim({
        type: 'Initialized',
        status: 'False',
        reason: 'ResourceNotRegistered',
        message: 'Resource "vpc.amazonaws.com/pod-eni" was requested but not registered',
      }),
      'node-not-initialized',
      'default',
    ],
  ])('%s False gives its rule, keyed as the log path keys it', (_name, s, rule, key) => {
    const incidents = analyzeSnapshot(s, { cluster: 'prod' }).analysis.incidents;
    expect(incidents.map((i) => [i.rule, i.keyValue])).toEqual([[rule, key]]);
  });

  it.each([
    ['NodePool Ready', pool({ type: 'Ready', status: 'True' })],
    ['EC2NodeClass SubnetsReady', ec2({ type: 'SubnetsReady', status: 'True' })],
    [
      'a root Ready that repeats its dependents',
      ec2({ type: 'Ready', status: 'False', reason: 'UnhealthyDependents', message: 'SubnetsReady=False' }),
    ],
    [
      'NodeClaim Initialized Unknown',
      claim({ type: 'Initialized', status: 'Unknown', reason: 'AwaitingReconciliation' }),
    ],
  ])('%s is silent', (_name, s) => {
    expect(rulesOf(s)).toEqual([]);
    expect(unrecognisedOf(s).count).toBe(0);
  });
});

describe('analyzeSnapshot: pending pods and events', () => {
  it.each([
    [
      '0/3 nodes are available: 3 node(s) had untolerated taint {nvidia.com/gpu: true}. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.',
      'scheduling-untolerated-taint',
      'nvidia.com/gpu=true',
    ],
    [
      '0/5 nodes are available: 5 Insufficient cpu. preemption: 0/5 nodes are available: 5 No preemption victims found for incoming pod.',
      'scheduling-insufficient-resources',
      'cpu',
    ],
    [
      "0/5 nodes are available: 5 node(s) didn't match Pod's node affinity/selector. preemption: 0/5 nodes are available: 5 Preemption is not helpful for scheduling.",
      'scheduling-node-selector-mismatch',
      undefined,
    ],
  ])('a pending pod whose PodScheduled says "%s" gives %s', (message, rule, key) => {
    const incidents = analyzeSnapshot(snapshot({ pods: [pendingPod('ml', 'trainer-0', message)] }), { cluster: 'prod' })
      .analysis.incidents;
    expect(incidents.map((i) => [i.rule, i.keyValue, i.entities.pods])).toEqual([[rule, key, ['ml/trainer-0']]]);
  });

  it("reads Warning events, but not old condition transitions nor a scheduled pod's FailedScheduling", () => {
    const s = snapshot({
      events: [
        event('FailedScheduling', '0/3 nodes are available: 3 Insufficient memory.', {
          kind: 'Pod',
          namespace: 'web',
          name: 'gone-0',
        }),
        event(
          'SubnetsReady',
          'Status condition transitioned, Type: SubnetsReady, Status: True -> False, Reason: SubnetsNotFound',
          { kind: 'EC2NodeClass', name: 'default' },
        ),
        event(
          'FailedAttachVolume',
          'AttachVolume.Attach failed for volume "pvc-1" : rpc error: code = Internal desc = Could not attach volume "vol-0123456789abcdef0" to node "i-0123456789abcdef0": attachment of disk "vol-0123456789abcdef0" failed, expected device to be attached but was attaching',
          { kind: 'Pod', namespace: 'db', name: 'pg-0' },
        ),
      ],
    });
    expect(rulesOf(s)).toEqual(['volume-attach-limit']);
  });

  it('reads the Lists kubectl prints, mixed kinds in one document', () => {
    const s = snapshotOf(
      [
        list([
          nodeClaim('default-x7k2p', [
            {
              type: 'Launched',
              status: 'Unknown',
              reason: 'VCPULimitExceeded',
              message: 'Error creating fleet request: An instance was requested that would exceed your VCPU quota',
            },
          ]),
          nodePool('default', []),
        ]),
        list([]),
        'not json',
        null,
      ],
      READ_AT,
    );
    expect([s.nodeClaims.length, s.nodePools.length]).toEqual([1, 1]);
    expect(rulesOf(s)).toEqual(['ec2-quota-exceeded']);
  });

  it('never throws on objects of the wrong shape', () => {
    const junk = [
      null,
      1,
      'x',
      [],
      { kind: 'NodeClaim' },
      { metadata: { name: 'a' }, status: { conditions: 'no' } },
      { metadata: { name: 'b' }, status: { conditions: [null, { type: 'Launched', status: 'Maybe' }] } },
    ];
    expect(() =>
      analyzeSnapshot(snapshot({ nodeClaims: junk, nodePools: junk, nodeClasses: junk, pods: junk, events: junk }), {
        cluster: 'prod',
      }),
    ).not.toThrow();
  });
});

describe('the log path and the state reader on one failure', () => {
  it('give one finding id for subnet exhaustion, from the log line and from the NodeClaim', () => {
    const fromLog = analyzeMessages(
      [{ message: subnetExhaustionLine('subnet-0a1b2c3d4e5f60718'), origin: {} }],
      'prod',
    ).incidents;
    const fromState = analyzeSnapshot(
      launchFailed(
        'InsufficientFreeAddressesInSubnet',
        'Error creating fleet request: There are not enough free IP addresses to launch an instance in this subnet',
      ),
      { cluster: 'prod' },
    ).analysis.incidents;
    expect(fromLog.map((i) => i.rule)).toEqual(['subnet-ip-exhaustion']);
    expect(fromState.map((i) => i.findingId)).toEqual(fromLog.map((i) => i.findingId));
  });

  it("give one finding id for Karpenter's InsufficientCapacityError event naming the subnet", () => {
    const claimEvent = event(
      'InsufficientCapacityError',
      "NodeClaim default-x7k2p event: creating instance, insufficient capacity, with fleet error(s), InsufficientFreeAddressesInSubnet: There are not enough free addresses in subnet 'subnet-0a1b2c3d4e5f60718' to satisfy the requested number of instances.",
      { kind: 'NodeClaim', name: 'default-x7k2p' },
    );
    const fromState = analyzeSnapshot(snapshot({ events: [claimEvent] }), { cluster: 'prod' }).analysis.incidents;
    const fromLog = analyzeMessages(
      [{ message: subnetExhaustionLine('subnet-0a1b2c3d4e5f60718'), origin: {} }],
      'prod',
    ).incidents;
    const exhaustion = fromState.find((i) => i.rule === 'subnet-ip-exhaustion');
    expect([exhaustion?.findingId, exhaustion?.entities.subnets]).toEqual([
      fromLog[0]!.findingId,
      ['subnet-0a1b2c3d4e5f60718'],
    ]);
  });
});

describe('EKS Auto Mode', () => {
  const autoSnapshot = snapshot({
    nodeClasses: [
      autoModeNodeClass('default', [
        {
          type: 'SubnetsReady',
          status: 'False',
          reason: 'SubnetsNotFound',
          message: 'SubnetSelector did not match any Subnets',
        },
      ]),
    ],
    nodePools: [nodePool('general-purpose', [{ type: 'Ready', status: 'True' }], { autoMode: true })],
    pods: [
      pendingPod('web', 'api-0', "0/2 nodes are available: 2 node(s) didn't match Pod's node affinity/selector.", {
        nodeSelector: { 'karpenter.k8s.aws/instance-family': 'm5' },
      }),
    ],
    storageClasses: [
      {
        apiVersion: 'storage.k8s.io/v1',
        kind: 'StorageClass',
        metadata: { name: 'gp2' },
        provisioner: 'kubernetes.io/aws-ebs',
      },
      {
        apiVersion: 'storage.k8s.io/v1',
        kind: 'StorageClass',
        metadata: { name: 'auto-ebs' },
        provisioner: 'ebs.csi.eks.amazonaws.com',
      },
    ],
  });

  it('is recognised by its NodeClass kind and its NodePools, with its migration traps', () => {
    const { autoMode } = analyzeSnapshot(autoSnapshot, { cluster: 'prod' });
    expect(autoMode.evidence).toEqual([
      'NodeClass default (eks.amazonaws.com/v1)',
      'NodePool general-purpose uses a eks.amazonaws.com NodeClass',
    ]);
    expect(autoMode.traps.map((t) => [t.kind, t.object])).toEqual([
      ['karpenter-selector', 'web/api-0'],
      ['storage-class', 'gp2'],
    ]);
    expect(autoMode.traps[0]!.detail).toContain('eks.amazonaws.com/instance-family');
  });

  it('is not claimed of a self-managed Karpenter cluster', () => {
    const s = snapshot({ nodeClasses: [ec2NodeClass('default', [])], nodeClaims: [nodeClaim('default-x7k2p', [])] });
    expect(analyzeSnapshot(s, { cluster: 'prod' }).autoMode).toEqual({ evidence: [], traps: [] });
  });

  it('gives NodeClass advice without Helm, and the selector trap first on a selector finding', () => {
    const { analysis, autoMode } = analyzeSnapshot(autoSnapshot, { cluster: 'prod' });
    const findings = analysis.incidents.map((i) => autoModeAdvice(buildFinding(i, { region: 'us-west-2' }), autoMode));
    const commands = findings.flatMap((f) => f.remediation.flatMap((step) => step.commands));
    expect(commands.some((c) => /^helm\s/.test(c))).toBe(false);
    expect(commands.some((c) => /\bec2nodeclass/i.test(c))).toBe(false);
    const selector = findings.find((f) => f.rule === 'scheduling-node-selector-mismatch')!;
    expect(selector.remediation[0]!.title).toBe('Replace karpenter.k8s.aws/* selectors with eks.amazonaws.com/* ones');
    expect(selector.diagnosis).toMatch(/EKS Auto Mode cluster: AWS runs Karpenter/);
    expect(findings.find((f) => f.rule === 'subnet-or-security-group-not-found')!.diagnosis).not.toMatch(
      /EC2NodeClass/,
    );
  });
});
