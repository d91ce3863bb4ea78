import { FilterPattern, type IFilterPattern } from 'aws-cdk-lib/aws-logs';

/**
 * Terms of the default subscription filter: a log event reaches the analyzer when it holds any of
 * them as a whole word (CloudWatch Logs term semantics, case-sensitive). Levels catch most failures,
 * but real ones are also logged at INFO or as Normal events, so the wording of those is listed too
 * (consolidation events, scheduler messages, EC2 error codes, kernel OOM lines). Only letters and
 * digits: no quoting, no regex, and a term that matches as a word also matches as a substring, so
 * the pattern passes at least what the test measures under either reading of the semantics.
 * The test in test/lib/filter-pattern.test.ts proves that every failure line of the shared samples
 * passes, and measures how much of the healthy bulk is dropped.
 */
export const DEFAULT_FILTER_TERMS = [
  // levels and event types
  'ERROR',
  'error',
  'Error',
  'WARN',
  'Warning',
  'warning',
  'failed',
  'Failed',
  'FAILED',
  'panic',
  // failures logged at INFO or as Normal events
  'Unconsolidatable',
  'DisruptionBlocked',
  'incompatible',
  'available',
  'untolerated',
  'tolerate',
  'unschedulable',
  'Unschedulable',
  'Insufficient',
  'NotReady',
  'NodeNotReady',
  'DiskPressure',
  'NodeHasDiskPressure',
  'OOMKilled',
  'OOMKilling',
  'Killed',
  'timeout',
  'x509',
  // EC2 and IAM error codes that appear without a level in relayed messages
  'InsufficientCidrBlocks',
  'InsufficientFreeAddressesInSubnet',
  'VcpuLimitExceeded',
  'AccessDenied',
  'AuthFailure',
  // the EBS KMS key an instance cannot launch with, as its state-transition reason
  'InvalidKMSKey',
  // node bootstrap and join (kubelet klog lines carry no level word), Kubernetes API access and validation
  'Unable',
  'Unauthorized',
  'forbidden',
  'invalid',
  'denied',
  'compatible',
  // status conditions turning False (Karpenter logs them as Normal events)
  'False',
  // AWS credential, throttling and AMI discovery codes relayed without a level
  'NoCredentialProviders',
  'InvalidIdentityToken',
  'LimitExceeded',
  'ParameterNotFound',
  // Words of the AWS error messages that follow a code ("ThrottlingException: Rate exceeded", "is not
  // authorized to perform", "security token … is expired/invalid"): one word stands for many codes.
  'exceeded',
  'authorized',
  'permission',
  'expired',
  'quota',
  'sufficient',
  'insufficient',
  // issue 29's released real lines: Normal events, kubelet, kernel, nodeadm and cloud-init wordings
  'Cannot',
  'exceeds',
  'OOM',
  'oom',
  'Kill',
  'unsatisfiable',
  'failure',
  'retrying',
  'pressure',
  'Pending',
  'nodepools',
  'such',
  'breach',
  'ttl',
  // a console-format (tab-separated) Karpenter line in a Fluent Bit record: its level follows an escaped tab
  'tERROR',
  // Karpenter's Nominated event resolves a scheduling failure of the same delivery (lambdas/core/resolution.ts).
  // The scheduler's Scheduled event would too, but every pod start has one: not worth its volume.
  'Nominated',
] as const;

/** The default pattern: `?term1 ?term2 …`, well under the 1,024-character limit. */
export function defaultFilterPattern(): IFilterPattern {
  return FilterPattern.anyTerm(...DEFAULT_FILTER_TERMS);
}
