import type { Facts } from '../../advice/facts';
import { DOCS } from '../../advice/docs-links';
import { shellArg } from '../../advice/shell';
import { type RemediationStep } from '../../advice/types';
import { deniesLaunch, launchStatements } from '../../advice/launch-permissions';
import { anyOf, defineRule } from './types';

/** The condition keys Karpenter's controller policy tests, filled for this cluster (simulate-principal-policy context). */
function contextEntries(f: Facts): string {
  const cluster = f.input.cluster;
  const pool = f.all('nodepools')[0] ?? '<nodepool-name>';
  const entries: Array<[string, string]> = [
    ['aws:RequestedRegion', f.input.region ?? '<region>'],
    [`aws:RequestTag/kubernetes.io/cluster/${cluster}`, 'owned'],
    [`aws:ResourceTag/kubernetes.io/cluster/${cluster}`, 'owned'],
    ['aws:RequestTag/eks:eks-cluster-name', cluster],
    ['aws:ResourceTag/eks:eks-cluster-name', cluster],
    ['aws:RequestTag/karpenter.sh/nodepool', pool],
    ['aws:ResourceTag/karpenter.sh/nodepool', pool],
  ];
  return entries
    .map(([key, value]) => shellArg(`ContextKeyName=${key},ContextKeyValues=${value},ContextKeyType=string`))
    .join(' ');
}

