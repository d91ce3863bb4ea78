import { CONTROLLER_RESTART_NOTE, HELM_OWNED_NOTE } from '../../advice/side-effects';
import { helmSet } from '../../advice/controller';
import { shellArg } from '../../advice/shell';
import { FIND_CONTROLLER } from '../../advice/controller';
import { DOCS } from '../../advice/docs-links';
import { anyOf, defineRule } from './types';

export default defineRule({
  info: {
    id: 'leader-election-lost',
    title: 'Karpenter loses leader election',
    shortTitle: 'leader election lost',
    severity: 'high',
    source: 'beyond',
    family: 'control-plane',
    emittedBy: 'logs',
    recognises: 'failed to renew lease, error retrieving resource lock, leader election lost',
  },
  recognition: {
    clauses: anyOf(
      'leader election lost',
      'leaderelection lost',
      'failed to renew lease',
      'error retrieving resource lock',
      'failed to update lock',
    ),
  },
  diagnose: (f) => {
    const where = f.controller();
    const ns = shellArg(where.namespace);
    return {
      diagnosis:
        'Karpenter cannot renew its leader lease, so the controller restarts and stops provisioning meanwhile. The API ' +
        'server is slow or unreachable from the pod, or the controller is starved of CPU.',
      remediation: [
        {
          title: 'Do this now: check the lease and the controller pods',
          detail: 'Frequent restarts and CPU throttling show in the pod status and metrics.',
          commands: [
            ...(where.known ? [] : [FIND_CONTROLLER]),
            `kubectl -n ${ns} get lease karpenter-leader-election -o yaml`,
            `kubectl -n ${ns} get pods -l app.kubernetes.io/name=karpenter -o wide`,
            `kubectl -n ${ns} top pod -l app.kubernetes.io/name=karpenter`,
          ],
        },
        {
          title: 'Give the controller room',
          detail:
            "Check API server health, then raise the controller's CPU request (controller.resources in the chart) above the one it has now: the first command shows its requests and limits (the chart's example is 1 CPU; a fixed value can be lower than yours). With a CPU limit, raise the limit to at least the new request too, or the upgrade is rejected. " +
            `${HELM_OWNED_NOTE} ${CONTROLLER_RESTART_NOTE}`,
          commands: [
            `kubectl -n ${ns} get deployment ${shellArg(where.deployment)} -o jsonpath='{.spec.template.spec.containers[0].resources}{"\\n"}'`,
            "kubectl get --raw='/readyz?verbose'",
            ...helmSet(where, { 'controller.resources.requests.cpu': '<cpu-above-current>' }).slice(1),
          ],
        },
      ],
      docs: [DOCS.leases, DOCS.karpenterTroubleshooting],
    };
  },
  examples: {
    fires: [
      {
        line: 'E1105 10:00:00.000000       1 leaderelection.go:330] error retrieving resource lock karpenter/karpenter-leader-election: Get "https://10.100.0.1:443/apis/coordination.k8s.io/v1/namespaces/karpenter/leases/karpenter-leader-election": context deadline exceeded',
        source: "constructed from client-go leaderelection's 'error retrieving resource lock %v: %v'",
      },
      {
        line: 'E0206 17:26:20.694975       1 leaderelection.go:361] Failed to update lock: Put "https://10.100.0.1:443/apis/coordination.k8s.io/v1/namespaces/karpenter/leases/karpenter-leader-election": context deadline exceeded',
        source:
          'https://github.com/aws/karpenter-provider-aws/issues/1283 (test/fixtures/karpenter-samples.jsonl ref-016)',
      },
      {
        line: 'panic: Unable to start manager, leader election lost',
        source:
          'https://github.com/aws/karpenter-provider-aws/issues/1283 (test/fixtures/karpenter-samples.jsonl ref-017)',
      },
    ],
    silent: [
      {
        line: 'I1105 10:00:00.000000       1 leaderelection.go:258] successfully acquired lease karpenter/karpenter-leader-election',
        source: "constructed from client-go leaderelection's 'successfully acquired lease %v'",
      },
    ],
  },
});
