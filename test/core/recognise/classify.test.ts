import { classify } from '../../../lambdas/core/recognise/classify';
import { extractEntities, workloadOf } from '../../../lambdas/core/recognise/entities';
import { parseMessage } from '../../../lambdas/core/parse/parse-message';
import { rulesOf } from '../../helpers';

const entitiesOf = (line: string) => extractEntities(parseMessage(line, {})!);

describe('classify', () => {
  it('emits one signal per distinct cause of a scheduler reason list', () => {
    const line =
      "0/9 nodes are available: 1 node(s) had untolerated taint {dedicated: gpu}, 5 node(s) didn't match Pod's node affinity/selector, 3 Insufficient cpu.";
    expect(rulesOf(line)).toEqual([
      'scheduling-insufficient-resources',
      'scheduling-node-selector-mismatch',
      'scheduling-untolerated-taint',
    ]);
  });

  it('reads the cause from the error field of a generic Reconciler error', () => {
    const line = JSON.stringify({ level: 'ERROR', message: 'Reconciler error', error: 'no subnets found' });
    expect(rulesOf(line)).toEqual(['subnet-or-security-group-not-found']);
  });

  it('reads the cause from errorCauses', () => {
    const line = JSON.stringify({
      level: 'ERROR',
      message: 'could not schedule pod',
      errorCauses: [{ error: 'incompatible with nodepool "a", did not tolerate team=x:NoSchedule' }],
    });
    expect(rulesOf(line)).toEqual(['scheduling-untolerated-taint']);
  });

  it('classifies on content, not level: an INFO event can be a failure and an ERROR can be healthy', () => {
    expect(rulesOf('  Normal  Unconsolidatable  6m10s  karpenter  pdb "shop/api" prevents pod evictions')).toEqual([
      'consolidation-blocked',
    ]);
    expect(
      rulesOf(
        '{"level":"ERROR","message":"Reconciler error","error":"Operation cannot be fulfilled on nodeclaims.karpenter.sh: the object has been modified"}',
      ),
    ).toEqual([]);
  });

  it('lets a specific fleet error stand for Karpenter\'s generic "insufficient capacity" wrapper', () => {
    const quota =
      '{"message":"failed launching nodeclaim","error":"creating instance, insufficient capacity, with fleet error(s), VcpuLimitExceeded: You have requested more vCPU capacity than your current vCPU limit of 64 allows"}';
    expect(rulesOf(quota)).toEqual(['ec2-quota-exceeded']);
    const ice =
      '{"message":"failed launching nodeclaim","error":"creating instance, insufficient capacity, with fleet error(s), InsufficientInstanceCapacity: We currently do not have sufficient g5.xlarge capacity"}';
    expect(rulesOf(ice)).toEqual(['insufficient-instance-capacity']);
  });

  it('turns a FailedScheduling of a Karpenter controller pod into karpenter-controller-unschedulable only', () => {
    const event = JSON.stringify({
      involvedObject: { kind: 'Pod', namespace: 'kube-system', name: 'karpenter-6d8f7b9c54-q2w4x' },
      reason: 'FailedScheduling',
      message: "0/2 nodes are available: 2 node(s) didn't match Pod's node affinity/selector.",
    });
    const signals = classify(parseMessage(event, {})!);
    expect(signals.map((s) => s.rule)).toEqual(['karpenter-controller-unschedulable']);
    expect(signals[0]!.entities.pods).toEqual(['kube-system/karpenter-6d8f7b9c54-q2w4x']);
    expect(signals[0]!.entities.workloads).toEqual(['kube-system/deployment/karpenter']);
  });

  it.each([
    ['Type: SubnetsReady, Status: True -> False', 'EC2NodeClass', 'subnet-or-security-group-not-found'],
    ['Type: AMIsReady, Status: Unknown -> False', 'EC2NodeClass', 'ami-discovery-failed'],
    [
      'Type: ValidationSucceeded, Status: Unknown -> False, Reason: TagValidationFailed',
      'EC2NodeClass',
      'resource-validation-failed',
    ],
    [
      "Type: ValidationSucceeded, Status: True -> False, Reason: CreateFleetAuthCheckFailed, Message: Controller isn't authorized to call ec2:CreateFleet",
      'EC2NodeClass',
      'aws-permission-denied',
    ],
    [
      'Type: ValidationSucceeded, Status: Unknown -> False, Reason: DependenciesNotReady',
      'EC2NodeClass',
      'nodeclass-not-ready',
    ],
    [
      'Type: ValidationSucceeded, Status: True -> False, Reason: NodePoolValidationFailed',
      'NodePool',
      'resource-validation-failed',
    ],
    [
      'Type: NodeRegistrationHealthy, Status: True -> False, Reason: RegistrationFailed, Message: Failed to register node',
      'NodePool',
      'node-bootstrap-failed',
    ],
    ['Type: Ready, Status: True -> False, Reason: NodeClassNotReady', 'NodePool', 'nodeclass-not-ready'],
    ['Type: Ready, Status: True -> False', 'NodeClaim', 'node-not-ready'],
    ['Type: Initialized, Status: Unknown -> False', 'NodeClaim', 'node-not-initialized'],
  ])('maps a status condition transition "%s" on a %s to %s', (transition, kind, rule) => {
    const event = JSON.stringify({
      involvedObject: { kind, name: 'default' },
      reason: 'Ready',
      message: `Status condition transitioned, ${transition}`,
    });
    expect(classify(parseMessage(event, {})!).map((s) => s.rule)).toEqual([rule]);
  });

  it.each([
    'Status condition transitioned, Type: AMIsReady, Status: True -> Unknown, Reason: AwaitingReconciliation',
    'Status condition transitioned, Type: Initialized, Status: Unknown -> True, Reason: Initialized',
    'Status condition transitioned, Type: NodeRegistrationHealthy, Status: True -> False, Reason: LaunchFailed',
    'Status condition transitioned, Type: ValidationSucceeded, Status: False -> True, Reason: ValidationSucceeded',
    '{"level":"INFO","message":"disrupting node(s)","command":"Underutilized/Delete"}',
    '{"level":"DEBUG","message":"removing offering from offerings","reason":"InsufficientInstanceCapacity"}',
    '{"level":"INFO","message":"initiating delete from interruption message","messageKind":"SpotInterruptionKind"}',
    '{"level":"INFO","message":"found provisionable pod(s)","Pods":"default/web-1"}',
  ])('is silent on healthy output: %s', (line) => {
    expect(rulesOf(line)).toEqual([]);
  });
});

