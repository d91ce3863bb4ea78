import * as z from 'zod';
import { FINDING_EVENT_REASONS } from './events';
import { ACTION_IDS } from './remediation';

/**
 * The `detail` of a `Karpenter Finding` / `Karpenter Finding Resolved` event, as consumers may rely
 * on it (README, "What arrives"; docs/architecture.md): the finding document plus why it went out.
 * Fields are only ever added: a consumer ignores those it does not know, this schema names them all.
 */
export const FINDING_EVENT_DETAIL = z.strictObject({
  schemaVersion: z.literal('1'),
  findingId: z.string().regex(/^[0-9a-f]{24}$/),
  status: z.enum(['open', 'ongoing', 'resolved']),
  reason: z.enum(FINDING_EVENT_REASONS),
  /** What an escalation added, in words: only with `reason: escalation`. */
  changed: z.string().optional(),
  rule: z.string().regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/),
  title: z.string().min(1),
  severity: z.enum(['critical', 'high', 'medium', 'low']),
  cluster: z.string().min(1),
  account: z
    .string()
    .regex(/^\d{12}$/)
    .nullable(),
  region: z.string().min(1).nullable(),
  firstSeen: z.iso.datetime().nullable(),
  lastSeen: z.iso.datetime().nullable(),
  occurrences: z.number().int().positive(),
  causes: z.array(z.string()).optional(),
  entities: z.record(z.string().regex(/^[a-z][a-zA-Z]*$/), z.array(z.string().min(1))),
  evidence: z
    .array(
      z.strictObject({
        message: z.string(),
        timestamp: z.string().optional(),
        logGroup: z.string().optional(),
        logStream: z.string().optional(),
        eventId: z.string().optional(),
        file: z.string().optional(),
        line: z.number().int().optional(),
      }),
    )
    .max(3),
  context: z.looseObject({ enrichmentErrors: z.array(z.looseObject({ source: z.string(), message: z.string() })) }),
  diagnosis: z.string().min(1),
  remediation: z.array(
    z.strictObject({
      title: z.string().min(1),
      detail: z.string(),
      commands: z.array(z.string().min(1)),
      action: z.enum(Object.values(ACTION_IDS) as [string, ...string[]]).optional(),
    }),
  ),
  docs: z.array(z.url()),
});