export default defineRule({
  info: {
    id: 'aws-permission-denied',
    title: 'Karpenter lacks an AWS permission',
    shortTitle: 'AWS permission denied',
    severity: 'high',
    source: 'beyond',
    family: 'aws-access',
    emittedBy: 'logs',
    recognises:
      'UnauthorizedOperation, AccessDenied, "is not authorized to perform", ValidationSucceeded False (*AuthCheckFailed)',
  },
  escalatesOn: 'iamActions',
  filterTerms: ['AccessDenied', 'AuthFailure', 'denied'],
  recognition: {
    clauses: anyOf(
      'unauthorizedoperation',
      'accessdenied',
      'not authorized to perform',
      'authfailure',
      'not authorized to create the service-linked role',
      // AuthFailure.ServiceLinkedRoleCreationNotPermitted's message: "The provided credentials do not have
      // permission to create the service-linked role for EC2 Spot Instances"
      'permission to create the service-linked role',
      'servicelinkedrolecreationnotpermitted',
      'due to missing permissions',
      'unauthorized operation:',
    ),
    // EC2NodeClass dry runs of the calls Karpenter needs (Karpenter v1.1+): ValidationSucceeded False for these reasons.
    conditions: [
      {
        type: 'validationsucceeded',
        reasons: ['createfleetauthcheckfailed', 'createlaunchtemplateauthcheckfailed', 'runinstancesauthcheckfailed'],
      },
    ],
    refinesCapacityWrapper: true,
  },
  // A denied launch action stops every scale-up of the cluster.
  severity: (entities) => (deniesLaunch(entities.iamActions ?? []) ? 'critical' : 'high'),
  diagnose: (f) => {
    const actions = f.all('iamActions');
    const launch = deniesLaunch(actions);
    const role = f.all('roles')[0];
    const roleArn = role ? shellArg(role) : '<karpenter-controller-role-arn>';
    const spotLinkedRole = f.all('errorCodes').some((code) => code.includes('ServiceLinkedRole'));
    const steps: RemediationStep[] = [
      {
        title: 'Check the controller role against the denied action',
        detail:
          "The simulator says which statement denies it (or that none allows it). Karpenter's policy allows most EC2 actions only under tag conditions (aws:RequestTag and aws:ResourceTag on kubernetes.io/cluster/<cluster>, eks:eks-cluster-name, karpenter.sh/nodepool; aws:RequestedRegion), so the context entries below supply them: without them the simulator reports a deny even for a correct policy. Its limits: it does not see the tags of existing resources, SCPs or session policies; the decoded authorization message of the real failure is the authority.",
        commands: [
          `aws iam simulate-principal-policy --policy-source-arn ${roleArn} --action-names ${actions.length ? actions.map(shellArg).join(' ') : '<service:Action>'} --context-entries ${contextEntries(f)} --query 'EvaluationResults[].[EvalActionName,EvalDecision]' --output table`,
          "aws sts decode-authorization-message --encoded-message '<encoded-message>'",
        ],
      },
      {
        title: 'Grant the action in the Karpenter controller policy',
        detail: launch
          ? `Without these statements of Karpenter's published controller policy (getting-started CloudFormation template) nothing can launch. Add the missing one to the controller role's policy:\n${launchStatements(f.input.cluster, f.input.region)}`
          : 'Compare the policy with the one published for your Karpenter version (getting-started CloudFormation template) and add what is missing.',
        commands: [],
      },
    ];
    if (spotLinkedRole) {
      steps.unshift({
        title: 'Create the EC2 Spot service-linked role',
        detail: 'The account has never used Spot and the controller may not create the service-linked role.',
        commands: ['aws iam create-service-linked-role --aws-service-name spot.amazonaws.com'],
      });
    }
    return {
      diagnosis:
        `AWS denied Karpenter${actions.length ? ` ${f.list('iamActions')}` : ' an API call'}${role ? ` (role ${role})` : ''}` +
        `${f.where('errorCodes', ':')}. ${launch ? 'Karpenter cannot launch any node: nothing scales until the controller role allows it.' : 'Karpenter cannot launch, price or clean up instances without it.'}`,
      remediation: steps,
      docs: [DOCS.accessDenied, DOCS.karpenterTroubleshooting],
    };
  },
  examples: {
    fires: [
      {
        line: 'karpenter-controller-6f4958b978-kk2gn manager   ErrorMessage: "The provided credentials do not have permission to create the service-linked role for EC2 Spot Instances.",',
        source: 'https://github.com/aws/karpenter-provider-aws/issues/504 (real-lines-train train-087)',
      },
      {
        line: 'Warning  MissingIAMPermissions  Unauthorized operation: failed to call ec2:DescribeSubnets due to missing permissions.',
        source: 'https://github.com/eksctl-io/eksctl/issues/8768 (real-lines-train train-247)',
      },
      {
        line: '{"kind":"Event","apiVersion":"v1","involvedObject":{"kind":"NodeClaim","name":"default-x8k2p"},"reason":"SpotServiceLinkedRoleCreationFailed","message":"AuthFailure.ServiceLinkedRoleCreationNotPermitted: The provided credentials do not have permission to create the service-linked role for EC2 Spot Instances.","type":"Warning","source":{"component":"karpenter"}}',
        source:
          "constructed from EC2's AuthFailure.ServiceLinkedRoleCreationNotPermitted message in a NodeClaim Event JSON",
      },

      {
        line: '{"level":"ERROR","message":"failed launching nodeclaim","error":"creating instance, operation error EC2: CreateFleet, https response error StatusCode: 403, RequestID: 1, api error UnauthorizedOperation: You are not authorized to perform this operation."}',
        source:
          "constructed from the AWS SDK for Go v2 error 'operation error %s: %s, https response error StatusCode: %d, RequestID: %s, api error %s: %s' with UnauthorizedOperation",
      },
      {
        line: 'operation error STS: AssumeRoleWithWebIdentity, https response error StatusCode: 403, api error AccessDenied: Not authorized to perform sts:AssumeRoleWithWebIdentity',
        source: 'constructed from the AWS SDK for Go v2 error shape with the STS error code AccessDenied',
      },
    ],
    silent: [
      {
        line: '2023-01-20T01:54:09.557Z        DEBUG   controller.aws  hydrating the launch template cache     {"commit": "f60dacd", "tag-key": "karpenter.k8s.aws/cluster", "tag-value": "bersr"}',
        source:
          'https://github.com/aws-ia/terraform-aws-eks-blueprints/pull/1365 (test/fixtures/karpenter-samples.jsonl ref-051)',
      },
    ],
  },
});
