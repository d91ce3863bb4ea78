import { DOCS } from '../../advice/docs-links';
import { karpenterNamespace, karpenterServiceAccount } from '../../advice/karpenter';
import { defineRule } from './types';

export default defineRule({
  info: {
    id: 'karpenter-rbac-forbidden',
    title: "Karpenter's service account is forbidden by Kubernetes RBAC",
    shortTitle: 'Karpenter RBAC forbidden',
    severity: 'critical',
    source: 'beyond',
    family: 'control-plane',
    emittedBy: 'logs',
    recognises:
      'API server forbidden for the Karpenter service account: User "system:serviceaccount:…:karpenter" cannot …',
  },
  filterTerms: ['forbidden'],
  recognition: {
    // k8s.io/apiserver responsewriters: `<resource> is forbidden: User "<user>" cannot <verb> resource "<resource>"
    // in API group "<group>" (at the cluster scope | in the namespace "<ns>")`.
    // The quotes come escaped (\\") when the message sits in a klog key/value pair.
    clauses: [
      ['system:serviceaccount:', ':karpenter" cannot '],
      ['system:serviceaccount:', ':karpenter\\" cannot '],
      ['system:serviceaccount:', ':karpenter-controller" cannot '],
      ['system:serviceaccount:', ':karpenter-controller\\" cannot '],
      ['system:serviceaccount:', ' cannot ', 'in api group "karpenter.'],
      ['system:serviceaccount:', ' cannot ', 'in api group \\"karpenter.'],
    ],
  },
  diagnose: (f) => {
    const account = karpenterServiceAccount(f);
    const as = account.known
      ? `system:serviceaccount:${account.namespace}:${account.name}`
      : `system:serviceaccount:${karpenterNamespace(f)}:<karpenter-service-account>`;
    return {
      diagnosis:
        `The Kubernetes API server refuses Karpenter's service account${f.where('serviceAccounts', '')}: its ClusterRoles ` +
        `and Roles do not grant what this Karpenter version needs (leases, nodeclaims, nodepools, ec2nodeclasses, ` +
        `nodes, pods/eviction…). This follows an upgrade that changed the controller but not the chart's RBAC, a ` +
        `renamed service account or namespace, or Helm values that turned RBAC off. Distinct from AWS IAM denials.`,
      remediation: [
        {
          title: 'See which roles are bound to the service account',
          detail: `Read-only. \`kubectl auth can-i --list --as=${as}\` then lists what it may do (impersonation needs your own permission to impersonate service accounts).`,
          commands: ['kubectl get clusterrolebindings,rolebindings -A -o wide | grep -i karpenter'],
        },
        {
          title: 'Install the RBAC of the running Karpenter version',
          detail:
            "The chart of the controller's version carries its ClusterRoles and bindings; upgrade the release to the same chart version as the image, with the service account name and namespace it binds. Upgrading the release restarts the controller pods.",
          commands: [
            `helm -n ${karpenterNamespace(f)} list`,
            `kubectl -n ${account.namespace} get deployment -l app.kubernetes.io/name=karpenter -o jsonpath='{.items[*].spec.template.spec.containers[0].image}'`,
          ],
        },
      ],
      docs: [DOCS.rbac, DOCS.karpenterUpgrade],
    };
  },
  examples: {
    fires: [
      {
        line: '{"level":"ERROR","time":"2025-04-12T10:02:11.310Z","logger":"controller","caller":"cache/reflector.go:158","message":"Unhandled Error","error":"failed to list *v1.NodeClaim: nodeclaims.karpenter.sh is forbidden: User \\"system:serviceaccount:kube-system:karpenter\\" cannot list resource \\"nodeclaims\\" in API group \\"karpenter.sh\\" at the cluster scope"}',
        source:
          'constructed from kubernetes/kubernetes@v1.31.0:staging/src/k8s.io/apiserver/pkg/endpoints/handlers/responsewriters/errors.go forbidden message format',
      },
      {
        line: 'E0412 10:02:11.310492       1 reflector.go:158] "Unhandled Error" err="failed to list *v1.NodePool: nodepools.karpenter.sh is forbidden: User \\"system:serviceaccount:platform-autoscaling:karpenter\\" cannot list resource \\"nodepools\\" in API group \\"karpenter.sh\\" at the cluster scope" logger="UnhandledError"',
        source:
          'constructed from kubernetes/kubernetes@v1.31.0:staging/src/k8s.io/client-go/tools/cache/reflector.go "Unhandled Error" with the forbidden message quoted as a klog value',
      },
      {
        line: 'E0412 10:02:13.000154       1 leaderelection.go:436] error retrieving resource lock karpenter/karpenter-leader-election: leases.coordination.k8s.io "karpenter-leader-election" is forbidden: User "system:serviceaccount:karpenter:karpenter" cannot get resource "leases" in API group "coordination.k8s.io" in the namespace "karpenter"',
        source:
          'constructed from kubernetes/kubernetes@v1.31.0:staging/src/k8s.io/client-go/tools/leaderelection/leaderelection.go "error retrieving resource lock %v: %v"',
      },
      {
        line: '2025-04-12T10:02:15.402Z\tERROR\tcontroller\tReconciler error\t{"controller": "nodepool.readiness", "error": "ec2nodeclasses.karpenter.k8s.aws \\"default\\" is forbidden: User \\"system:serviceaccount:autoscaling:karpenter-sa\\" cannot get resource \\"ec2nodeclasses\\" in API group \\"karpenter.k8s.aws\\" at the cluster scope"}',
        source: 'constructed from the forbidden message format, in the zap console encoding of Karpenter v0.x',
      },
    ],
    silent: [
      {
        line: '{"level":"ERROR","message":"Reconciler error","error":"pods \\"web-1\\" is forbidden: User \\"system:serviceaccount:kube-system:replicaset-controller\\" cannot create resource \\"pods\\" in API group \\"\\" in the namespace \\"shop\\""}',
        source: "constructed from the forbidden message format, for a service account other than Karpenter's",
      },
      {
        line: '{"level":"INFO","time":"2025-04-12T10:02:16.000Z","logger":"controller","message":"successfully acquired lease karpenter/karpenter-leader-election"}',
        source:
          'constructed from kubernetes/kubernetes@v1.31.0:staging/src/k8s.io/client-go/tools/leaderelection/leaderelection.go "successfully acquired lease %v"',
      },
    ],
  },
});
