import { analyzeMessages } from '../../../lambdas/core/analyze';
import { classify } from '../../../lambdas/core/recognise/classify';
import { buildFinding } from '../../../lambdas/core/findings/finding';
import type { RuleId } from '../../../lambdas/core/model';
import { parseMessage } from '../../../lambdas/core/parse/parse-message';
import { mergeSchedulingCauses } from '../../../lambdas/core/incidents/scheduling-causes';

const event = (pod: string, message: string, time = '2026-11-30T10:00:00Z') =>
  JSON.stringify({
    metadata: { name: `${pod}.${time}`, namespace: 'shop' },
    involvedObject: { kind: 'Pod', namespace: 'shop', name: pod },
    reason: 'FailedScheduling',
    type: 'Warning',
    message,
    source: { component: 'default-scheduler' },
    lastTimestamp: time,
  });

const merged = (line: string) => {
  const signals = mergeSchedulingCauses(classify(parseMessage(line, {})!));
  return signals.map((signal) => [signal.rule, signal.causes ?? []]);
};

const CPU_AND_TAINT =
  '0/5 nodes are available: 2 Insufficient cpu, 3 node(s) had untolerated taint {dedicated: batch}. preemption: 0/5 nodes are available: 2 No preemption victims found for incoming pod, 3 Preemption is not helpful for scheduling.';
const GPU_TAINT_AND_SELECTOR =
  "0/7 nodes are available: 3 node(s) had untolerated taint {nvidia.com/gpu: true}, 4 node(s) didn't match Pod's node affinity/selector. preemption: 0/7 nodes are available: 7 Preemption is not helpful for scheduling.";

describe('mergeSchedulingCauses', () => {
  it.each<[string, string, RuleId, RuleId[]]>([
    [
      'the nodes the pod could use are full: cpu leads, the taint is a cause',
      CPU_AND_TAINT,
      'scheduling-insufficient-resources',
      ['scheduling-untolerated-taint'],
    ],
    [
      'the nodes the pod selects are tainted: the taint leads',
      GPU_TAINT_AND_SELECTOR,
      'scheduling-untolerated-taint',
      ['scheduling-node-selector-mismatch'],
    ],
    [
      'a volume pinned to a zone leads over cpu and the selector',
      "0/6 nodes are available: 1 node(s) had volume node affinity conflict, 2 Insufficient memory, 3 node(s) didn't match Pod's node affinity/selector.",
      'volume-zone-conflict',
      ['scheduling-insufficient-resources', 'scheduling-node-selector-mismatch'],
    ],
    [
      "Karpenter's per-NodePool reasons: the pool that fits the requirements is tainted",
      'could not schedule pod | incompatible with nodepool "gpu", did not tolerate nvidia.com/gpu=true:NoSchedule; incompatible with nodepool "default", incompatible requirements, key nvidia.com/gpu.present, nvidia.com/gpu.present In [true] not in nvidia.com/gpu.present DoesNotExist',
      'scheduling-untolerated-taint',
      ['incompatible-requirements'],
    ],
  ])('gives one signal when %s', (_, message, lead, causes) => {
    expect(merged(message)).toEqual([[lead, causes]]);
  });

  it('leaves a single reason, and signals of other families, as they are', () => {
    expect(merged('0/3 nodes are available: 3 Insufficient memory.')).toEqual([
      ['scheduling-insufficient-resources', []],
    ]);
    const signals = classify(
      parseMessage('InsufficientFreeAddressesInSubnet: There are not enough free addresses in subnet subnet-0abc', {})!,
    );
    expect(mergeSchedulingCauses(signals)).toBe(signals);
  });
});

describe('a scheduling event with two reasons', () => {
  const analysed = (messages: string[]) =>
    analyzeMessages(
      messages.map((message, i) => ({ message, origin: { file: 'events', line: i + 1 } })),
      'prod',
    ).incidents;

  it('is one finding that names both causes and answers both, not two that repeat each other', () => {
    const incidents = analysed([
      event('api-7d4b9c6f5d-x2x9k', CPU_AND_TAINT),
      event('api-7d4b9c6f5d-x2x9k', CPU_AND_TAINT, '2026-11-30T10:00:30Z'),
    ]);
    expect(incidents.map((i) => [i.rule, i.occurrences, i.causes])).toEqual([
      ['scheduling-insufficient-resources', 2, ['scheduling-untolerated-taint']],
    ]);
    const finding = buildFinding(incidents[0]!);
    expect(finding.rule).toBe('scheduling-insufficient-resources');
    expect(finding.causes).toEqual(['scheduling-untolerated-taint']);
    expect(finding.diagnosis).toMatch(/lack cpu/);
    expect(finding.diagnosis).toMatch(/taint dedicated=batch the pods do not tolerate/);
    const also = finding.remediation.filter((step) => step.title.startsWith('Also ('));
    expect(also).toHaveLength(1);
    // The taint's own first step: the read-only check of which NodePool should take the pods.
    expect(also[0]!.title).toMatch(/^Also \(pods do not tolerate the taints/);
    expect(also[0]!.commands.join('\n')).toMatch(/kubectl get nodepools/);
  });

  it('keeps a finding without causes free of the causes field', () => {
    const [incident] = analysed([event('api-7d4b9c6f5d-x2x9k', '0/3 nodes are available: 3 Insufficient memory.')]);
    expect(incident!.causes).toBeUndefined();
    expect(buildFinding(incident!)).not.toHaveProperty('causes');
  });
});
