/**
 * The EC2 actions without which Karpenter launches nothing: a denial of one of them stops every
 * scale-up of the cluster, so it is critical, and the notice shows the statements to add.
 */
export const LAUNCH_ACTIONS = ['ec2:RunInstances', 'ec2:CreateFleet', 'ec2:CreateLaunchTemplate'] as const;

export const deniesLaunch = (actions: readonly string[]): boolean =>
  actions.some((action) => (LAUNCH_ACTIONS as readonly string[]).includes(action));

/**
 * The two statements of Karpenter's published controller policy (getting-started CloudFormation
 * template, v1) that allow launching: the resources a launch reads, and the ones it creates, tagged
 * for the cluster and a NodePool.
 */
export function launchStatements(cluster: string, region: string | undefined): string {
  const r = region ?? '<region>';
  const arn = (resource: string, account = '*') => `"arn:aws:ec2:${r}:${account}:${resource}"`;
  return [
    '[',
    '  {',
    '    "Sid": "AllowScopedEC2InstanceAccessActions",',
    '    "Effect": "Allow",',
    '    "Action": ["ec2:RunInstances", "ec2:CreateFleet"],',
    '    "Resource": [',
    `      ${arn('image/*', '')},`,
    `      ${arn('snapshot/*', '')},`,
    `      ${arn('security-group/*')},`,
    `      ${arn('subnet/*')},`,
    `      ${arn('capacity-reservation/*')}`,
    '    ]',
    '  },',
    '  {',
    '    "Sid": "AllowScopedEC2InstanceActionsWithTags",',
    '    "Effect": "Allow",',
    '    "Action": ["ec2:RunInstances", "ec2:CreateFleet", "ec2:CreateLaunchTemplate"],',
    '    "Resource": [',
    `      ${arn('fleet/*')},`,
    `      ${arn('instance/*')},`,
    `      ${arn('volume/*')},`,
    `      ${arn('network-interface/*')},`,
    `      ${arn('launch-template/*')},`,
    `      ${arn('spot-instances-request/*')}`,
    '    ],',
    '    "Condition": {',
    '      "StringEquals": {',
    `        ${JSON.stringify(`aws:RequestTag/kubernetes.io/cluster/${cluster}`)}: "owned",`,
    `        "aws:RequestTag/eks:eks-cluster-name": ${JSON.stringify(cluster)}`,
    '      },',
    '      "StringLike": { "aws:RequestTag/karpenter.sh/nodepool": "*" }',
    '    }',
    '  }',
    ']',
  ].join('\n');
}
