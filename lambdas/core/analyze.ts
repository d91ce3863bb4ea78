import { Aggregator, type Incident, type IncidentChange, timeOf } from './incidents/aggregate';
import { RecordAssembler, type Prefilter, type RawMessage, testedWhileItPays } from './parse/assemble';
import type { RuleId } from './recognise/rules/ids';
import { classify, worthParsingOrPlacement } from './recognise/classify';
import { isKarpenterRecord, type KarpenterSources } from './parse/karpenter-source';
import type { LogRecord, Signal } from './model';
import { mayBeLaunchStep } from './incidents/launch-rounds';
import { type ResolutionOptions, ResolutionTracker } from './incidents/resolution';
import { mergeSchedulingCauses } from './incidents/scheduling-causes';
import { looksLikeFailure, type Unrecognised, UnrecognisedCounter } from './recognise/unrecognised';

/** Counts of one analysis run: what was read and what it showed. */
export interface AnalysisStats {
  records: number;
  signals: number;
  /** Records of other containers in a shared log group: counted, never classified. */
  foreignRecords: number;
  /**
   * Scheduling failures not reported because a later event of the same delivery placed every pod
   * they named (Karpenter's Nominated, the scheduler's Scheduled).
   */
  resolvedSignals: number;
  signalsByRule: Partial<Record<RuleId, number>>;
}

export interface Analysis {
  incidents: Incident[];
  stats: AnalysisStats;
  /** Failure-shaped records no rule recognised: counted and shown, never notified. */
  unrecognised: Unrecognised;
}

/**
 * The pure pipeline after decoding: messages → records (continuations joined) → signals → incidents.
 * It keeps only the incidents, never the records, so memory does not grow with the input. With
 * `sources`, records of other containers in a shared log group are counted and skipped.
 */
export function analyzeMessages(
  messages: Iterable<RawMessage>,
  cluster: string,
  options: Pick<AnalyzerOptions, 'sources' | 'account'> = {},
): Analysis {
  const analyzer = new StreamingAnalyzer({ ...options, cluster });
  analyzer.analyzeAll(messages);
  return analyzer.finish();
}

/** Called when a signal opens an incident or adds to what it affects. */
export type ChangeListener = (change: IncidentChange, signal: Signal) => void;

/** What one analysis is of, and who hears of its incidents as they change. */
export interface AnalyzerOptions {
  cluster: string;
  /** The cluster's account when it is not the deployment's own; it goes into every finding id (`keyAccountOf`). */
  account?: string;
  /** When set, records of other containers in a shared log group are counted and skipped. */
  sources?: KarpenterSources;
  /** Called when a signal opens an incident or adds to what it affects. */
  onChange?: ChangeListener;
  /** How held scheduling failures are released; by default at the end of the delivery (`finish`). */
  resolution?: ResolutionOptions;
  /**
   * The messages are slices of larger strings (the CLI's lines, cut from the chunks it reads): each
   * kept record is parsed from a copy, so that what the analysis keeps of it holds no chunk alive
   * (`Prefilter.copyKept`). Messages of a decoded delivery are strings of their own already.
   */
  slicedMessages?: boolean;
}

/**
 * The same pipeline fed one message at a time, from any number of streams (a file, a pipe, two
 * kubectl processes) that share one set of incidents. Each stream assembles its own records, so
 * the lines of two interleaved streams are never joined.
 */
export class StreamingAnalyzer {
  private readonly aggregator: Aggregator;
  private readonly stats: AnalysisStats = {
    records: 0,
    signals: 0,
    foreignRecords: 0,
    resolvedSignals: 0,
    signalsByRule: {},
  };
  // Records that no rule can match and that do not look like failures (the healthy bulk) are
  // counted but never parsed; placements (and launch rounds, when followed) are parsed, as they
  // resolve scheduling failures. Where nearly every record is kept (a filtered delivery), the test
  // is mostly left out (`testedWhileItPays`).
  private readonly prefilter: Prefilter;
  private readonly resolutions: ResolutionTracker;
  private readonly unrecognised = new UnrecognisedCounter();
  private readonly streams = new Set<RecordAssembler>();

