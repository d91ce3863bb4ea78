import { analyzeMessages } from '../../../lambdas/core/analyze';
import { buildFinding, type Finding } from '../../../lambdas/core/findings/finding';
import { emptyContext } from '../../../lambdas/core/findings/context';
import { parseMessage } from '../../../lambdas/core/parse/parse-message';
import { extractEntities } from '../../../lambdas/core/recognise/entities';
import { diagnose, type RuleId } from '../../../lambdas/core/recognise/rules';

/** Real lines from public issues and logs, with the Karpenter release their source names. */
const V0_30_LIMITS = // train-114, Karpenter v0.30.0, aws/karpenter-provider-aws#4698
  '2023-09-26T10:01:47.781Z\tERROR\tcontroller.provisioner\tscheduling/scheduler.go:190\tCould not schedule pod, all available instance types exceed limits for provisioner: "default"\t{"commit": "637a642", "pod": "default/resource-hungry-deployment-7885789675-9gw6c"}';
const V0_23_SUBNET = // ref-030, Karpenter v0.23.0, aws/karpenter-provider-aws#3380
  ' ERROR   controller.provisioner  launching machine, creating cloud provider instance, creating instance, with fleet error(s), InsufficientFreeAddressesInSubnet: There are not enough free addresses in subnet \'subnet-0783288fba3453a60\' to satisfy the requested number of instances.        {"commit": "5a7faa0-dirty"}';
const V0_32_TAINT = // train-153, Karpenter v0.32.x (still serving v1alpha5 Provisioners)
  'Warning FailedScheduling 68s karpenter Failed to schedule pod, incompatible with provisioner "dev", daemonset overhead={"cpu":"150m","pods":"3"}, did not tolerate dedicated=dev:NoSchedule';
const V0_31_MACHINE = // train-085, Karpenter v0.31.x, kubernetes/kops#16475
  '2024-04-18T16:45:11.384Z    ERROR    controller    Reconciler error    {"commit": "74bf29c", "controller": "machine.lifecycle", "controllerGroup": "karpenter.sh", "controllerKind": "Machine", "Machine": {"name":"karpenter-0-kgvdg"}, "namespace": "", "name": "karpenter-0-kgvdg", "reconcileID": "87fb931e-5ced-407b-91fb-4fa1054d1225", "error": "launching machine, creating instance, with fleet error(s), AuthFailure.ServiceLinkedRoleCreationNotPermitted: The provided credentials do not have permission to create the service-linked role for EC2 Spot Instances."}';
const V0_35_LIMITS = // ref-025, Karpenter v0.35.4, aws/karpenter-provider-aws#6292
  '{"level":"ERROR","time":"2024-05-28T20:49:25.812Z","logger":"controller.provisioner","message":"Could not schedule pod, all available instance types exceed limits for nodepool: \\"default\\"","commit":"17dd42b","pod":"podname/model-d4dnm"}';
const V0_35_NODECLASS = // train-028, Karpenter v0.35.4, aws/karpenter-provider-aws#6292
  '{"level":"ERROR","time":"2024-05-28T20:49:25.665Z","logger":"controller.provisioner","message":"skipping, unable to resolve instance types, resolving node class, EC2NodeClass.karpenter.k8s.aws \\"default\\" not found","commit":"17dd42b","nodepool":"default"}';
const V1_4_LIMITS = // ref-027, Karpenter v1.4.0, awslabs/LogParserForKarpenter sample-input.txt
  '{"level":"ERROR","time":"2025-04-24T05:21:22.451Z","logger":"controller","message":"could not schedule pod","commit":"0871602","controller":"provisioner","namespace":"","name":"","reconcileID":"de0771eb-24a8-4b48-ac30-c381dc58c592","Pod":{"name":"inflate-karpenter-5cd8878fd4-xvswf","namespace":"default"},"error":"all available instance types exceed limits for nodepool \\"local-storage-raid-al2023\\""}';

function findingsOf(line: string): Finding[] {
  const analysis = analyzeMessages([{ message: line, origin: {} }], 'prod');
  return analysis.incidents.map((incident) => buildFinding(incident, { region: 'eu-west-1' }));
}

