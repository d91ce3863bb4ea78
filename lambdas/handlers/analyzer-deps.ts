import type { FindingEnricher } from '../adapters/accounts';
import type { FunctionDeps } from '../shared/invocation';
import type { AnalyzerSettings } from '../shared/settings';

/** What one invocation did; returned to Lambda and used by tests. */
export interface AnalyzerResult {
  /** `unmapped`: no configured cluster lists the delivery's log group; nothing was analysed. */
  outcome: 'control' | 'malformed' | 'unmapped' | 'no-findings' | 'duplicate' | 'processed';
  cluster?: string;
  /** The cluster's account when it is not the deployment's own. */
  account?: string;
  records: number;
  malformed: number;
  incidents: number;
  notified: string[];
  suppressed: number;
  /** Notices sent on their own, and digests (one per cluster at most). */
  notices: number;
  digests: number;
  /** Incidents over the per-delivery limit: counted in the digest, not stored. */
  untracked: number;
  /** Records of other containers in a shared log group, ignored. */
  foreign: number;
}

/** A result with nothing counted yet, `processed` until the analysis says otherwise. */
export const emptyAnalyzerResult = (): AnalyzerResult => ({
  outcome: 'processed',
  records: 0,
  malformed: 0,
  incidents: 0,
  notified: [],
  suppressed: 0,
  notices: 0,
  digests: 0,
  untracked: 0,
  foreign: 0,
});

/** Everything the analyzer needs from outside, injected so tests use mocks and a local table. */
export interface AnalyzerDeps extends FunctionDeps<AnalyzerSettings> {
  /** Reused across warm invocations: its cache is what makes repeated Describe calls cheap. */
  enricher?: FindingEnricher;
}
