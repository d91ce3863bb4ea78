import type { FindingContext } from '../../lambdas/core/findings/context';
import { buildFinding, type Finding } from '../../lambdas/core/findings/finding';
import type { Severity } from '../../lambdas/core/model';
import { renderHtml, renderMarkdown } from '../../lambdas/core/findings/render-report';
import { PLAIN, renderFindingText, renderSummary, renderUnrecognised } from '../../lambdas/core/findings/render-text';
import { sanitizeLine } from '../../lambdas/core/common/sanitize';
import {
  analyzeSnapshot,
  autoModeAdvice,
  type AutoMode,
  snapshotOf,
  type StateAnalysis,
} from '../../lambdas/core/state';
import { enrich, failsOn, type OutputFormat } from './analyze-command';
import type { Io } from './io';
import { Kubectl, KubectlError, parseJson } from './kubectl';
import { terminalStyle } from './style';
import { InputError } from './text-input';

export interface ScanOptions {
  cluster?: string;
  region?: string;
  context?: string;
  format: OutputFormat;
  failOn?: Severity;
  enrich?: boolean;
  discoveryTag: string;
  systemNodegroup?: string;
}

/**
 * What `scan` reads, each with kubectl on its own so that one missing kind is named alone.
 * Karpenter's kinds and the pods and events are needed; the node classes are of one flavour or the
 * other (EC2NodeClass for Karpenter, NodeClass for EKS Auto Mode), StorageClasses are a bonus.
 */
const READS = [
  { what: 'nodeclaims.karpenter.sh', args: ['get', 'nodeclaims.karpenter.sh', '-o', 'json'], needed: true },
  { what: 'nodepools.karpenter.sh', args: ['get', 'nodepools.karpenter.sh', '-o', 'json'], needed: true },
  {
    what: 'ec2nodeclasses.karpenter.k8s.aws',
    args: ['get', 'ec2nodeclasses.karpenter.k8s.aws', '-o', 'json'],
    needed: false,
  },
  {
    what: 'nodeclasses.eks.amazonaws.com',
    args: ['get', 'nodeclasses.eks.amazonaws.com', '-o', 'json'],
    needed: false,
  },
  {
    what: 'pods',
    args: ['get', 'pods', '-A', '--field-selector=status.phase=Pending', '-o', 'json'],
    needed: true,
  },
  { what: 'events', args: ['get', 'events', '-A', '-o', 'json'], needed: true },
  { what: 'storageclasses', args: ['get', 'storageclasses', '-o', 'json'], needed: false },
] as const;

/**
 * `scan`: reads the cluster's own state through the user's kubectl — NodeClaims, NodePools, node
 * classes, pending pods, events — and prints the findings it shows, as `analyze` prints those of
 * logs. Needs no log shipping; works on EKS Auto Mode.
 */
export async function scan(options: ScanOptions, io: Io, now = Date.now()): Promise<number> {
  const kubectl = new Kubectl(io, options.context);
  const where = await kubectl.currentCluster(options);
  const region =
    options.region ?? where.region ?? (options.enrich ? io.env.AWS_REGION || io.env.AWS_DEFAULT_REGION : undefined);
  if (options.enrich && !region) throw new InputError('--enrich needs a region: pass --region or set AWS_REGION');
  const documents: unknown[] = [];
  const missing: string[] = [];
  for (const read of READS) {
    try {
      documents.push(parseJson(await kubectl.run([...read.args])));
    } catch (error) {
      const problem = error instanceof KubectlError ? problemOf(read.what, error) : undefined;
      if (!problem) throw error;
      if (read.needed) throw new InputError(problem.message);
      if (problem.kind === 'forbidden') io.stderr(`karpenter-doctor: ${problem.message}\n`);
      missing.push(read.what);
    }
  }
  if (missing.includes('ec2nodeclasses.karpenter.k8s.aws') && missing.includes('nodeclasses.eks.amazonaws.com'))
    io.stderr(
      'karpenter-doctor: neither ec2nodeclasses.karpenter.k8s.aws nor nodeclasses.eks.amazonaws.com is served: node class conditions not read\n',
    );
  const snapshot = snapshotOf(documents, now);
  const state = analyzeSnapshot(snapshot, { cluster: where.cluster });
  const contexts =
    options.enrich && region
      ? await enrich(state.analysis.incidents, options, region)
      : new Map<string, FindingContext>();
  const findings = state.analysis.incidents.map((incident) =>
    autoModeAdvice(buildFinding(incident, { region, context: contexts.get(incident.findingId) }), state.autoMode),
  );
  io.stdout(
    render(findings, state, snapshot.nodeClaims.length + snapshot.nodePools.length, options.format, io, where.context),
  );
  return failsOn(findings, options.failOn) ? 1 : 0;
}