function findingOf(line: string, rule: RuleId): Finding {
  const finding = findingsOf(line).find((f) => f.rule === rule);
  if (!finding) throw new Error(`no ${rule} finding for ${line}`);
  return finding;
}

const commandsOf = (finding: Finding): string[] => finding.remediation.flatMap((step) => step.commands);

describe('Karpenter API generation of a record', () => {
  it.each([
    ['a v0.30 Provisioner named in the message', V0_30_LIMITS, ['karpenter.sh/v1alpha5']],
    ['a v0.23 "launching machine"', V0_23_SUBNET, ['karpenter.sh/v1alpha5']],
    ['a v0.32 event naming a Provisioner', V0_32_TAINT, ['karpenter.sh/v1alpha5']],
    ['a v0.31 reconciler error on a Machine', V0_31_MACHINE, ['karpenter.sh/v1alpha5']],
    ['a v0.35 knative logger naming a nodepool', V0_35_LIMITS, ['karpenter.sh/v1beta1']],
    ['a v0.35 lower-case nodepool field', V0_35_NODECLASS, ['karpenter.sh/v1beta1']],
    [
      'a v0.37 conversion webhook error',
      'conversion webhook for karpenter.sh/v1beta1, Kind=NodePool failed',
      ['karpenter.sh/v1beta1'],
    ],
    [
      'a v1 error wrapped with its objects',
      'could not launch nodeclaim (NodePool=default, NodeClaim=default-x2v9k)',
      ['karpenter.sh/v1'],
    ],
    ['a v1 line with nothing of its own', V1_4_LIMITS, undefined],
    [
      'a storage driver named as provisioner',
      'waiting for a volume to be created, either by external provisioner "ebs.csi.aws.com"',
      undefined,
    ],
    [
      'a StorageClass provisioner beside storage-class',
      '{"level":"ERROR","message":"x","storage-class":"gp3","provisioner":"ebs.csi.aws.com"}',
      undefined,
    ],
  ])('reads %s', (_name, line, expected) => {
    const record = parseMessage(line, {});
    expect(record && extractEntities(record).karpenterApis).toEqual(expected);
  });
});

