import { FOLLOW_RESOLUTION_WINDOW_MS } from '../../lambdas/core/incidents/resolution';
import { StreamingAnalyzer, type Analysis, type ChangeListener } from '../../lambdas/core/analyze';
import type { Incident } from '../../lambdas/core/incidents/aggregate';
import type { FindingContext } from '../../lambdas/core/findings/context';
import { buildFinding, type Finding } from '../../lambdas/core/findings/finding';
import { emptyInputStats, type InputStats } from '../../lambdas/core/decode/local-input';
import { escalationKindOf } from '../../lambdas/core/incidents/lifecycle';
import { SEVERITIES, type EntityKind, type Severity } from '../../lambdas/core/model';
import { renderHtml, renderMarkdown } from '../../lambdas/core/findings/render-report';
import { PLAIN, renderFindingText, renderSummary, renderUnrecognised } from '../../lambdas/core/findings/render-text';
import { sanitizeLine } from '../../lambdas/core/common/sanitize';
import type { Io } from './io';
import { readSources, type InputRead } from './read-sources';
import { expandSources, type Source } from './sources';
import { terminalStyle } from './style';
import { InputError } from './text-input';

/** Output formats of analyze; --follow and watch print text or json lines. */
export type OutputFormat = 'text' | 'json' | 'markdown' | 'html';

export interface AnalyzeOptions {
  format: OutputFormat;
  cluster: string;
  region?: string;
  failOn?: Severity;
  enrich?: boolean;
  discoveryTag: string;
  systemNodegroup?: string;
  follow?: boolean;
}

/** Time the CLI gives the live AWS checks; longer than the Lambda's, nobody is waiting on a batch. */
const CLI_ENRICH_BUDGET_MS = 20_000;
/** A stream quiet this long in --follow has its last record completed. */
export const FOLLOW_IDLE_MS = 200;

/** `analyze`: reads every input as a stream, prints the findings; the exit code says whether --fail-on was met. */
export async function analyze(inputs: string[], options: AnalyzeOptions, io: Io): Promise<number> {
  if (options.follow && (options.format === 'markdown' || options.format === 'html')) {
    throw new InputError(`--follow prints text or json, not ${options.format}: findings are printed as they open`);
  }
  const sources = expandSources(inputs, io.cwd);
  if (io.stdinIsTty && sources.some((source) => !source.path)) {
    throw new InputError('no input: name log files or directories, or pipe logs in (… | karpenter-doctor analyze -)');
  }
  const region = options.region ?? (options.enrich ? io.env.AWS_REGION || io.env.AWS_DEFAULT_REGION : undefined);
  if (options.enrich && !region) throw new InputError('--enrich needs a region: pass --region or set AWS_REGION');
  const stats = emptyInputStats();
  const follow = options.follow ? followPrinter(options, region, io) : undefined;
  // Memory is held by bounds, not by a V8 heap limit: what the analysis keeps grows with its
  // incidents (each bounded: evidence, entities, remembered events, held failures), lines are read
  // 64 KiB at a time, and a kept record holds only its own line. A 1 GiB log peaks at about 130 MiB
  // resident, 15–40 MiB of it live heap; a --max-old-space-size would only turn growth nobody
  // foresaw into a crash, so the bin wrapper sets none.
  const analyzer = new StreamingAnalyzer({
    cluster: options.cluster,
    onChange: follow?.onChange,
    // One process reads Karpenter's log and the events together: a launch resolves pending pods.
    resolution: { launches: true, ...(follow ? { windowMs: FOLLOW_RESOLUTION_WINDOW_MS } : {}) },
    // Lines are cut from the chunks read (read-sources.ts): what is kept of a record (a held
    // scheduling failure, an entity value) must not keep its chunk alive.
    slicedMessages: true,
  });
  follow?.attach(analyzer);
  const stop = new AbortController();
  const release = options.follow ? io.onInterrupt(() => stop.abort()) : () => undefined;
  let read: InputRead[];
  try {
    read = await readSources(sources, analyzer, stats, {
      stdin: io.stdin,
      idleFlushMs: options.follow ? FOLLOW_IDLE_MS : undefined,
      signal: stop.signal,
    });
  } finally {
    release();
  }
  const analysis = analyzer.finish();
  reportInputs(sources, read, stats, io);
  // "No findings in 0 records" is not a clean bill: say that nothing was read, and fail a gate on it.
  const nothingRead = analysis.stats.records === 0;
  if (nothingRead) io.stderr('karpenter-doctor: nothing read: the inputs hold no log lines\n');
  const exitOf = (findings: Finding[]): number =>
    nothingRead && options.failOn ? 2 : failsOn(findings, options.failOn) ? 1 : 0;
  if (follow) {
    const findings = analysis.incidents.map((incident) => buildFinding(incident, { region }));
    io.stdout(follow.summary(findings, analysis, stats));
    return exitOf(findings);
  }
  const contexts =
    options.enrich && region ? await enrich(analysis.incidents, options, region) : new Map<string, FindingContext>();
  const findings = analysis.incidents.map((incident) =>
    buildFinding(incident, { region, context: contexts.get(incident.findingId) }),
  );
  io.stdout(render(findings, analysis, stats, read, options.format, io));
  return exitOf(findings);
}

