import { DOCS } from '../../advice/docs-links';
import { anyOf, defineRule } from './types';
import type { KarpenterApi } from '../../common/karpenter-api';

const AMIFAMILY = 'aws/karpenter-provider-aws@v1.14.1:pkg/providers/amifamily';

/**
 * How each API generation picks an AMI (aliases came with v1, amiFamily before, AL2023 from v0.35),
 * and the EKS SSM parameters of the family to list first.
 */
const AMI_BY_API: Readonly<Record<KarpenterApi, { choice: string; parameters: string }>> = {
  'karpenter.sh/v1': {
    choice:
      'Use an alias of a family that supports the cluster version (al2023@latest, bottlerocket@latest), or pin a version that is published',
    parameters: 'amazon-linux-2023/x86_64/standard',
  },
  'karpenter.sh/v1beta1': {
    choice:
      'Set amiFamily to a family that supports the cluster version (AL2023 from v0.35, Bottlerocket), or select a published image with amiSelectorTerms',
    parameters: 'amazon-linux-2023/x86_64/standard',
  },
  'karpenter.sh/v1alpha5': {
    choice:
      'Set amiFamily to a family that supports the cluster version (AL2, Bottlerocket), or select a published image with amiSelector',
    parameters: 'amazon-linux-2',
  },
};

