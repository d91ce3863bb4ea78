import { changeTemplateStep } from '../advice/workload-steps';
import { DOCS } from '../advice/docs-links';
import { shellArg } from '../advice/shell';
import { isSystemTaint, taintKey, taintRemoval, tolerationYaml } from '../advice/taints';
import { type RemediationStep } from '../advice/types';
import { anyOf, defineRule } from './types';

export default defineRule({
  info: {
    id: 'scheduling-untolerated-taint',
    title: 'Pods do not tolerate the taints of the available nodes',
    severity: 'medium',
    source: 9,
    family: 'scheduling',
    emittedBy: 'logs',
    recognises: "had (untolerated) taint {…} that the pod didn't tolerate, did not tolerate",
    keyEntity: 'workloads',
  },
  recognition: {
    clauses: anyOf('untolerated taint', "didn't tolerate", 'did not tolerate', 'not tolerate taint'),
    schedulingReason: true,
  },
  diagnose: (f) => {
    const taints = f.all('taints');
    const custom = taints.filter((taint) => !isSystemTaint(taint));
    const system = taints.filter(isSystemTaint);
    const node = f.first('nodes', '<node-name>');
    const steps: RemediationStep[] = [
      changeTemplateStep(
        f,
        'Add a matching toleration to the workload',
        `Add to the pod template:\n${tolerationYaml(custom[0] ?? taints[0])}`,
      ),
    ];
    if (custom.length > 0) {
      steps.push({
        title: 'Or remove the custom taint from the nodes if it is not needed',
        detail: 'Find the nodes that carry the taint, then remove it.',
        commands: [
          `kubectl get nodes -o custom-columns=NAME:.metadata.name,TAINTS:.spec.taints --no-headers | grep ${shellArg(taintKey(custom[0]!))}`,
          ...custom.map((taint) => `kubectl taint nodes ${node} ${shellArg(taintRemoval(taint))}`),
        ],
      });
    }
    if (system.length > 0) {
      steps.push({
        title: 'System taints are set by Kubernetes, Karpenter or EKS',
        detail: `${system.join(', ')}: set while a node starts, is disrupted, or for Fargate. Do not remove them by hand; if they persist, see why the node is not ready.`,
        commands: [],
      });
    }
    return {
      diagnosis:
        `Pods${f.where('workloads', 'of')} do not tolerate the taint${taints.length > 1 ? 's' : ''}` +
        `${taints.length ? ` ${f.list('taints')}` : ''} of the available nodes, so the scheduler cannot place them there.`,
      remediation: steps,
      docs: [DOCS.taints, DOCS.karpenterScheduling],
    };
  },
  examples: {
    fires: [
      {
        line: "0/5 nodes are available: 3 node(s) had taint {dedicated: gpu}, that the pod didn't tolerate, 2 node(s) had taint {dedicated: non-gpu}, that the pod didn't tolerate",
        source: 'seed §9 (shared/seed/karpenter-scaling-troubleshooting.es.txt)',
      },
      {
        line: "Warning  FailedScheduling  4m35s (x39 over 50m)  default-scheduler  0/5 nodes are available: 1 node(s) had taint {karpenter.sh/not-ready: }, that the pod didn't tolerate, 4 node(s) didn't match node selector.",
        source: 'https://github.com/aws/karpenter-provider-aws/issues/644 (shared samples ref-028)',
      },
      {
        line: '{"level":"ERROR","message":"could not schedule pod","errorCauses":[{"error":"incompatible with nodepool \\"a\\", did not tolerate team=x:NoSchedule"}]}',
        source: "constructed from Karpenter's scheduler error 'incompatible with nodepool %q, did not tolerate %s'",
      },
    ],
    silent: [
      {
        line: '{"level":"INFO","time":"2025-04-04T10:15:20.643Z","logger":"controller","caller":"termination/controller.go:109","message":"tainted node","controller":"node.termination","controllerGroup":"","controllerKind":"Node","Node":{"name":"ip-10-174-47-160.ec2.internal"},"namespace":"","name":"ip-10-174-47-160.ec2.internal","reconcileID":"bbe98730-ceda-4294-87e4-17bb31434e11","taint.Key":"karpenter.sh/disrupted","taint.Value":"","taint.Effect":"NoSchedule"}',
        source: 'https://github.com/kubernetes-sigs/karpenter/issues/2123 (shared samples ref-044)',
      },
      {
        line: '{"level":"INFO","time":"2025-04-23T15:05:56.637Z","logger":"controller","message":"tainted node","commit":"0871602","controller":"node.termination","controllerGroup":"","controllerKind":"Node","Node":{"name":"ip-10-0-155-52.eu-west-1.compute.internal"},"namespace":"","name":"ip-10-0-155-52.eu-west-1.compute.internal","reconcileID":"d686553c-59ea-4835-8a99-37913dd82264","NodeClaim":{"name":"local-storage-raid-al2023-m5df6"},"taint.Key":"karpenter.sh/disrupted","taint.Value":"","taint.Effect":"NoSchedule"}',
        source:
          'https://github.com/awslabs/LogParserForKarpenter/blob/61d321d60040b7eadaa6922083d7e693e6c1e14e/sample-input.txt (shared samples ref-061)',
      },
    ],
  },
});