describe('advice for the Karpenter API generation the logs show', () => {
  it('names Provisioners, Machines and the provisioner-name label for a v0.30 limits error', () => {
    const finding = findingOf(V0_30_LIMITS, 'nodepool-limits-exceeded');
    expect(finding.entities.karpenterApis).toEqual(['karpenter.sh/v1alpha5']);
    expect(commandsOf(finding)).toEqual([
      `kubectl get provisioner default -o jsonpath='{.spec.limits.resources}{"\\n"}{.status.resources}{"\\n"}'`,
      `kubectl patch provisioner default --type merge -p '{"spec":{"limits":{"resources":{"cpu":"<new-cpu-limit>"}}}}'`,
      "kubectl get machines -l karpenter.sh/provisioner-name=default -o 'custom-columns=NAME:.metadata.name,TYPE:.metadata.labels.node\\.kubernetes\\.io/instance-type,CAPACITY:.metadata.labels.karpenter\\.sh/capacity-type,CREATED:.metadata.creationTimestamp'",
    ]);
    expect(finding.remediation[0]!.title).toContain('Provisioner');
  });

  it('gives the settings.aws chart values and Machines for a v0.23 subnet exhaustion', () => {
    const commands = commandsOf(findingOf(V0_23_SUBNET, 'subnet-ip-exhaustion'));
    expect(commands).toContain('kubectl get machines -L karpenter.sh/provisioner-name');
    expect(commands).toContain('kubectl delete machine <machine-name>');
    expect(commands.find((c) => c.startsWith('helm '))).toContain('--set settings.aws.reservedENIs=1');
  });

  it('reads the Provisioner spec, not a NodePool template, for a v0.32 taint', () => {
    const commands = commandsOf(findingOf(V0_32_TAINT, 'scheduling-untolerated-taint'));
    expect(commands[0]).toBe(
      `kubectl get provisioners -o jsonpath='{range .items[*]}{.metadata.name}{" taints="}{.spec.taints}{" startupTaints="}{.spec.startupTaints}{"\\n"}{end}'`,
    );
  });

  it.each([
    ['v0.30 limits', V0_30_LIMITS],
    ['v0.23 subnet', V0_23_SUBNET],
    ['v0.32 taint', V0_32_TAINT],
    ['v0.31 machine', V0_31_MACHINE],
  ])('leaves no NodePool, NodeClaim or EC2NodeClass in any command for the %s line', (_name, line) => {
    for (const finding of findingsOf(line)) {
      for (const command of commandsOf(finding)) expect(command).not.toMatch(/nodepool|nodeclaim|ec2nodeclass/i);
    }
  });

  it('keeps the NodePool kinds for v0.35 and the commands written for v1', () => {
    const finding = findingOf(V0_35_LIMITS, 'nodepool-limits-exceeded');
    expect(finding.entities.karpenterApis).toEqual(['karpenter.sh/v1beta1']);
    expect(commandsOf(finding)[0]).toMatch(/^kubectl get nodepool default /);
  });

  it('leaves a v1 line, and a line that shows no generation, with the v1 commands', () => {
    const finding = findingOf(V1_4_LIMITS, 'nodepool-limits-exceeded');
    const written = diagnose({
      rule: finding.rule,
      cluster: 'prod',
      region: 'eu-west-1',
      entities: finding.entities,
      occurrences: finding.occurrences,
      context: emptyContext(),
    });
    expect(finding.entities.karpenterApis).toBeUndefined();
    expect(commandsOf(finding)).toEqual(written.remediation.flatMap((s) => s.commands));
    expect(commandsOf(finding)[0]).toMatch(/^kubectl get nodepool local-storage-raid-al2023 /);
  });

  const consolidation = (api?: string) =>
    diagnose({
      rule: 'consolidation-blocked',
      cluster: 'prod',
      entities: { nodepools: ['default'], ...(api ? { karpenterApis: [api] } : {}) },
      occurrences: 1,
      context: emptyContext(),
    }).remediation.flatMap((s) => s.commands);

  it.each([
    [
      'karpenter.sh/v1alpha5',
      `'{"spec":{"consolidation":{"enabled":true},"ttlSecondsAfterEmpty":null}}'`,
      'do-not-evict',
    ],
    ['karpenter.sh/v1beta1', '"consolidationPolicy":"WhenUnderutilized","consolidateAfter":null', 'do-not-disrupt'],
    ['karpenter.sh/v1', '"consolidationPolicy":"WhenEmptyOrUnderutilized","consolidateAfter":"5m"', 'do-not-disrupt'],
    [undefined, '"consolidationPolicy":"WhenEmptyOrUnderutilized","consolidateAfter":"5m"', 'do-not-disrupt'],
  ])('patches consolidation as %s allows it', (api, patch, annotation) => {
    const commands = consolidation(api);
    expect(commands.find((c) => c.includes(' patch '))).toContain(patch);
    expect(commands.find((c) => c.includes('annotations'))).toContain(`karpenter\\.sh/${annotation}`);
  });

  it.each([
    ['karpenter.sh/v1alpha5', 'settings.aws.interruptionQueueName=<queue-name>'],
    ['karpenter.sh/v1beta1', 'settings.interruptionQueue=<queue-name>'],
  ])('names the interruption queue chart value of %s', (api, value) => {
    const { remediation } = diagnose({
      rule: 'interruption-queue-error',
      cluster: 'prod',
      entities: { karpenterApis: [api] },
      occurrences: 1,
      context: emptyContext(),
    });
    const commands = remediation.flatMap((s) => s.commands);
    expect(commands.find((c) => c.startsWith('helm ') && c.includes('upgrade'))).toContain(`--set ${value}`);
    // A Deployment's own jsonpath is not a Provisioner's.
    expect(commands.find((c) => c.includes('INTERRUPTION_QUEUE'))).toContain('.spec.template.spec.containers');
  });
});
