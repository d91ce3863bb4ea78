import type { RemediationStep } from '../advice/types';
import type { Incident, Evidence } from '../incidents/aggregate';
import { CATALOG, diagnose, RULE_IDS, severityOf, type RuleId } from '../recognise/rules';
import { emptyContext, type FindingContext } from './context';
import type { Entities, Severity } from '../model';
import { causesSentence } from '../incidents/scheduling-causes';

export type FindingStatus = 'open' | 'ongoing' | 'resolved';

/** The finding contract (README, "What arrives"): EventBridge `detail`, SNS `default`, CLI `--format json`. */
export interface Finding {
  schemaVersion: '1';
  findingId: string;
  status: FindingStatus;
  rule: RuleId;
  title: string;
  severity: Severity;
  cluster: string;
  account: string | null;
  region: string | null;
  firstSeen: string | null;
  lastSeen: string | null;
  occurrences: number;
  /**
   * Other rules the same records showed, merged into this finding as causes (one scheduler event
   * giving an untolerated taint and insufficient cpu is one finding); absent when there are none.
   */
  causes?: RuleId[];
  entities: Entities;
  evidence: Evidence[];
  context: FindingContext;
  diagnosis: string;
  remediation: RemediationStep[];
  docs: string[];
}

export interface FindingOptions {
  status?: FindingStatus;
  account?: string;
  region?: string;
  context?: FindingContext;
  /** The incident's severity as recorded (an escalated headroom warning); by default, severityOf the incident. */
  severity?: Severity;
  /** Occurrences over the whole incident, when a store knows more than this batch. */
  occurrences?: number;
  firstSeen?: string;
}

/** Diagnoses an incident and assembles the finding document. */
export function buildFinding(incident: Incident, options: FindingOptions = {}): Finding {
  const info = CATALOG[incident.rule];
  const context = options.context ?? emptyContext();
  const occurrences = options.occurrences ?? incident.occurrences;
  const input = {
    rule: incident.rule,
    cluster: incident.cluster,
    region: options.region,
    entities: incident.entities,
    occurrences,
    context,
    evidence: incident.evidence.map((e) => e.message),
  };
  const advice = diagnose(input);
  const causes = incident.causes ?? [];
  if (causes.length > 0) {
    // The lead's advice first; then, per cause, its first step, so no reason given goes unanswered.
    advice.diagnosis = `${advice.diagnosis} ${causesSentence(causes, incident.entities)}`;
    for (const cause of causes) {
      const step = diagnose({ ...input, rule: cause }).remediation[0];
      if (!step) continue;
      // An automatic action belongs to the finding's own rule, never to a cause merged into it.
      const { action: _action, ...manual } = step;
      const title = step.title.replace(/^(?:Do this now|Durable fix): /, '');
      advice.remediation.push({ ...manual, title: `Also (${CATALOG[cause].title.toLowerCase()}): ${title}` });
    }
  }
  return {
    schemaVersion: '1',
    findingId: incident.findingId,
    status: options.status ?? 'open',
    rule: incident.rule,
    title: info.title,
    severity: options.severity ?? severityOf(incident),
    cluster: incident.cluster,
    // The cluster's own account when it is another than the deployment's; else the one the caller knows.
    account: incident.account ?? options.account ?? null,
    region: options.region ?? null,
    firstSeen: options.firstSeen ?? incident.firstSeen ?? null,
    lastSeen: incident.lastSeen ?? null,
    occurrences,
    ...(causes.length > 0 && { causes: [...causes] }),
    entities: incident.entities,
    evidence: incident.evidence,
    context,
    ...advice,
  };
}

const STATUSES: readonly string[] = ['open', 'ongoing', 'resolved'];

/**
 * A finding read back from an event (the remediator's input), checked for the fields the consumer
 * relies on; undefined when it is not one. Extra fields are kept; missing optional ones get defaults.
 */
export function parseFinding(value: unknown): Finding | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const v = value as Record<string, unknown>;
  const text = (key: string) => typeof v[key] === 'string' && (v[key] as string).length > 0;
  if (!text('findingId') || !text('cluster') || !text('rule') || !text('status')) return undefined;
  if (!(RULE_IDS as readonly string[]).includes(v.rule as string) || !STATUSES.includes(v.status as string))
    return undefined;
  const remediation = Array.isArray(v.remediation)
    ? v.remediation
        .filter(
          (step): step is RemediationStep =>
            typeof step === 'object' && step !== null && typeof (step as RemediationStep).title === 'string',
        )
        .map((step) => ({
          ...step,
          commands: Array.isArray(step.commands) ? step.commands.filter((c) => typeof c === 'string') : [],
        }))
    : [];
  const context = typeof v.context === 'object' && v.context !== null ? (v.context as FindingContext) : emptyContext();
  return {
    ...(v as unknown as Finding),
    entities: typeof v.entities === 'object' && v.entities !== null ? (v.entities as Entities) : {},
    evidence: Array.isArray(v.evidence) ? (v.evidence as Evidence[]) : [],
    context: { ...context, enrichmentErrors: Array.isArray(context.enrichmentErrors) ? context.enrichmentErrors : [] },
    remediation,
    region: typeof v.region === 'string' ? v.region : null,
    account: typeof v.account === 'string' ? v.account : null,
  };
}
