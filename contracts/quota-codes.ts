/**
 * The EC2 quotas `ec2-quota-exceeded` may raise: running On-Demand instances and all Spot requests,
 * for the Standard, G and VT, and P families (Service Quotas codes of service `ec2`, the ones the
 * quota advice points to). The remediator refuses any other code and the stack's IAM policy names
 * only these.
 */
export const RAISABLE_QUOTA_CODES: readonly string[] = [
  'L-1216C47A',
  'L-34B43A08',
  'L-DB2E81BA',
  'L-3819A6DF',
  'L-417A185B',
  'L-7212CCBC',
];
