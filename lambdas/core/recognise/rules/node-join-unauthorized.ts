import { DOCS } from '../../advice/docs-links';
import { shellArg } from '../../advice/shell';
import { anyOf, defineRule } from './types';

export default defineRule({
  info: {
    id: 'node-join-unauthorized',
    title: "The API server rejects new nodes' credentials (no access entry or aws-auth mapping)",
    shortTitle: 'nodes refused by API server',
    severity: 'critical',
    source: 'beyond',
    family: 'node',
    emittedBy: 'logs',
    recognises:
      'kubelet requests Unauthorized, IAM authenticator "ARN is not mapped", system:anonymous or system:node users forbidden',
  },
  filterTerms: ['Unauthorized'],
  recognition: {
    clauses: [
      // kubelet: its requests come back 401 when the node role maps to no Kubernetes identity
      ['register node', 'unauthorized'],
      ['error getting node', 'unauthorized'],
      ['failed to ensure lease exists', 'unauthorized'],
      ['failed to list *v1.node', 'unauthorized'],
      ['failed to watch *v1.node', 'unauthorized'],
      // every kubelet informer and reflector (client-go tools/cache/reflector.go "failed to list %v: %w",
      // "%s: Failed to watch %v: %v"), in the pre-1.30 and the "Unhandled Error" wordings
      ['failed to list *', ': unauthorized'],
      ['failed to watch *', ': unauthorized'],
      ['certificate signing request', 'unauthorized'],
      // aws-iam-authenticator in the control plane log group (authenticator stream)
      ...anyOf('arn is not mapped'),
      // the API server's forbidden format for an identity that is not a node, or not this node
      ['system:anonymous', ' cannot '],
      ['system:node:', ' cannot '],
      ['is not allowed to modify node'],
    ],
    // The kubelet's "Unable to register node" is a bootstrap failure in general; refused credentials are this one.
    supersedes: ['node-bootstrap-failed'],
  },
  diagnose: (f) => {
    const roleArn = f.all('roles')[0];
    const role = roleArn ? shellArg(roleArn) : '<node-role-arn>';
    return {
      diagnosis:
        `New nodes${f.paren('nodes')} cannot authenticate to the API server` +
        `${roleArn ? ` with role ${roleArn}` : ''}: the node IAM role of the EC2NodeClass has no access entry of type ` +
        `EC2_LINUX (or EC2_WINDOWS), nor an aws-auth mapping with the groups system:bootstrappers and system:nodes. ` +
        `The instances run, the kubelet is refused, and Karpenter deletes each NodeClaim when its registration times out.`,
      remediation: [
        {
          title: 'See which role the nodes use and how the cluster authenticates',
          detail:
            'The EC2NodeClass names the role (spec.role) or instance profile; the cluster authentication mode says whether access entries, aws-auth or both are read. Read-only.',
          commands: [
            `kubectl get ec2nodeclass ${f.first('nodeclasses', '<ec2nodeclass-name>')} -o jsonpath='{.spec.role}{" "}{.status.instanceProfile}'`,
            `aws eks describe-cluster --name ${f.cluster} --query 'cluster.accessConfig.authenticationMode'${f.region}`,
            `aws eks list-access-entries --cluster-name ${f.cluster}${f.region}`,
            'kubectl -n kube-system get configmap aws-auth -o yaml',
          ],
        },
        {
          title: 'Give the node role an access entry',
          detail:
            'With access entries enabled (API or API_AND_CONFIG_MAP) one entry of type EC2_LINUX lets every node of the role join; it grants node permissions only, to that role. With CONFIG_MAP only, add the role to mapRoles in aws-auth with username system:node:{{EC2PrivateDNSName}} and groups system:bootstrappers, system:nodes instead; a malformed aws-auth locks users out, so edit it with care.',
          commands: [
            `aws eks create-access-entry --cluster-name ${f.cluster} --principal-arn ${role} --type EC2_LINUX${f.region}`,
          ],
        },
      ],
      docs: [DOCS.accessEntries, DOCS.awsAuth, DOCS.nodesJoin],
    };
  },
  examples: {
    fires: [
      {
        line: 'E0203 23:10:24.695072    3824 reflector.go:126] k8s.io/client-go/informers/factory.go:133: Failed to list *v1beta1.CSIDriver: Unauthorized',
        source: 'https://github.com/awslabs/amazon-eks-ami/issues/414 (train-271, client-go informer refused)',
      },
      {
        line: 'Feb 02 03:48:20 ip-10-0-1-2 kubelet[2101]: E0202 03:48:20.410771    2101 reflector.go:158] "Unhandled Error" err="k8s.io/client-go/informers/factory.go:160: Failed to watch *v1.RuntimeClass: failed to list *v1.RuntimeClass: Unauthorized" logger="UnhandledError"',
        source:
          'constructed from kubernetes/client-go@v0.31 tools/cache/reflector.go "%s: Failed to watch %v: %v" wrapping "failed to list %v: %w", in the v1.30+ "Unhandled Error" wording',
      },
      {
        line: '{"hostname": "ip-10-0-1-2.us-west-2.compute.internal", "systemd_unit": "kubelet.service", "message": "E0202 03:48:20.410771    2101 reflector.go:147] k8s.io/client-go/informers/factory.go:159: Failed to watch *v1.CSIDriver: failed to list *v1.CSIDriver: Unauthorized"}',
        source: 'constructed from kubernetes/client-go@v0.29 tools/cache/reflector.go, as a /dataplane record',
      },
      {
        line: 'E0412 09:14:52.611027    3012 kubelet_node_status.go:99] "Unable to register node with API server" err="Unauthorized" node="ip-10-40-33-201.eu-central-1.compute.internal"',
        source:
          'constructed from kubernetes/kubernetes@v1.31.0:pkg/kubelet/kubelet_node_status.go \'klog.ErrorS(err, "Unable to register node with API server", …)\' with the 401 status text',
      },
      {
        line: 'Apr 12 09:15:10 ip-10-40-33-201 kubelet[3012]: E0412 09:15:10.004130    3012 reflector.go:158] "Unhandled Error" err="k8s.io/client-go/informers/factory.go:160: Failed to watch *v1.Node: failed to list *v1.Node: Unauthorized"',
        source:
          'constructed from kubernetes/kubernetes@v1.31.0:staging/src/k8s.io/client-go/tools/cache/reflector.go "Failed to watch %v: failed to list %v: %v"',
      },
      {
        line: 'time="2025-04-12T09:14:52Z" level=warning msg="access denied" arn="arn:aws:iam::210987654321:role/KarpenterNodeRole-shop" client="127.0.0.1:51234" error="ARN is not mapped" method=POST path=/authenticate',
        source:
          'constructed from kubernetes-sigs/aws-iam-authenticator@v0.6.20:pkg/server/server.go \'"access denied" … "ARN is not mapped"\'',
      },
      {
        line: 'E0412 09:15:21.781102    3012 kubelet_node_status.go:99] "Unable to register node with API server" err="nodes is forbidden: User \\"system:anonymous\\" cannot create resource \\"nodes\\" in API group \\"\\" at the cluster scope" node="ip-10-40-33-201.eu-central-1.compute.internal"',
        source:
          'constructed from kubernetes/kubernetes@v1.31.0:staging/src/k8s.io/apiserver/pkg/endpoints/handlers/responsewriters/errors.go forbidden message format',
      },
    ],
    silent: [
      {
        line: 'I0202 03:48:20.410771    2101 reflector.go:359] Caches populated for *v1.CSIDriver from k8s.io/client-go/informers/factory.go:160',
        source:
          'constructed from kubernetes/client-go@v0.31 tools/cache/reflector.go "Caches populated for %v from %s"',
      },
      {
        line: 'I0412 09:14:58.412871    3012 kubelet_node_status.go:78] "Successfully registered node" node="ip-10-40-33-201.eu-central-1.compute.internal"',
        source:
          'constructed from kubernetes/kubernetes@v1.31.0:pkg/kubelet/kubelet_node_status.go "Successfully registered node"',
      },
      {
        line: 'time="2025-04-12T09:14:58Z" level=info msg="access granted" arn="arn:aws:iam::210987654321:role/KarpenterNodeRole-shop" client="127.0.0.1:51234" groups="[system:bootstrappers system:nodes]" method=POST path=/authenticate uid="aws-iam-authenticator:210987654321:AROAEXAMPLE" username="system:node:ip-10-40-33-201.eu-central-1.compute.internal"',
        source: 'constructed from kubernetes-sigs/aws-iam-authenticator@v0.6.20:pkg/server/server.go "access granted"',
      },
    ],
  },
});
