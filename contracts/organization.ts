/**
 * What the central stack, the spoke stack of every account and the central functions agree on for an
 * organisation: the CloudWatch Logs destination each spoke
 * subscribes its clusters' log groups to, and the roles each spoke creates for the central functions
 * to assume — one read-only role for the enrichment and the headroom check, one narrowly scoped role
 * for the remediator — with the external id they pass and the spoke's trust policy requires.
 */

/** The CloudWatch Logs destination in the central account and region; its name is part of its ARN. */
export const DESTINATION_NAME = 'karpenter-doctor';

/** The spoke's read-only role: EC2, EKS and Auto Scaling Describe calls (and EC2 quotas) only. */
export const ENRICHMENT_ROLE_NAME = 'karpenter-doctor-enrichment';

/** The spoke's remediation role, created only where remediation is enabled. */
export const REMEDIATION_ROLE_NAME = 'karpenter-doctor-remediation';

/** The session name of every role the central functions assume, as the spoke's CloudTrail shows it. */
export const ROLE_SESSION_NAME = 'karpenter-doctor';

/**
 * The `sts:ExternalId` of every assumption: it names the central account, so a spoke role trusts
 * only the deployment of that account, and a role meant for another deployment is never assumed by
 * mistake. Not a secret (see the AWS IAM guide on external ids).
 */
export const externalIdOf = (centralAccount: string): string => `karpenter-doctor-${centralAccount}`;

/** The ARN of a spoke role (`ENRICHMENT_ROLE_NAME`, `REMEDIATION_ROLE_NAME`) in `account`. */
export const spokeRoleArnOf = (partition: string, account: string, roleName: string): string =>
  `arn:${partition}:iam::${account}:role/${roleName}`;

/** The ARN of the central destination, which the spokes' subscription filters and account policies name. */
export const destinationArnOf = (partition: string, region: string, centralAccount: string): string =>
  `arn:${partition}:logs:${region}:${centralAccount}:destination:${DESTINATION_NAME}`;
