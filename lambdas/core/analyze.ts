import { Aggregator, type Incident } from './aggregate';
import { assembleRecords, type Prefilter, type RawMessage } from './assemble';
import type { RuleId } from './rules';
import { classify, mayClassify } from './classify';

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
  // Records that no rule can match (the healthy bulk) are counted but never parsed.
  const prefilter: Prefilter = { keep: mayClassify, skipped: 0 };
  for (const record of assembleRecords(messages, prefilter)) {
    stats.records++;
    for (const signal of classify(record)) {
      stats.signals++;
      stats.signalsByRule[signal.rule] = (stats.signalsByRule[signal.rule] ?? 0) + 1;
      aggregator.add(signal);
    }
  }
  stats.records += prefilter.skipped;
  return { incidents: aggregator.incidentsFound(), stats };
}
