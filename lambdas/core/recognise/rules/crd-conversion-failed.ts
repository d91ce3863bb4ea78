import { DOCS } from '../../advice/docs-links';
import { karpenterNamespace } from '../../advice/karpenter';
import { defineRule } from './types';

export default defineRule({
  info: {
    id: 'crd-conversion-failed',
    title: "Karpenter's CRDs cannot be converted or served at the version the controller uses",
    shortTitle: 'Karpenter CRDs failing',
    severity: 'critical',
    source: 'beyond',
    family: 'control-plane',
    emittedBy: 'logs',
    recognises:
      'conversion webhook for karpenter.sh failed, "no matches for kind" NodePool/NodeClaim/EC2NodeClass, stored versions',
  },
  recognition: {
    clauses: [
      // k8s.io/apiextensions-apiserver webhook converter: "conversion webhook for %v failed: %v"
      ['conversion webhook for karpenter.'],
      ['conversion webhook for', '/conversion/karpenter'],
      ['conversion request failed', 'karpenter'],
      ['failed to convert', 'karpenter.sh/v'],
      ['failed to convert', 'karpenter.k8s.aws/v'],
      // the CRD (or the version) the controller lists is not installed
      ['no matches for kind', 'karpenter.sh/v'],
      ['no matches for kind', 'karpenter.k8s.aws/v'],
      ['could not find the requested resource', '.karpenter.sh'],
      ['could not find the requested resource', '.karpenter.k8s.aws'],
      // upgrading a CRD that drops a version still stored
      ['storedversions', 'must appear in spec.versions'],
    ],
  },
  diagnose: (f) => {
    const namespace = karpenterNamespace(f);
    return {
      diagnosis:
        `The API server cannot serve Karpenter's objects at the version the controller asks for: the CRDs lack that ` +
        `version, or their conversion webhook (in the Karpenter service) is missing, unreachable or points at the wrong ` +
        `namespace. This is the v1beta1 → v1 upgrade path; until it is fixed Karpenter cannot list NodePools and NodeClaims.`,
      remediation: [
        {
          title: 'See which versions the CRDs serve and store, and where their conversion points',
          detail: 'Read-only. Each CRD must serve the version the controller uses and keep every stored version.',
          commands: [
            "kubectl get crd nodepools.karpenter.sh nodeclaims.karpenter.sh ec2nodeclasses.karpenter.k8s.aws -o 'custom-columns=NAME:.metadata.name,SERVED:.spec.versions[*].name,STORED:.status.storedVersions,CONVERSION:.spec.conversion.strategy'",
            "kubectl get crd nodepools.karpenter.sh -o jsonpath='{.spec.conversion.webhook.clientConfig.service}'",
            `kubectl -n ${namespace} get service,endpoints -l app.kubernetes.io/name=karpenter`,
          ],
        },
        {
          title: 'Install the CRDs of the running Karpenter version',
          detail:
            'The karpenter-crd chart of the same version as the controller installs them; its webhook.serviceNamespace (and webhook.enabled for the v1 migration releases) must name the namespace Karpenter runs in. Applying CRDs never deletes objects, but removing a stored version does: follow the upgrade guide for your versions.',
          commands: [`helm -n ${namespace} list`],
        },
      ],
      docs: [DOCS.karpenterUpgrade, DOCS.crdVersioning],
    };
  },
  examples: {
    fires: [
      {
        line: '{"level":"ERROR","time":"2025-04-12T11:20:03.512Z","logger":"controller","message":"Reconciler error","controller":"nodeclaim.lifecycle","error":"conversion webhook for karpenter.sh/v1beta1, Kind=NodeClaim failed: Post \\"https://karpenter.karpenter.svc:8443/conversion/karpenter.sh?timeout=30s\\": service \\"karpenter\\" not found"}',
        source:
          'constructed from kubernetes/kubernetes@v1.31.0:staging/src/k8s.io/apiextensions-apiserver/pkg/apiserver/conversion/webhook_converter.go "conversion webhook for %v failed: %v"',
      },
      {
        line: 'panic: failed to get informer from cache: unable to retrieve the complete list of server APIs: no matches for kind "NodePool" in version "karpenter.sh/v1"',
        source:
          "constructed from kubernetes-sigs/controller-runtime@v0.19.0:pkg/client/apiutil/restmapper.go 'no matches for kind %q in version %q'",
      },
      {
        line: '  Warning  FailedList  3m  karpenter  the server could not find the requested resource (get ec2nodeclasses.karpenter.k8s.aws)',
        source: 'constructed from the API server NotFound status for an unserved resource',
      },
      {
        line: 'Error: UPGRADE FAILED: cannot patch "nodepools.karpenter.sh" with kind CustomResourceDefinition: CustomResourceDefinition.apiextensions.k8s.io "nodepools.karpenter.sh" is invalid: status.storedVersions[0]: Invalid value: "v1beta1": must appear in spec.versions',
        source:
          'constructed from kubernetes/kubernetes@v1.31.0:staging/src/k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation/validation.go "must appear in spec.versions"',
      },
    ],
    silent: [
      {
        line: '{"level":"INFO","time":"2025-04-12T11:20:00.000Z","logger":"controller","message":"Starting workers","controller":"nodepool.readiness","worker count":10}',
        source:
          'constructed from kubernetes-sigs/controller-runtime@v0.19.0:pkg/internal/controller/controller.go "Starting workers"',
      },
    ],
  },
});
