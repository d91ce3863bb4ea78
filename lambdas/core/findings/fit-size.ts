import type { Finding } from './finding';
import { truncate } from '../common/sanitize';

/**
 * What `render` makes of the finding, cut down step by step (evidence and entity lists first, then
 * the diagnosis text) until it holds at most `maxBytes`: a finding is never dropped for its size.
 */
export function shrunkToFit(finding: Finding, render: (finding: Finding) => string, maxBytes: number): string {
  let current = finding;
  let out = render(current);
  for (const shrink of SHRINK_STEPS) {
    if (Buffer.byteLength(out, 'utf8') <= maxBytes) break;
    current = shrink(current);
    out = render(current);
  }
  return out;
}

const SHRINK_STEPS: ReadonlyArray<(finding: Finding) => Finding> = [
  (f) => ({ ...f, evidence: f.evidence.map((e) => ({ ...e, message: truncate(e.message, 300) })) }),
  (f) => ({
    ...f,
    entities: Object.fromEntries(Object.entries(f.entities).map(([k, v]) => [k, (v ?? []).slice(0, 10)])),
  }),
  (f) => ({
    ...f,
    evidence: f.evidence.slice(0, 1),
    context: { ...f.context, subnets: f.context.subnets?.slice(0, 20) },
  }),
  (f) => ({
    ...f,
    diagnosis: truncate(f.diagnosis, 2000),
    remediation: f.remediation.map((s) => ({ ...s, detail: truncate(s.detail, 500) })),
  }),
];