  private readonly onChange?: ChangeListener;
  private readonly sources?: KarpenterSources;

  constructor(options: AnalyzerOptions) {
    this.onChange = options.onChange;
    this.sources = options.sources;
    this.aggregator = new Aggregator(options.cluster, options.account);
    this.resolutions = new ResolutionTracker(options.resolution);
    const launches = options.resolution?.launches === true;
    this.prefilter = {
      keep: testedWhileItPays(
        launches ? (raw) => worthParsingOrPlacement(raw) || mayBeLaunchStep(raw) : worthParsingOrPlacement,
      ),
      skipped: 0,
      copyKept: options.slicedMessages === true,
    };
  }

  /** A new stream of messages into this analysis. */
  stream(): MessageStream {
    const assembler = new RecordAssembler(this.prefilter);
    this.streams.add(assembler);
    return {
      push: (message) => {
        const record = assembler.push(message);
        if (record) this.record(record);
      },
      flush: () => {
        const record = assembler.flush();
        if (record) this.record(record);
      },
    };
  }

  /**
   * All the messages of one stream at once (a delivery); its last record is completed by `finish`.
   * Record by record: a record is done with before the next is parsed, so it dies young.
   */
  analyzeAll(messages: Iterable<RawMessage>): void {
    const assembler = new RecordAssembler(this.prefilter);
    this.streams.add(assembler);
    for (const message of messages) {
      const record = assembler.push(message);
      if (record) this.record(record);
    }
  }

  /** The incident of a finding id as it stands now. */
  incident(findingId: string): Incident | undefined {
    return this.aggregator.incident(findingId);
  }

  /** Completes every stream's last record, counts the failures nothing resolved, and returns the analysis. */
  finish(): Analysis {
    for (const assembler of this.streams) {
      const record = assembler.flush();
      if (record) this.record(record);
    }
    for (const signal of this.resolutions.drain()) this.count(signal);
    return this.snapshot();
  }

  /** The analysis so far, without ending any stream (scheduling failures still held are not in it). */
  snapshot(): Analysis {
    return {
      incidents: this.aggregator.incidentsFound(),
      stats: {
        ...this.stats,
        records: this.stats.records + this.prefilter.skipped,
        resolvedSignals: this.resolutions.resolved,
        // The aggregator counts each rule's signals as it adds them: every signal counted is added.
        signalsByRule: this.aggregator.signalsByRule(),
      },
      unrecognised: this.unrecognised.result(),
    };
  }

  private record(record: LogRecord): void {
    this.account(record, this.classified(record));
  }

  /** The signals of a record, or undefined for a record of another container (never classified). */
  private classified(record: LogRecord): Signal[] | undefined {
    if (this.sources && !isKarpenterRecord(record, this.sources)) return undefined;
    return mergeSchedulingCauses(classify(record));
  }

  private account(record: LogRecord, signals: Signal[] | undefined): void {
    this.stats.records++;
    if (signals === undefined) {
      this.stats.foreignRecords++;
      return;
    }
    if (signals.length === 0 && looksLikeFailure(record)) this.unrecognised.add(record);
    for (const signal of this.resolutions.accept(record, signals, timeOf(record))) this.count(signal);
  }

  private count(signal: Signal): void {
    this.stats.signals++;
    const onChange = this.onChange;
    // Without a listener nobody reads what changed: the aggregator builds no answer.
    if (onChange === undefined) {
      this.aggregator.add(signal, false);
      return;
    }
    const change = this.aggregator.add(signal);
    if (change.opened || change.grown.length > 0) onChange(change, signal);
  }
}

/** One stream into a StreamingAnalyzer. */
export interface MessageStream {
  push(message: RawMessage): void;
  /** Completes the record still waiting for continuation lines (the stream ended or went quiet). */
  flush(): void;
}
