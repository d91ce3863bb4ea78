import { DOCS } from '../advice/docs-links';
import { shellArg } from '../advice/shell';
import { type RemediationStep } from '../advice/types';
import { anyOf, defineRule } from './types';

export default defineRule({
  info: {
    id: 'aws-permission-denied',
    title: 'Karpenter lacks an AWS permission',
    severity: 'high',
    source: 'beyond',
    family: 'aws-access',
    emittedBy: 'logs',
    recognises: 'UnauthorizedOperation, AccessDenied, "is not authorized to perform"',
  },
  recognition: {
    clauses: anyOf(
      'unauthorizedoperation',
      'accessdenied',
      'not authorized to perform',
      'authfailure',
      'invalidclienttokenid',
      'not authorized to create the service-linked role',
    ),
    refinesCapacityWrapper: true,
  },
  diagnose: (f) => {
    const actions = f.all('iamActions');
    const role = f.all('roles')[0];
    const roleArn = role ? shellArg(role) : '<karpenter-controller-role-arn>';
    const spotLinkedRole = f.all('errorCodes').some((code) => code.includes('ServiceLinkedRole'));
    const steps: RemediationStep[] = [
      {
        title: 'Check the controller role against the denied action',
        detail: 'The simulator says which statement denies it (or that none allows it).',
        commands: [
          `aws iam simulate-principal-policy --policy-source-arn ${roleArn} --action-names ${actions.length ? actions.map(shellArg).join(' ') : '<service:Action>'}`,
          "aws sts decode-authorization-message --encoded-message '<encoded-message>'",
        ],
      },
      {
        title: 'Grant the action in the Karpenter controller policy',
        detail:
          'Compare the policy with the one published for your Karpenter version (getting-started CloudFormation template) and add what is missing.',
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
        `${f.where('errorCodes', ':')}. Karpenter cannot launch, price or clean up instances without it.`,
      remediation: steps,
      docs: [DOCS.accessDenied, DOCS.karpenterTroubleshooting],
    };
  },
  examples: {
    fires: [
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
        source: 'https://github.com/aws-ia/terraform-aws-eks-blueprints/pull/1365 (shared samples ref-051)',
      },
    ],
  },
});