/** True when a finding is at least as severe as the threshold. */
export function failsOn(findings: Finding[], threshold: Severity | undefined): boolean {
  if (!threshold) return false;
  const limit = SEVERITIES.indexOf(threshold);
  return findings.some((finding) => SEVERITIES.indexOf(finding.severity) <= limit);
}

/** Live AWS context for the incidents (`--enrich` of analyze and scan), from dist/enrich.js in the build. */
export async function enrich(
  incidents: Incident[],
  options: Pick<AnalyzeOptions, 'discoveryTag' | 'systemNodegroup'>,
  region: string,
): Promise<Map<string, FindingContext>> {
  // A require, not an import: the AWS SDK is loaded (and, in the build, read from disk) only here.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { enrichIncidents } = require('./enrich') as typeof import('./enrich');
  return enrichIncidents(incidents, {
    region,
    discoveryTag: options.discoveryTag,
    systemNodegroup: options.systemNodegroup,
    budgetMs: CLI_ENRICH_BUDGET_MS,
  });
}

function render(
  findings: Finding[],
  analysis: Analysis,
  stats: InputStats,
  read: InputRead[],
  format: OutputFormat,
  io: Io,
): string {
  if (format === 'markdown' || format === 'html') {
    const report = {
      findings,
      records: analysis.stats.records,
      malformed: stats.malformed,
      inputs: read.filter((input) => !input.skipped).map((input) => input.name),
      unrecognised: analysis.unrecognised,
    };
    return format === 'html' ? renderHtml(report) : renderMarkdown(report);
  }
  if (format === 'json') {
    const allStats = {
      ...analysis.stats,
      malformed: stats.malformed,
      controlMessages: stats.controlMessages,
      inputs: read,
    };
    return `${JSON.stringify({ findings, stats: allStats, unrecognised: analysis.unrecognised }, null, 2)}\n`;
  }
  const style = io.isTty && !io.env.NO_COLOR ? terminalStyle : PLAIN;
  const parts = [
    renderSummary(findings, analysis.stats.records, stats.malformed),
    ...findings.map((f) => renderFindingText(f, style)),
    renderUnrecognised(analysis.unrecognised),
  ].filter(Boolean);
  return `${parts.join('\n\n')}\n`;
}

/**
 * On stderr: malformed input skipped, lines cut, and, when a directory or pattern was expanded,
 * the list of what was read and what was skipped, so nobody wonders whether a file was looked at.
 */
