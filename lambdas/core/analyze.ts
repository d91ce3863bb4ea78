import { Aggregator, type Incident } from './aggregate';
import { assembleRecords, type RawMessage } from './assemble';
import type { RuleId } from './catalog';
import { classify } from './classify';

/** Counts of one analysis run: what was read and what it showed. */
export interface AnalysisStats {
  records: number;
  signals: number;
  signalsByRule: Partial<Record<RuleId, number>>;
}

export interface Analysis {
  incidents: Incident[];
  stats: AnalysisStats;
}

/**
 * The pure pipeline after decoding: messages → records (continuations joined) → signals → incidents.
 * It keeps only the incidents, never the records, so memory does not grow with the input.
 */
export function analyzeMessages(messages: Iterable<RawMessage>, cluster: string): Analysis {
  const aggregator = new Aggregator(cluster);
  const stats: AnalysisStats = { records: 0, signals: 0, signalsByRule: {} };
  for (const record of assembleRecords(messages)) {
    stats.records++;
    for (const signal of classify(record)) {
      stats.signals++;
      stats.signalsByRule[signal.rule] = (stats.signalsByRule[signal.rule] ?? 0) + 1;
      aggregator.add(signal);
    }
  }
  return { incidents: aggregator.incidentsFound(), stats };
}