/** A kind that is not served (CRD not installed) or not readable (RBAC), as one line naming it. */
function problemOf(what: string, error: KubectlError): { kind: 'missing' | 'forbidden'; message: string } | undefined {
  const line = error.firstLine;
  if (/forbidden/i.test(line))
    return {
      kind: 'forbidden',
      message: `not allowed to list ${what} (RBAC): ${sanitizeLine(line, 300)}; grant list on ${what}, e.g. the view ClusterRole or AmazonEKSViewPolicy`,
    };
  if (/doesn't have a resource type|the server could not find the requested resource|no matches for kind/i.test(line))
    return {
      kind: 'missing',
      message: `${what} is not served by this cluster: ${what.endsWith('.karpenter.sh') ? 'is Karpenter v1 (or EKS Auto Mode) installed?' : 'its CRD is not installed'}`,
    };
  return undefined;
}

function render(
  findings: Finding[],
  state: StateAnalysis,
  objects: number,
  format: OutputFormat,
  io: Io,
  context: string | undefined,
): string {
  const { analysis, autoMode } = state;
  const inputs = [`kubectl${context ? ` --context ${context}` : ''} (cluster state)`];
  if (format === 'json') {
    const stats = { ...analysis.stats, objects, failingConditions: state.conditions, pendingPods: state.pendingPods };
    return `${JSON.stringify({ findings, stats, unrecognised: analysis.unrecognised, autoMode }, null, 2)}\n`;
  }
  if (format === 'markdown' || format === 'html') {
    const report = {
      findings,
      records: analysis.stats.records,
      malformed: 0,
      inputs,
      unrecognised: analysis.unrecognised,
    };
    const page = format === 'html' ? renderHtml(report) : renderMarkdown(report);
    // Auto Mode is said in each finding's diagnosis; a cluster without findings says it here.
    return autoMode.evidence.length && format === 'markdown'
      ? `${page}\n${autoModeLines(autoMode).join('\n')}\n`
      : page;
  }
  const style = io.isTty && !io.env.NO_COLOR ? terminalStyle : PLAIN;
  const parts = [
    `${renderSummary(findings, analysis.stats.records, 0)} Read ${objects} Karpenter object${objects === 1 ? '' : 's'}, ${state.pendingPods} pending pod${state.pendingPods === 1 ? '' : 's'}.`,
    autoMode.evidence.length ? autoModeLines(autoMode).join('\n') : '',
    ...findings.map((f) => renderFindingText(f, style)),
    renderUnrecognised(analysis.unrecognised),
  ].filter(Boolean);
  return `${parts.join('\n\n')}\n`;
}

function autoModeLines(autoMode: AutoMode): string[] {
  return [
    `EKS Auto Mode cluster (${autoMode.evidence.map((e) => sanitizeLine(e, 120)).join('; ')}).`,
    ...autoMode.traps.map(
      (trap) => `  migration trap: ${sanitizeLine(trap.object, 120)} ${sanitizeLine(trap.detail, 300)}`,
    ),
  ];
}
