import { quotaForCode, quotaOf } from './quota-family';

/**
 * The EC2 quota of a finding for the enrichment (which reads its value) and the remediator: the
 * bucket of the instance type (lambdas/core/advice/quota-family.ts); the Standard quota when no
 * instance type is named. The advice itself names no quota then, and offers no increase.
 */
export function ec2QuotaFor(
  code: string | undefined,
  instanceType: string | undefined,
): { code: string; name: string } {
  const quota = quotaForCode(code, instanceType) ?? quotaOf('standard', code === 'MaxSpotInstanceCountExceeded')!;
  return { code: quota.code, name: quota.name };
}
