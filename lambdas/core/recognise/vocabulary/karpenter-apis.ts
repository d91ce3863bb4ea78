import type { KarpenterApi } from '../../common/karpenter-api';

/**
 * Terms of one Karpenter API generation only, as Karpenter's source writes them at its tags
 * (kubernetes-sigs/karpenter, aws/karpenter-provider-aws): API group versions, kinds and labels of
 * v1alpha5 (v0.31 and before), and the `(NodePool=name)` wrapping of v1.x errors. Each pattern has
 * its gates (lower case) and is tried only where one was found, like the entity patterns.
 */
export const API_TEXT_PATTERNS: ReadonlyArray<readonly [KarpenterApi, RegExp, readonly string[]]> = [
  ['karpenter.sh/v1alpha5', /\bkarpenter\.(?:sh\/v1alpha5|k8s\.aws\/v1alpha1)\b/, ['/v1alpha']],
  ['karpenter.sh/v1beta1', /\bkarpenter\.(?:sh|k8s\.aws)\/v1beta1\b/, ['/v1beta1']],
  ['karpenter.sh/v1', /\bkarpenter\.(?:sh|k8s\.aws)\/v1\b/, ['karpenter.sh/v1', 'karpenter.k8s.aws/v1']],
  // v1.x wraps errors with the objects they concern: `… (NodePool=default, NodeClaim=default-x2v9k)`.
  ['karpenter.sh/v1', /\b(?:NodePool|NodeClaim|EC2NodeClass)=[a-z0-9]/, ['nodepool=', 'nodeclaim=', 'nodeclass=']],
  [
    'karpenter.sh/v1alpha5',
    /\b(?:awsnodetemplates?\b|provisioners?\.karpenter\.sh|karpenter\.sh\/provisioner-name|machines?\/[a-z0-9])/i,
    ['awsnodetemplate', 'karpenter.sh/provisioner-name', 'provisioners.karpenter.sh', 'machine/', 'machines/'],
  ],
  // `launching machine, creating cloud provider instance` (v0.24-v0.31), `Launching node, creating
  // cloud provider machine` (v0.5-v0.10), `Pod should schedule on: machine/x` (Nominated events).
  [
    'karpenter.sh/v1alpha5',
    /\b(?:launching|launched|creating|created|registered|initialized|deleting|terminating|garbage collecting|cloud provider) machines?\b/i,
    ['machine'],
  ],
  ['karpenter.sh/v1alpha5', /\bmatched \d{1,4}\/\d{1,4} provisioners\b/, ['provisioners']],
];

/** `incompatible with provisioner "default"`, `exceed limits for provisioner: "default"`: a Provisioner's name. */
export const PROVISIONER_NAMED = /(?<!external |[-/.])\bprovisioners?:? "([a-z0-9][a-z0-9.-]{0,62})"/gi;

/** Gates of PROVISIONER_NAMED. */
export const PROVISIONER_GATE = 'provisioner';

/** Values of `controllerKind` (v0.19+) and `reconciler kind` (v0.4-v0.18) that only v1alpha5 has. */
export const OLD_CONTROLLER_KINDS: ReadonlySet<string> = new Set(['Provisioner', 'Machine', 'AWSNodeTemplate']);
