/**
 * The reasons of a NodeClaim's `Launched` condition (Karpenter v1.14: aws/karpenter-provider-aws
 * pkg/errors ToReasonMessage, kubernetes-sigs/karpenter CreateError), each with the EC2 error or the
 * Karpenter error text it is derived from. A condition carries only the reason and a fixed message;
 * stating the error it stands for lets the log path's vocabulary recognise it as it recognises the
 * controller's own log line of the same failure.
 */
export const LAUNCH_REASON_ERRORS: Readonly<Record<string, string>> = {
  VCPULimitExceeded: 'VcpuLimitExceeded',
  SpotQuotaExceeded: 'MaxSpotInstanceCountExceeded',
  FleetQuotaExceeded: 'MaxFleetCountExceeded',
  InsufficientFreeAddressesInSubnet: 'InsufficientFreeAddressesInSubnet',
  Unauthorized: 'UnauthorizedOperation',
  SpotSLRCreationFailed: 'AuthFailure.ServiceLinkedRoleCreationNotPermitted',
  AMINotFound: 'InvalidAMIID.NotFound',
  InvalidAMIID: 'InvalidAMIID.Malformed',
  AMIAuthorizationFailure: 'AuthFailure: Not authorized for images',
  LaunchTemplateNotFound: 'InvalidLaunchTemplateId.NotFound',
  SecurityGroupSubnetVPCMismatch: 'InvalidParameter: security groups and subnets belong to different networks',
  InstanceProfileNameInvalid: 'InvalidParameterValue: iamInstanceProfile.name is invalid',
  UserDataSizeLimitExceeded: 'InvalidUserData.Malformed: User data is limited to 16384 bytes',
  RequestLimitExceeded: 'RequestLimitExceeded',
  InternalError: 'InternalError',
  // Karpenter core (cloudprovider.go, instance.go): the wrapping of the error it failed on.
  NodeClassReadinessUnknown: 'resolving nodeclass readiness, nodeclass is in Ready=Unknown',
  InstanceTypeResolutionFailed: 'resolving instance types',
  SubnetResolutionFailed: 'getting subnets',
};

/** Reasons a condition holds while nothing has failed yet (operatorpkg's initial state). */
export const WAITING_REASONS: ReadonlySet<string> = new Set(['AwaitingReconciliation', '']);

/** The error a `Launched` reason stands for; LaunchFailed and unknown reasons stand for their message alone. */
export const launchErrorOf = (reason: string): string | undefined => LAUNCH_REASON_ERRORS[reason];
