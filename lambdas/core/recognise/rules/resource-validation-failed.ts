import { DOCS } from '../../advice/docs-links';
import { hasErrorCode } from '../../advice/karpenter';
import type { RemediationStep } from '../../advice/types';
import { anyOf, defineRule } from './types';

const CORE_CRDS = 'kubernetes-sigs/karpenter@v1.14.1:pkg/apis/crds/karpenter.sh_nodepools.yaml';
const AWS_CRDS = 'aws/karpenter-provider-aws@v1.14.1:pkg/apis/crds/karpenter.k8s.aws_ec2nodeclasses.yaml';

export default defineRule({
  info: {
    id: 'resource-validation-failed',
    title: 'A NodePool, NodeClaim or EC2NodeClass is rejected by validation or an IAM limit',
    shortTitle: 'Karpenter resource rejected',
    severity: 'high',
    source: 'beyond',
    family: 'configuration',
    emittedBy: 'logs',
    recognises:
      '"is invalid" and webhook denials of Karpenter kinds, CRD CEL rule messages, ValidationSucceeded False, IAM instance-profile quota',
    keyEntity: 'nodeclasses',
  },
  recognition: {
    clauses: [
      // `<Kind>.<group> "<name>" is invalid: <field>: <reason>` from the API server, `The <Kind> "<name>" is invalid` from kubectl
      ['nodepool.karpenter.sh "', ' is invalid'],
      ['nodeclaim.karpenter.sh "', ' is invalid'],
      ['ec2nodeclass.karpenter.k8s.aws "', ' is invalid'],
      ['provisioner.karpenter.sh "', ' is invalid'],
      ['awsnodetemplate.karpenter.k8s.aws "', ' is invalid'],
      ['the nodepool "', ' is invalid'],
      ['the nodeclaim "', ' is invalid'],
      ['the ec2nodeclass "', ' is invalid'],
      // the validating webhooks of Karpenter v0.x
      ['denied the request', 'webhook.karpenter'],
      ...anyOf(
        // CEL rule messages of the Karpenter CRDs, at every v1 release
        "requirements with operator 'in' must have a value defined",
        "requirements with 'minvalues' must have at least that many values",
        'must have a single positive integer value',
        'label domain "karpenter.sh" is restricted',
        'label domain "karpenter.k8s.aws" is restricted',
        'tag contains a restricted tag matching',
        "'alias' is improperly formatted",
        "'alias' is mutually exclusive",
        "or 'custom' when using an",
        'subnetselectorterms cannot be empty',
        'securitygroupselectorterms cannot be empty',
        "expected at least one, got none, ['tags'",
        // Karpenter's own NodeClaim validation
        'has an unsupported operator',
        // IAM: the account's instance profiles are used up (Karpenter creates one per EC2NodeClass role)
        'instanceprofilesperaccount',
      ),
      ['createinstanceprofile', 'limitexceeded'],
    ],
    // EC2NodeClass reasons TagValidationFailed, ClusterCIDRResolutionFailed; NodePool
    // NodePoolValidationFailed; NodeOverlay RuntimeValidation. Authorization and dependency reasons are other rules'.
    conditions: [{ type: 'validationsucceeded' }],
  },
  diagnose: (f) => {
    const nodeclass = f.first('nodeclasses', '<ec2nodeclass-name>');
    const steps: RemediationStep[] = [
      {
        title: 'Read the validation message on the object',
        detail:
          'The ValidationSucceeded condition (or the error kubectl, Helm or Argo CD printed) names the field and the rule it breaks. Read-only.',
        commands: [
          `kubectl get ec2nodeclass ${nodeclass} -o jsonpath='{range .status.conditions[*]}{.type}{"="}{.status}{" "}{.reason}{": "}{.message}{"\\n"}{end}'`,
          `kubectl get nodepool ${f.first('nodepools', '<nodepool-name>')} -o jsonpath='{range .status.conditions[*]}{.type}{"="}{.status}{" "}{.reason}{": "}{.message}{"\\n"}{end}'`,
        ],
      },
      {
        title: 'Fix the spec against the schema of the installed CRDs',
        detail:
          'kubectl explain shows the fields and rules of the installed version; a server-side dry run validates a change without applying it. Manifests written for another Karpenter version (v1beta1 fields, restricted labels or tags, too many requirements) are the usual cause.',
        commands: [
          "kubectl get crd ec2nodeclasses.karpenter.k8s.aws nodepools.karpenter.sh -o 'custom-columns=NAME:.metadata.name,VERSIONS:.spec.versions[*].name'",
          'kubectl apply --dry-run=server -f <manifest.yaml>',
        ],
      },
    ];
    if (hasErrorCode(f, 'LimitExceeded')) {
      steps.unshift({
        title: 'Count the instance profiles of the account',
        detail:
          'IAM allows 1,000 instance profiles per account by default. Profiles left by deleted EC2NodeClasses or old clusters count too: list them, and delete only those no instance uses (remove-role-from-instance-profile, then delete-instance-profile).',
        commands: [
          "aws iam list-instance-profiles --query 'length(InstanceProfiles)'",
          "aws iam list-instance-profiles --query 'InstanceProfiles[?Roles[0]==null].InstanceProfileName'",
        ],
      });
    }
    return {
      diagnosis:
        `Karpenter's configuration was rejected${f.where('nodeclasses', 'for EC2NodeClass')}${f.where('nodepools', 'for NodePool')}` +
        `${f.where('errorCodes', ':')}: the API server or Karpenter's validation refused a NodePool, NodeClaim or ` +
        `EC2NodeClass, or the account ran out of IAM instance profiles. The rejected object is not used until it is ` +
        `fixed, so the NodePools that depend on it cannot launch.`,
      remediation: steps,
      docs: [DOCS.karpenterNodePools, DOCS.karpenterNodeClasses, DOCS.crdValidation, DOCS.iamQuotas],
    };
  },
  examples: {
    fires: [
      {
        line: 'The NodePool "gpu" is invalid: spec.template.spec.requirements[2]: Invalid value: "object": requirements with operator \'In\' must have a value defined',
        source: `constructed from ${CORE_CRDS} x-kubernetes-validations message, in the kubectl "The %s %q is invalid" format`,
      },
      {
        line: '{"level":"ERROR","message":"Reconciler error","error":"EC2NodeClass.karpenter.k8s.aws \\"default\\" is invalid: spec.tags: Invalid value: \\"object\\": tag contains a restricted tag matching karpenter.sh/nodepool"}',
        source: `constructed from ${AWS_CRDS} x-kubernetes-validations message`,
      },
      {
        line: 'Error from server (BadRequest): error when creating "provisioner.yaml": admission webhook "validation.webhook.karpenter.sh" denied the request: validation failed: invalid value: in must have a value defined: spec.requirements[0]',
        source: 'constructed from the admission webhook denial format of Karpenter v0.x validating webhooks',
      },
      {
        line: '  Normal   ValidationSucceeded  30s  karpenter  Status condition transitioned, Type: ValidationSucceeded, Status: Unknown -> False, Reason: TagValidationFailed, Message: tag contains a restricted tag matching kubernetes.io/cluster/',
        source:
          'constructed from aws/karpenter-provider-aws@v1.14.1:pkg/controllers/nodeclass/validation.go ConditionReasonTagValidationFailed',
      },
      {
        line: '{"level":"ERROR","message":"Reconciler error","controller":"nodeclass","error":"creating instance profile, operation error IAM: CreateInstanceProfile, https response error StatusCode: 409, RequestID: 2c4e, LimitExceeded: Cannot exceed quota for InstanceProfilesPerAccount: 1000"}',
        source:
          'constructed from aws/karpenter-provider-aws@v1.14.1:pkg/controllers/nodeclass/instanceprofile.go "creating instance profile, %w" and the IAM LimitExceeded error',
      },
    ],
    silent: [
      {
        line: '  Normal   ValidationSucceeded  30s  karpenter  Status condition transitioned, Type: ValidationSucceeded, Status: Unknown -> True, Reason: ValidationSucceeded',
        source:
          'constructed from aws/karpenter-provider-aws@v1.14.1:pkg/controllers/nodeclass/validation.go (the healthy transition)',
      },
      {
        line: '  Normal   ValidationSucceeded  2m   karpenter  Status condition transitioned, Type: ValidationSucceeded, Status: Unknown -> False, Reason: DependenciesNotReady, Message: Awaiting AMI, Instance Profile, Security Group, and Subnet resolution',
        source:
          'constructed from aws/karpenter-provider-aws@v1.14.1:pkg/controllers/nodeclass/validation.go ConditionReasonDependenciesNotReady (another condition is the cause)',
      },
    ],
  },
});
