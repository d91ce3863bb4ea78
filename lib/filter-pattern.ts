import { FilterPattern, type IFilterPattern } from 'aws-cdk-lib/aws-logs';
import { RULE_FILTER_TERMS } from '../contracts/filter-terms.generated';

/**
 * Terms of the default subscription filter, any one as a whole word: levels and the wording of failures
 * logged at INFO or as Normal events (docs/architecture.md, The default subscription filter).
 */
export const DEFAULT_FILTER_TERMS: readonly string[] = [
  ...new Set([
    // levels, event types and failure words of every emitter
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
    'Unable',
    'invalid',
    'unschedulable',
    'Unschedulable',
    // words of the AWS error messages that follow a code ("ThrottlingException: Rate exceeded", "is not
    // authorized to perform", "security token … is expired"): one word stands for many codes
    'exceeded',
    'authorized',
    'permission',
    'expired',
    'quota',
    'sufficient',
    'insufficient',
    // Normal events, kubelet, kernel, nodeadm and cloud-init wordings without a level word
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
    // a zap console line inside a Fluent Bit JSON record: the escaped tab glued to its level
    'tERROR',
    // what each rule's lines say where no level word does: its EC2 codes, event reasons, conditions
    ...RULE_FILTER_TERMS,
    // Karpenter's Nominated event resolves a scheduling failure of the same delivery (lambdas/core/incidents/resolution.ts).
    // The scheduler's Scheduled event would too, but every pod start has one: not worth its volume.
    'Nominated',
  ]),
];

/** The default pattern: `?term1 ?term2 …`, well under the 1,024-character limit. */
export function defaultFilterPattern(): IFilterPattern {
  return FilterPattern.anyTerm(...DEFAULT_FILTER_TERMS);
}
