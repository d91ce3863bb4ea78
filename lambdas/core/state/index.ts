import { type Analysis, type AnalyzerOptions, StreamingAnalyzer } from '../analyze';
import { type AutoMode, autoModeOf } from './auto-mode';
import type { ClusterSnapshot } from './snapshot';
import { failingConditions, snapshotMessages } from './statements';

export { autoModeAdvice, autoModeOf, type AutoMode, type AutoModeTrap } from './auto-mode';
export { LAUNCH_REASON_ERRORS } from './launch-reasons';
export { type ClusterSnapshot, itemsOf, snapshotOf } from './snapshot';
export { failingConditions, isFailingCondition, snapshotMessages } from './statements';

/** What a snapshot of the cluster shows: the same analysis as the log path's, and whether it is Auto Mode. */
export interface StateAnalysis {
  analysis: Analysis;
  autoMode: AutoMode;
  /** Failing conditions read (NodeClaims, NodePools, node classes). */
  conditions: number;
  /** Pending pods read. */
  pendingPods: number;
}

/**
 * The state reader: a snapshot of cluster objects → the incidents the log path gives for the same
 * failures (same rules, entities and finding ids), through the log path's own parser and classifier.
 */
export function analyzeSnapshot(
  snapshot: ClusterSnapshot,
  options: Pick<AnalyzerOptions, 'cluster' | 'account' | 'onChange'>,
): StateAnalysis {
  const analyzer = new StreamingAnalyzer({ ...options, resolution: { launches: true } });
  analyzer.analyzeAll(snapshotMessages(snapshot));
  return {
    analysis: analyzer.finish(),
    autoMode: autoModeOf(snapshot),
    conditions: failingConditions(snapshot).length,
    pendingPods: snapshot.pods.length,
  };
}
export { clusterSays, pollChanges, type PollChanges } from './poll';
