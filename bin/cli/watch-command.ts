import type { ChildProcess } from 'node:child_process';
import { FOLLOW_RESOLUTION_WINDOW_MS } from '../../lambdas/core/incidents/resolution';
import { StreamingAnalyzer } from '../../lambdas/core/analyze';
import { buildFinding } from '../../lambdas/core/findings/finding';
import { emptyInputStats } from '../../lambdas/core/decode/local-input';
import type { Severity } from '../../lambdas/core/model';
import { failsOn, FOLLOW_IDLE_MS, followPrinter, type OutputFormat } from './analyze-command';
import type { Io } from './io';
import { Kubectl } from './kubectl';
import { readSourcesTogether } from './read-sources';

export interface WatchOptions {
  cluster?: string;
  region?: string;
  namespace?: string;
  deployment?: string;
  context?: string;
  since: string;
  format: OutputFormat;
  failOn?: Severity;
}

/**
 * `watch`: runs kubectl for the user — the logs of every pod of the Karpenter deployment and the
 * events of every namespace, both followed — and feeds both into one analysis, printing each
 * finding as its incident opens or escalates, and a summary when stopped or when kubectl ends.
 */
export async function watch(options: WatchOptions, io: Io): Promise<number> {
  const kubectl = new Kubectl(io, options.context);
  const where = await kubectl.currentCluster(options);
  const deployment = await kubectl.karpenterDeployment(options);
  const stop = new AbortController();
  const children: ChildProcess[] = [];
  const release = io.onInterrupt(() => {
    stop.abort();
    for (const child of children) child.kill('SIGTERM');
  });
  const stats = emptyInputStats();
  const follow = followPrinter(options, where.region, io);
  const analyzer = new StreamingAnalyzer({
    cluster: where.cluster,
    onChange: follow.onChange,
    resolution: { windowMs: FOLLOW_RESOLUTION_WINDOW_MS, launches: true },
    // Lines are cut from the chunks read (read-sources.ts): what is kept of a record must not pin them.
    slicedMessages: true,
  });
  follow.attach(analyzer);
  io.stderr(
    `karpenter-doctor: watching ${deployment.namespace}/${deployment.name} logs and the cluster's events${where.context ? ` (context ${where.context})` : ''}; Ctrl-C stops\n`,
  );
  const logs = kubectl.follow([
    'logs',
    '-n',
    deployment.namespace,
    '-l',
    deployment.selector,
    '--all-containers',
    '--prefix',
    '-f',
    `--since=${options.since}`,
    // With a selector kubectl defaults to the last 10 lines per container: take all of --since.
    '--tail=-1',
    '--max-log-requests=20',
  ]);
  const events = kubectl.follow(['get', 'events', '-A', '--watch', '-o', 'json']);
  children.push(logs.child, events.child);
  try {
    await readSourcesTogether(
      [
        {
          source: { name: `kubectl logs ${deployment.namespace}/${deployment.name}`, found: false },
          bytes: logs.stdout,
        },
        { source: { name: 'kubectl get events', found: false }, bytes: events.stdout },
      ],
      analyzer,
      stats,
      { stdin: () => [], idleFlushMs: FOLLOW_IDLE_MS, signal: stop.signal },
    );
  } finally {
    release();
  }
  const results = await Promise.all([logs.exit, events.exit]);
  const failed = stop.signal.aborted ? [] : results.filter((result) => result.code !== 0);
  for (const result of failed) {
    io.stderr(
      `karpenter-doctor: ${result.command} exited ${result.code}: ${result.stderr.trim().split('\n')[0] ?? ''}\n`,
    );
  }
  const analysis = analyzer.finish();
  const findings = analysis.incidents.map((incident) => buildFinding(incident, { region: where.region }));
  io.stdout(follow.summary(findings, analysis, stats));
  if (failed.length === results.length) return 2;
  return failsOn(findings, options.failOn) ? 1 : 0;
}
