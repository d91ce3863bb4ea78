import { classify } from '../../lambdas/core/classify';
import { extractEntities, workloadOf } from '../../lambdas/core/entities';
import { parseMessage } from '../../lambdas/core/parse';
import { rulesOf } from '../helpers';

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
    ['Type: AMIsReady, Status: Unknown -> False', 'EC2NodeClass', 'launch-template-or-ami-error'],
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
