import type { ActionId } from '../../../contracts/remediation';
import type { FindingContext } from '../findings/context';
import type { Entities } from '../model';
import type { RuleId } from '../recognise/rules/ids';

export interface RemediationStep {
  title: string;
  detail: string;
  commands: string[];
  action?: ActionId;
}

/** What happened and why, the commands that fix it, and where to read more. */
export interface Diagnosis {
  diagnosis: string;
  remediation: RemediationStep[];
  docs: string[];
}

export interface DiagnoseInput {
  rule: RuleId;
  cluster: string;
  region?: string;
  entities: Entities;
  occurrences: number;
  context: FindingContext;
  /** The evidence lines (sanitised), for values only the message states (EC2's vCPU limit, an OOM's limit). */
  evidence?: readonly string[];
}