export default defineRule({
  info: {
    id: 'ami-discovery-failed',
    title: 'The EC2NodeClass AMI alias, SSM parameter or selector resolves to no AMI',
    shortTitle: 'no AMI resolved',
    severity: 'high',
    source: 'beyond',
    family: 'configuration',
    emittedBy: 'logs',
    recognises:
      '"failed to discover any AMIs for alias", SSM ParameterNotFound, "AMISelector did not match any AMIs", AMIsReady False',
    keyEntity: 'nodeclasses',
  },
  filterTerms: ['ParameterNotFound'],
  recognition: {
    clauses: anyOf(
      'failed to discover any amis for alias',
      'discovering amis from ssm',
      'getting ssm parameter',
      'resolving ssm parameter',
      'parameternotfound',
      'amiselector did not match any amis',
      'no amis exist given constraints',
      'al2 aliases are no longer supported',
      'requires eks version',
      'unsupportedalias',
    ),
    conditions: [{ type: 'amisready' }],
  },
  diagnose: (f) => {
    const nodeclass = f.first('nodeclasses', '<ec2nodeclass-name>');
    // Aliases, AMIsReady and the nodeclass Ready condition came with v1 (CRDs at v0.31-v1.0).
    const v1 = f.forV1;
    const ami = AMI_BY_API[f.karpenterApi ?? 'karpenter.sh/v1'];
    return {
      diagnosis: v1
        ? `The EC2NodeClass${f.where('nodeclasses', '')} resolves to no AMI: its alias or SSM parameter has no value ` +
          `for this Region, Kubernetes version or architecture (EKS publishes no AL2 AMI after 1.32, so Karpenter refuses AL2 aliases ` +
          `from 1.33; windows2025 needs 1.35 or later), or its selector terms match no image the account can see. The EC2NodeClass is not ready and its ` +
          `NodePools launch nothing.`
        : `The EC2NodeClass${f.where('nodeclasses', '')} resolves to no AMI: the SSM parameter of its amiFamily has no value ` +
          `for this Region, Kubernetes version or architecture, or its selector terms match no image the account can see. Its NodePools launch nothing.`,
      remediation: [
        {
          title: 'See what the EC2NodeClass asks for and what it resolved',
          detail: v1
            ? 'Read-only. status.amis lists the resolved images; the AMIsReady condition says why there are none.'
            : 'Read-only. status.amis lists the resolved images (the AMIsReady condition that says why came with v1).',
          commands: [
            v1
              ? `kubectl get ec2nodeclass ${nodeclass} -o jsonpath='{.spec.amiSelectorTerms}{"\\n"}{.status.amis}{"\\n"}{.status.conditions[?(@.type=="AMIsReady")].message}'`
              : `kubectl get ec2nodeclass ${nodeclass} -o jsonpath='{.spec.amiFamily}{" "}{.spec.amiSelectorTerms}{"\\n"}{.status.amis}{"\\n"}'`,
            `aws eks describe-cluster --name ${f.cluster} --query 'cluster.version' --output text${f.region}`,
          ],
        },
        {
          title: v1 ? 'Check the parameter the alias reads' : 'Check the parameter the AMI family reads',
          detail:
            'EKS publishes its AMIs under /aws/service/eks/optimized-ami/<k8s version>/…, Bottlerocket under /aws/service/bottlerocket/…; a version or variant that does not exist for the Region returns ParameterNotFound.',
          commands: [
            `aws ssm get-parameters-by-path --path /aws/service/eks/optimized-ami/<k8s-version>/${ami.parameters} --recursive --query 'Parameters[].Name'${f.region}`,
          ],
        },
        {
          title: 'Point the EC2NodeClass at an AMI that exists',
          detail: `${ami.choice}; changing the AMI drifts existing nodes, which Karpenter replaces within your disruption budgets.`,
          commands: [`kubectl edit ec2nodeclass ${nodeclass}`],
        },
      ],
      docs: [DOCS.karpenterNodeClasses, DOCS.eksAmiIds],
    };
  },
  examples: {
    fires: [
      {
        line: '{"involvedObject":{"kind":"EC2NodeClass","name":"default"},"reason":"AMIsReady","message":"Status condition transitioned, Type: AMIsReady, Status: Unknown -> False"}',
        source:
          "constructed from Karpenter v1's status condition event template 'Status condition transitioned, Type: %s, Status: %s -> %s, Reason: %s'",
      },
      {
        line: '{"level":"ERROR","time":"2025-04-12T14:00:00.000Z","logger":"controller","message":"Reconciler error","controller":"nodeclass","EC2NodeClass":{"name":"default"},"error":"getting amis, getting AMI queries, failed to discover any AMIs for alias (alias=al2023@v20991231)"}',
        source: `constructed from ${AMIFAMILY}/al2023.go 'serrors.Wrap(fmt.Errorf("failed to discover any AMIs for alias"), "alias", …)'`,
      },
      {
        line: '2023-11-02T09:41:12.004Z\tERROR\tcontroller.nodeclass\tdiscovering amis from ssm, getting ssm parameter "/aws/service/eks/optimized-ami/1.29/amazon-linux-2-arm64/recommended/image_id", ParameterNotFound: \t{"commit": "1072d3b"}',
        source:
          "constructed from aws/karpenter-provider-aws@v0.32.0:pkg/providers/amifamily/ami.go 'discovering amis from ssm, %s', 'getting ssm parameter %q, %w'",
      },
      {
        line: '  Normal   AMIsReady  12s  karpenter  Status condition transitioned, Type: AMIsReady, Status: Unknown -> False, Reason: AMINotFound, Message: AMISelector did not match any AMIs',
        source:
          'constructed from aws/karpenter-provider-aws@v1.14.1:pkg/controllers/nodeclass/ami.go \'SetFalse(ConditionTypeAMIsReady, "AMINotFound", …)\'',
      },
      {
        line: '{"level":"ERROR","message":"Reconciler error","controller":"nodeclass","error":"getting amis, AL2 aliases are no longer supported on EKS 1.33+ (see https://docs.aws.amazon.com/eks/latest/userguide/kubernetes-versions-standard.html#kubernetes-1-33)"}',
        source: `constructed from ${AMIFAMILY}/ami.go 'AL2 aliases are no longer supported on EKS 1.33+'`,
      },
    ],
    silent: [
      {
        line: '{"level":"DEBUG","time":"2025-04-12T14:00:00.000Z","logger":"controller","message":"discovered amis","controller":"nodeclass","EC2NodeClass":{"name":"default"},"ids":["ami-0a1b2c3d4e5f60718"]}',
        source: 'aws/karpenter-provider-aws@v1.14.1:pkg/controllers/nodeclass/ami.go "discovered amis"',
      },
      {
        line: '  Normal   AMIsReady  40s  karpenter  Status condition transitioned, Type: AMIsReady, Status: False -> True, Reason: AMIsReady',
        source:
          'constructed from aws/karpenter-provider-aws@v1.14.1:pkg/controllers/nodeclass/ami.go (the healthy transition)',
      },
    ],
  },
});
