import type { Evidence } from '../../lambdas/core/incidents/aggregate';
import { analyzeMessages } from '../../lambdas/core/analyze';
import { RULE_IDS, RULES, type RuleId } from '../../lambdas/core/recognise/rules';
import { emptyContext, type FindingContext } from '../../lambdas/core/findings/context';
import type { Diagnosis } from '../../lambdas/core/advice/types';
import { diagnose } from '../../lambdas/core/recognise/rules';
import { buildFinding } from '../../lambdas/core/findings/finding';
import type { Entities } from '../../lambdas/core/model';
import { loadSamples } from '../helpers';
import { FIND_CONTROLLER } from '../../lambdas/core/advice/controller';
import { adviseGroupRaise } from '../../lambdas/core/advice/sizing';
import { editTemplate, ownerLookup, setResourcesCommand } from '../../lambdas/core/advice/workload-kind';
import { checkCluster, countedSubnets } from '../../lambdas/core/headroom/subnet-headroom';
import { DEFAULT_HEADROOM } from '../../contracts/defaults';
import { LIVE_FACTS, liveContextsOf, MANAGED_AT_MAX, SELF_MANAGED_SYSTEM, type LiveContext } from './live-facts';

/**
 * A finding of one rule as the product builds it from the rule module's own `examples.fires` line,
 * with the live contexts its declared `enrichment` would add (test/support/live-facts.ts).
 */
export interface AdviceCase {
  /** `rule#i`: the i-th firing example of the rule, or `rule#headroom` for the headroom check's finding. */
  label: string;
  entities: Entities;
  /** The evidence lines of the incident. */
  evidence: string[];
  /** One per variant of the live facts the rule declares; none when it declares no enrichment. */
  live: LiveContext[];
}

const casesMemo = new Map<RuleId, AdviceCase[]>();

/** The cases of a rule, derived from its module: a rule without a case is a defect of its examples. */
export function adviceCasesOf(rule: RuleId): AdviceCase[] {
  let cases = casesMemo.get(rule);
  if (!cases) casesMemo.set(rule, (cases = deriveCases(rule)));
  return cases;
}

function deriveCases(rule: RuleId): AdviceCase[] {
  const module = RULES[rule];
  if (!module.examples) return [headroomCase(rule)];
  return module.examples.fires.flatMap((example, i) =>
    // A line another rule's finding absorbs (a scheduling reason merged under a higher one) gives no case.
    analyzeMessages([{ message: example.line, origin: { line: 1, file: `${rule}#${i}` } }], 'prod')
      .incidents.filter((incident) => incident.rule === rule)
      .map((incident) => ({
        label: `${rule}#${i}`,
        entities: incident.entities,
        evidence: incident.evidence.map((e) => e.message),
        live: liveContextsOf(module.enrichment, incident.entities),
      })),
  );
}

/** The headroom check's own finding on the subnet fixture: it brings its context with it. */
function headroomCase(rule: RuleId): AdviceCase {
  const [facts] = LIVE_FACTS.subnets({});
  const check = checkCluster({
    cluster: 'prod',
    subnets: countedSubnets(facts!.subnets ?? []),
    vpcs: facts!.vpcs ?? [],
    histories: { samples: new Map(), unread: new Set() },
    now: Date.parse('2026-12-01T03:00:00Z'),
    thresholds: DEFAULT_HEADROOM,
  });
  if (!check.headroom.low || !check.context) throw new Error(`the subnet fixture is not low for ${rule}`);
  const { enrichmentErrors: _, ...context } = check.context;
  return {
    label: `${rule}#headroom`,
    entities: check.headroom.incident.entities,
    evidence: check.headroom.incident.evidence.map((e) => e.message),
    live: [context],
  };
}

export interface AdviceSample {
  rule: RuleId;
  /** Where it came from: `rule#i/live`, `rule#i/no-context`, `rule/empty`, `sample:<id>`. */
  label: string;
  entities: Entities;
  context: FindingContext;
  /** The lines behind it (samples only). */
  evidence: Evidence[];
  advice: Diagnosis;
}

const input = (rule: RuleId, entities: Entities, context: FindingContext) => ({
  rule,
  cluster: 'prod',
  region: 'us-west-2',
  entities,
  occurrences: 3,
  context,
});

/**
 * The advice of every rule: each case of its examples with and without its live contexts, no
 * entities at all, and every labelled sample through the whole pipeline (analyze → finding).
 */
