import { quotaForCode } from './quota-family';

/**
 * The EC2 quota of a finding for the enrichment (which reads its value) and the remediator: the
 * bucket of the instance type (lambdas/core/advice/quota-family.ts); none when no instance type
 * names one. EC2's error never names the bucket, so a default (Standard) would point a GPU NodePool
 * at the wrong quota and file that increase: nothing is read or filed for a guess, as the advice
 * names no quota then.
 */
export function ec2QuotaFor(
  code: string | undefined,
  instanceType: string | undefined,
): { code: string; name: string } | undefined {
  const quota = quotaForCode(code, instanceType);
  return quota ? { code: quota.code, name: quota.name } : undefined;
}