function reportInputs(sources: Source[], read: InputRead[], stats: InputStats, io: Io): void {
  if (stats.problems.length) io.stderr(`karpenter-doctor: skipped malformed input: ${stats.problems.join('; ')}\n`);
  if (!sources.some((source) => source.found)) return;
  const lines = read.map((input) => {
    if (input.skipped) return `  skipped ${input.skipped}`;
    const notes = [input.gzip ? 'gzip' : '', input.encoding !== 'utf-8' ? input.encoding.toUpperCase() : '']
      .filter(Boolean)
      .join(', ');
    return `  ${input.name}: ${input.lines} line${input.lines === 1 ? '' : 's'}${notes ? ` (${notes})` : ''}`;
  });
  const analysed = read.filter((input) => !input.skipped).length;
  io.stderr(
    `karpenter-doctor: read ${analysed} of ${read.length} file${read.length === 1 ? '' : 's'}:\n${lines.join('\n')}\n`,
  );
}

interface FollowPrinter {
  onChange: ChangeListener;
  attach(analyzer: StreamingAnalyzer): void;
  summary(findings: Finding[], analysis: Analysis, stats: InputStats): string;
}

/**
 * `--follow` output: a finding when its incident opens, again when it escalates (its affected set
 * grows: another subnet out of IPs, another IAM action denied), and a summary at the end.
 */
/** What an escalation adds, in words (the entity kinds rules escalate on, lambdas/core/recognise/rules). */
const AFFECTED_WORDS: Partial<Record<EntityKind, string>> = {
  iamActions: 'IAM actions',
  nodeclasses: 'node classes',
  instanceTypes: 'instance types',
};

export function followPrinter(
  options: Pick<AnalyzeOptions, 'format'>,
  region: string | undefined,
  io: Io,
): FollowPrinter {
  let analyzer: StreamingAnalyzer | undefined;
  /** The affected values last printed per incident, so an escalation prints only what is new. */
  const told = new Map<string, string[]>();
  const style = io.isTty && !io.env.NO_COLOR ? terminalStyle : PLAIN;
  return {
    attach: (a) => void (analyzer = a),
    onChange: (change, signal) => {
      const affected = escalationKindOf(signal.rule);
      const escalated = !change.opened && affected !== undefined && change.grown.includes(affected);
      if (!change.opened && !escalated) return;
      const incident = analyzer?.incident(change.findingId);
      if (!incident) return;
      const event = change.opened ? 'opened' : 'escalated';
      const finding = buildFinding(incident, { region, status: change.opened ? 'open' : 'ongoing' });
      const now = finding.entities[affected!] ?? [];
      const before = told.get(change.findingId) ?? [];
      told.set(change.findingId, now);
      if (options.format === 'json') {
        io.stdout(`${JSON.stringify({ event, finding })}\n`);
      } else if (escalated) {
        // What changed, not the whole finding again: it was printed when it opened.
        const added = now.filter((value) => !before.includes(value));
        io.stdout(
          `${style.dim(`── ${incident.lastSeen ?? 'now'} ESCALATED`)} ${style.severity(finding.severity, finding.severity.toUpperCase())} ${finding.title}\n` +
            `  new      ${AFFECTED_WORDS[affected!] ?? affected} ${sanitizeLine(added.join(', ') || now.join(', '), 400)} (now ${now.length})\n\n`,
        );
      } else {
        io.stdout(`${style.dim(`── ${incident.lastSeen ?? 'now'} opened`)}\n${renderFindingText(finding, style)}\n\n`);
      }
    },
    summary: (findings, analysis, stats) => {
      if (options.format === 'json') {
        const brief = findings.map(({ findingId, rule, severity, occurrences, firstSeen, lastSeen }) => ({
          findingId,
          rule,
          severity,
          occurrences,
          firstSeen,
          lastSeen,
        }));
        return `${JSON.stringify({ event: 'summary', findings: brief, stats: { ...analysis.stats, malformed: stats.malformed }, unrecognised: analysis.unrecognised })}\n`;
      }
      const rows = findings.map(
        (f) =>
          `  ${style.severity(f.severity, f.severity.toUpperCase().padEnd(8))} ${f.title} · ${f.occurrences} occurrence${f.occurrences === 1 ? '' : 's'}`,
      );
      const unrecognised = renderUnrecognised(analysis.unrecognised);
      return `${renderSummary(findings, analysis.stats.records, stats.malformed)}\n${rows.length ? `${rows.join('\n')}\n` : ''}${unrecognised ? `${unrecognised}\n` : ''}`;
    },
  };
}