export function adviceSamples(): AdviceSample[] {
  const out: AdviceSample[] = [];
  for (const rule of RULE_IDS) {
    const variant = (label: string, entities: Entities, context: FindingContext, lines: string[] = []) =>
      out.push({
        rule,
        label,
        entities,
        context,
        evidence: lines.map((message) => ({ message })),
        advice: diagnose({ ...input(rule, entities, context), evidence: lines }),
      });
    variant(`${rule}/empty`, {}, emptyContext());
    const cases = adviceCasesOf(rule);
    for (const c of cases) {
      variant(`${c.label}/no-context`, c.entities, emptyContext(), c.evidence);
      c.live.forEach((live, i) =>
        variant(`${c.label}/live${i ? `-${i}` : ''}`, c.entities, { ...live, enrichmentErrors: [] }, c.evidence),
      );
    }
    // The same advice for logs of older Karpenter releases (Provisioner / Machine, then v1beta1).
    const first = cases[0];
    for (const api of ['karpenter.sh/v1alpha5', 'karpenter.sh/v1beta1']) {
      variant(`${rule}/${api}`, { ...first?.entities, karpenterApis: [api] }, emptyContext(), first?.evidence);
    }
  }
  for (const sample of loadSamples().samples) {
    const lines = sample.raw.split('\n').map((message, i) => ({ message, origin: { line: i + 1, file: sample.id } }));
    for (const incident of analyzeMessages(lines, 'prod').incidents) {
      const finding = buildFinding(incident, { region: 'us-west-2' });
      out.push({
        rule: finding.rule,
        label: `sample:${sample.id}/${finding.rule}`,
        entities: finding.entities,
        context: finding.context,
        evidence: finding.evidence,
        advice: finding,
      });
    }
  }
  return out;
}

/** Every printed command of the advice, and of the advice planners, with where it came from. */
export function adviceCommands(samples = adviceSamples()): Array<{ rule?: RuleId; label: string; command: string }> {
  return [
    ...samples.flatMap(({ rule, label, advice }) =>
      advice.remediation.flatMap((step) => step.commands.map((command) => ({ rule, label, command }))),
    ),
    ...plannerCommands(),
  ];
}

/** The commands the planners of lambdas/core/advice build, for states and kinds the cases may not reach. */
function plannerCommands(): Array<{ label: string; command: string }> {
  const groups = [
    SELF_MANAGED_SYSTEM,
    MANAGED_AT_MAX,
    { ...SELF_MANAGED_SYSTEM, maxSize: 3 },
    { ...MANAGED_AT_MAX, minSize: undefined },
  ];
  const sizing = [...groups, undefined].flatMap((group) => adviseGroupRaise(group, 'prod', 'us-west-2').commands);
  const workloads = (['deployment', 'statefulset', 'daemonset', 'job', 'cronjob', undefined] as const).map((kind) => ({
    namespace: 'shop',
    name: 'checkout',
    pod: 'checkout-x7k2p',
    ...(kind ? { kind } : {}),
  }));
  const templates = workloads.flatMap((w) => [
    ...editTemplate(w).commands,
    ...[setResourcesCommand(w, '--requests=cpu=500m,memory=1Gi --limits=memory=2Gi')].filter((c): c is string => !!c),
    ownerLookup(w),
  ]);
  return [...sizing, ...templates, FIND_CONTROLLER].map((command) => ({ label: 'planner', command }));
}

/**
 * Placeholders (`<vpc-id>`) replaced by values of the right shape, so the CLI parses the command as
 * it would the filled one. Unknown placeholders get a plain name.
 */
export function withDummies(command: string): string {
  return command.replace(/<([a-zA-Z][a-zA-Z0-9:._+ -]*)>/g, (_, name: string) => dummyFor(name.toLowerCase()));
}

const DUMMIES: ReadonlyArray<readonly [RegExp, string]> = [
  [/^vpc-id$/, 'vpc-0123456789abcdef0'],
  [/subnet-id$/, 'subnet-0123456789abcdef0'],
  [/security-group-id$/, 'sg-0123456789abcdef0'],
  [/instance-id$/, 'i-0123456789abcdef0'],
  [/ami-id$/, 'ami-0123456789abcdef0'],
  [/route-table-id$/, 'rtb-0123456789abcdef0'],
  [/nat-gateway-id$/, 'nat-0123456789abcdef0'],
  [/(^|-)arn$/, 'arn:aws:iam::123456789012:role/example'],
  [/^service:action$/, 'ec2:RunInstances'],
  [/^(new-)?cidr$/, '100.64.0.0/16'],
  [/cidr$/, '100.64.0.0/19'],
  [/^(zone|availability-zone)$/, 'us-west-2a'],
  [/^region$/, 'us-west-2'],
  [/^account(-id)?$/, '123456789012'],
  [/(^|-)(min|max|desired|value|count|size|replicas)$/, '4'],
  [/^(cpu|new-cpu-limit)$/, '500m'],
  [/^(memory|observed-peak|limit)$/, '512Mi'],
  [/^windows-build$/, '10.0.20348'],
  [/version$/, '1.2.3'],
  [/^encoded-message$/, 'AbCdEf0123'],
  [/^container$/, 'app'],
  [/^owner-kind$/, 'deployment'],
];

function dummyFor(name: string): string {
  return (
    DUMMIES.find(([pattern]) => pattern.test(name))?.[1] ??
    name.replace(/[^a-z0-9-]/g, '-').replace(/^-+|-+$/g, '') ??
    'example'
  );
}