describe('extractEntities', () => {
  it('extracts the names a fix needs', () => {
    const entities = entitiesOf(
      JSON.stringify({
        level: 'ERROR',
        message: 'failed launching nodeclaim',
        NodeClaim: { name: 'gpu-x7k2p' },
        'provider-id': 'aws:///us-west-2c/i-0abc12345def67890',
        error:
          "InsufficientFreeAddressesInSubnet: not enough free addresses in subnet 'subnet-0783288fba3453a60' for g5.xlarge in us-west-2c, ami-0f58878e44a8ebf11",
      }),
    );
    expect(entities).toMatchObject({
      nodeclaims: ['gpu-x7k2p'],
      nodepools: ['gpu'],
      subnets: ['subnet-0783288fba3453a60'],
      zones: ['us-west-2c'],
      instances: ['i-0abc12345def67890'],
      instanceTypes: ['g5.xlarge'],
      amis: ['ami-0f58878e44a8ebf11'],
      errorCodes: ['InsufficientFreeAddressesInSubnet'],
    });
  });

  it("normalises scheduler taints to key=value and keeps Karpenter's key=value:Effect", () => {
    expect(
      entitiesOf(
        "3 node(s) had untolerated taint {dedicated: gpu}, 1 node(s) had taint {karpenter.sh/not-ready: }, that the pod didn't tolerate",
      ).taints,
    ).toEqual(['dedicated=gpu', 'karpenter.sh/not-ready']);
    expect(
      entitiesOf('incompatible with nodepool "od", did not tolerate intent=workload-split:NoSchedule').taints,
    ).toEqual(['intent=workload-split:NoSchedule']);
  });

  it('extracts the IAM action and the role behind an AccessDenied', () => {
    const entities = entitiesOf(
      'AccessDeniedException: User: arn:aws:sts::647426478431:assumed-role/karpenter-ctrl/1657 is not authorized to perform: pricing:GetProducts because',
    );
    expect(entities.iamActions).toEqual(['pricing:GetProducts']);
    expect(entities.roles).toEqual(['arn:aws:iam::647426478431:role/karpenter-ctrl']);
  });

  it('extracts nodepools, labels, PDBs and selectors from Karpenter wording', () => {
    expect(entitiesOf('all available instance types exceed limits for nodepool: "batch"').nodepools).toEqual(['batch']);
    expect(entitiesOf('incompatible requirements, label "workload" does not have known values').labels).toEqual([
      'workload',
    ]);
    expect(entitiesOf('pdb "payments/api" prevents pod evictions').pdbs).toEqual(['payments/api']);
    expect(entitiesOf('no subnets matched selector map[karpenter.sh/discovery:test-9]').tags).toEqual([
      'karpenter.sh/discovery:test-9',
    ]);
  });

  it('names the service account of an API server forbidden, and the Karpenter namespace it shows', () => {
    const entities = entitiesOf(
      'E0412 09:02:11.310492       1 reflector.go:158] "Unhandled Error" err="failed to list *v1.NodeClaim: nodeclaims.karpenter.sh is forbidden: User \\"system:serviceaccount:platform-autoscaling:karpenter\\" cannot list resource \\"nodeclaims\\" in API group \\"karpenter.sh\\" at the cluster scope"',
    );
    expect(entities.serviceAccounts).toEqual(['platform-autoscaling/karpenter']);
    expect(entities.karpenterNamespaces).toEqual(['platform-autoscaling']);
    expect(
      entitiesOf('User "system:serviceaccount:kube-system:aws-node" cannot get resource "nodes"').karpenterNamespaces,
    ).toBeUndefined();
  });

  it('takes the Karpenter namespace from the writing pod or its Container Insights log stream, never from other pods', () => {
    const fromFluentBit = parseMessage(
      JSON.stringify({
        log: '{"level":"ERROR","message":"x"}',
        kubernetes: { pod_name: 'karpenter-7d9c6b8f5b-q2x8k', namespace_name: 'autoscaler' },
      }),
      {},
    )!;
    expect(extractEntities(fromFluentBit).karpenterNamespaces).toEqual(['autoscaler']);
    const fromStream = parseMessage('{"level":"ERROR","message":"x"}', {
      logStream:
        'ip-10-0-1-2.ec2.internal-application.var.log.containers.karpenter-7d9c6b8f5b-q2x8k_ops_controller-0a1b2c.log',
    })!;
    expect(extractEntities(fromStream).karpenterNamespaces).toEqual(['ops']);
    const otherPod = parseMessage(
      JSON.stringify({ log: 'x', kubernetes: { pod_name: 'api-7d9c6b8f5b-q2x8k', namespace_name: 'shop' } }),
      {},
    )!;
    expect(extractEntities(otherPod).karpenterNamespaces).toBeUndefined();
  });

  it("names the node of a host line and the role of an authenticator's denial", () => {
    const dataplane = parseMessage(
      JSON.stringify({
        hostname: 'ip-10-20-3-41.eu-west-1.compute.internal',
        systemd_unit: 'kubelet.service',
        message:
          'E0315 08:41:07.118204    2931 kubelet_node_status.go:96] "Unable to register node with API server" err="Unauthorized"',
      }),
      {},
    )!;
    expect(extractEntities(dataplane).nodes).toEqual(['ip-10-20-3-41.eu-west-1.compute.internal']);
    expect(
      entitiesOf(
        'time="2025-03-15T08:41:07Z" level=warning msg="access denied" arn="arn:aws:iam::210987654321:role/KarpenterNodeRole-shop" client="127.0.0.1:51234" error="ARN is not mapped" method=POST path=/authenticate',
      ).roles,
    ).toEqual(['arn:aws:iam::210987654321:role/KarpenterNodeRole-shop']);
  });

  it('keeps at most 25 values of one kind from a hostile record', () => {
    const many = Array.from({ length: 100 }, (_, i) => `subnet-${(0x10000000 + i).toString(16)}`).join(' ');
    expect(entitiesOf(many).subnets).toHaveLength(25);
  });
});

describe('workloadOf', () => {
  it.each([
    ['shop/api-6f7c9d8b4-x2x2x', 'shop/deployment/api'],
    ['db-0', 'default/statefulset/db'],
    ['kube-system/aws-node-x7k2p', 'kube-system/workload/aws-node'],
    ['lonely', undefined],
  ])('%s belongs to %s', (pod, workload) => {
    expect(workloadOf(pod)).toBe(workload);
  });
});
