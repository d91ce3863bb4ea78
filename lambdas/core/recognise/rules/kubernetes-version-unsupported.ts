import { DOCS } from '../../advice/docs-links';
import { karpenterNamespace } from '../../advice/karpenter';
import { anyOf, defineRule } from './types';

const VERSION_GO = 'aws/karpenter-provider-aws@v1.14.1:pkg/providers/version/version.go';

export default defineRule({
  info: {
    id: 'kubernetes-version-unsupported',
    title: "The cluster's Kubernetes version is outside what this Karpenter release supports",
    shortTitle: 'Kubernetes version unsupported',
    severity: 'critical',
    source: 'beyond',
    family: 'configuration',
    emittedBy: 'logs',
    recognises:
      '"karpenter version is not compatible with K8s version", "karpenter is not compatible with kubernetes version"',
  },
  recognition: {
    clauses: anyOf(
      'karpenter version is not compatible with k8s version',
      'karpenter is not compatible with kubernetes version',
    ),
  },
  diagnose: (f) => {
    const namespace = karpenterNamespace(f);
    return {
      diagnosis:
        `Karpenter checks the cluster's Kubernetes version against the range its release was built for, and this ` +
        `cluster is outside it: usually the control plane was upgraded before Karpenter. Karpenter refuses to start ` +
        `(or stops reconciling) until the versions match, so nothing scales.`,
      remediation: [
        {
          title: 'Compare the cluster version with the Karpenter version',
          detail: 'Read-only. The compatibility matrix lists the Kubernetes versions of each Karpenter release.',
          commands: [
            `aws eks describe-cluster --name ${f.cluster} --query 'cluster.version' --output text${f.region}`,
            `kubectl -n ${namespace} get deployment -l app.kubernetes.io/name=karpenter -o jsonpath='{.items[*].spec.template.spec.containers[0].image}'`,
          ],
        },
        {
          title: 'Upgrade Karpenter to a release that supports the cluster version',
          detail:
            'Upgrade the CRDs and the controller together, one minor release at a time where the upgrade guide says so; a control plane cannot be downgraded. Next time, upgrade Karpenter before the control plane.',
          commands: [`helm -n ${namespace} list`],
        },
      ],
      docs: [DOCS.karpenterCompatibility, DOCS.karpenterUpgrade],
    };
  },
  examples: {
    fires: [
      {
        line: 'panic: validating kubernetes version, karpenter version is not compatible with K8s version 1.30',
        source: `constructed from aws/karpenter-provider-aws@v0.37.0:pkg/providers/version/version.go 'karpenter version is not compatible with K8s version %s'`,
      },
      {
        line: '{"level":"ERROR","time":"2025-04-12T13:00:00.000Z","logger":"controller","message":"failed to update version","error":"validating kubernetes version, karpenter is not compatible with kubernetes version (version=1.34)"}',
        source: `constructed from ${VERSION_GO} 'serrors.Wrap(fmt.Errorf("karpenter is not compatible with kubernetes version"), "version", …)'`,
      },
    ],
    silent: [
      {
        line: '{"level":"DEBUG","time":"2025-04-12T13:00:00.000Z","logger":"controller","message":"discovered kubernetes version","version":"1.31"}',
        source: `${VERSION_GO} "discovered kubernetes version"`,
      },
    ],
  },
});
