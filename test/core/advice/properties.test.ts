import { diagnose, RULE_IDS, RULES, type LiveFact, type RuleId } from '../../../lambdas/core/recognise/rules';
import type { RemediationStep } from '../../../lambdas/core/advice/types';
import { analyzeMessages } from '../../../lambdas/core/analyze';
import { emptyContext, type FindingContext } from '../../../lambdas/core/findings/context';
import { adviceCasesOf, adviceSamples, type AdviceSample } from '../../support/advice-cases';
import { LIVE_FACTS } from '../../support/live-facts';
import { loadSamples } from '../../helpers';
import { SCHEDULING_LEAD_ORDER } from '../../../lambdas/core/incidents/scheduling-causes';

/**
 * Properties every rule's advice must have (issue 18), checked on the findings of every rule's
 * firing examples with and without live context and on every labelled sample: sizes are never lowered; the quota matches the
 * instance family; namespaces and workload kinds come from the record; every command that drifts,
 * replaces or restarts says so; no remedy that can cause the failure it treats.
 *
 * KNOWN_WRONG lists what today's advice still gets wrong, as `property › sample`: each entry must
 * still fail (so a fix is noticed and its entry removed) and everything else must pass.
 */
const KNOWN_WRONG = new Set<string>([]);

interface Property {
  name: string;
  /** A violation, or undefined when the advice holds the property (or it does not apply). */
  check(sample: AdviceSample): string | undefined;
}

const commandsOf = (sample: AdviceSample) => sample.advice.remediation.flatMap((step) => step.commands);
const stepOf = (sample: AdviceSample, command: string) =>
  sample.advice.remediation.find((step) => step.commands.includes(command))!;
const textOf = (step: RemediationStep) => `${step.title} ${step.detail}`;
const allText = (sample: AdviceSample) =>
  [sample.advice.diagnosis, ...sample.advice.remediation.map(textOf)].join('\n');

/** EC2 On-Demand and Spot quota codes by family prefix (Service Quotas, issue 18 brief). */
const ON_DEMAND_QUOTA: ReadonlyArray<readonly [RegExp, string]> = [
  [/^(g|gr|vt)\d/, 'L-DB2E81BA'],
  [/^p\d/, 'L-417A185B'],
  [/^inf\d/, 'L-1945791B'],
  [/^trn\d/, 'L-2C3B7624'],
  [/^x\d/, 'L-7295265B'],
  [/^f\d/, 'L-74FC7D96'],
  [/^dl\d/, 'L-6E869C2A'],
  [/^hpc\d/, 'L-F7808C92'],
  [/^[acdhimrtz][a-z]*\d/, 'L-1216C47A'],
];
const SPOT_QUOTA: ReadonlyArray<readonly [RegExp, string]> = [
  [/^(g|gr|vt)\d/, 'L-3819A6DF'],
  [/^p\d/, 'L-7212CCBC'],
  [/^inf\d/, 'L-B5D1601B'],
  [/^trn\d/, 'L-6B0D517C'],
  [/^x\d/, 'L-E3A00192'],
  [/^f\d/, 'L-88CF9481'],
  [/^dl\d/, 'L-85EED4F7'],
  [/^[acdhimrtz][a-z]*\d/, 'L-34B43A08'],
];
const expectedQuota = (type: string, spot: boolean) =>
  (spot ? SPOT_QUOTA : ON_DEMAND_QUOTA).find(([pattern]) => pattern.test(type))?.[1];

const sizeArg = (command: string, names: string[]) => {
  for (const name of names) {
    const match = new RegExp(`(?:--${name}[ =]|\\b${name}=)(\\d+)`).exec(command);
    if (match) return Number(match[1]);
  }
  return undefined;
};

/** Commands that replace nodes (drift), restart pods, or change more than they name. */
const SIDE_EFFECTS: ReadonlyArray<readonly [RegExp, RegExp, string]> = [
  [
    /^kubectl (edit|apply).*\b(nodepools?|ec2nodeclass(es)?)\b|^kubectl patch (nodepool|ec2nodeclass)(?!.*"(limits|weight|disruption)")/,
    /drift|replace/i,
    'a NodePool/EC2NodeClass change replaces nodes through drift',
  ],
  [
    /^kubectl .*\b(edit|set (resources|env|image)|rollout restart)\b.*\b(deployment|statefulset|daemonset|ds)\b/,
    /restart|roll|new pods|replace/i,
    'changing a pod template restarts its pods',
  ],
  [/^kubectl .*replace --force/, /delete|restart/i, 'replace --force deletes and recreates'],
  [/^kubectl .*\bscale\b/, /helm|gitops|argo|flux|revert|undone/i, 'kubectl scale is undone by Helm/GitOps'],
  [
    /^helm .*upgrade .*--set (settings|controller)\./,
    /restart/i,
    'a chart setting of the controller changes its pod template: the controller restarts',
  ],
  [
    /^kubectl set env daemonset aws-node\b/,
    /add-on/i,
    'the EKS add-on owns aws-node: its next update puts back what kubectl set env changed',
  ],
  [/^kubectl delete nodeclaim\b/, /drain|replace/i, 'deleting a NodeClaim drains and terminates its node'],
];

const CONTROLLER_RULES = new Set<RuleId>([
  'karpenter-controller-unschedulable',
  'interruption-queue-error',
  'webhook-tls-error',
  'leader-election-lost',
  'aws-api-unreachable',
]);

/** The rules whose advice is about named subnets running out: the live free addresses lead (issue 18). */
const SUBNET_FACT_RULES = new Set<RuleId>([
  'subnet-ip-exhaustion',
  'prefix-delegation-fragmentation',
  'subnet-ip-headroom-low',
]);

/**
 * What advice for an older Karpenter must not name (docs/karpenter-versions.md): before v0.32 there are
 * no NodePools, templates, disruption budgets, terminationGracePeriod, AMI aliases or AMIsReady; v0.32-v0.37
 * have no AMI aliases, AMIsReady nor terminationGracePeriod, and budgets only from v0.34.
 */
const ABSENT_IN_V1ALPHA5: ReadonlyArray<readonly [string, RegExp]> = [
  ['a v1 kind', /nodepool|nodeclaim|ec2nodeclass/i],
  ['a NodePool template', /spec\.template\b|^ *template:/m],
  ['disruption budgets', /(?<!no )disruption budgets(?! with v0\.34)|spec\.disruption/],
  ['terminationGracePeriod', /terminationGracePeriod(?! with v1\.0)/],
  ['an AMI alias', /\b(?:al2023|al2|bottlerocket|windows20(?:19|22))@latest|amiSelectorTerms/],
  ['the AMIsReady condition of v1', /type=="AMIsReady"/],
];
const ABSENT_IN_V1BETA1: ReadonlyArray<readonly [string, RegExp]> = [
  ['an AMI alias', /\b(?:al2023|al2|bottlerocket|windows20(?:19|22))@latest/],
  ['the AMIsReady condition of v1', /type=="AMIsReady"/],
  ['disruption budgets without their release', /disruption budgets(?! from v0\.34)/],
  ['terminationGracePeriod', /terminationGracePeriod(?! with v1\.0)/],
];

/** The rules whose advice leads with the specific cause (issue 18): every scheduling reason, and disruption. */
const LEAD_CAUSE_RULES = new Set<RuleId>([...SCHEDULING_LEAD_ORDER, 'consolidation-blocked']);

const PROPERTIES: Property[] = [
  {
    name: 'never lowers a size and raises what it says',
    check(sample) {
      const groups = sample.context.nodegroups ?? [];
      for (const command of commandsOf(sample)) {
        if (!/update-nodegroup-config|update-auto-scaling-group/.test(command)) continue;
        const group = groups.find(
          (g) => command.includes(g.name) || g.autoScalingGroups.some((a) => command.includes(a)),
        );
        const min = sizeArg(command, ['min-size', 'minSize']);
        const desired = sizeArg(command, ['desired-capacity', 'desiredSize']);
        const max = sizeArg(command, ['max-size', 'maxSize']);
        if (!group) {
          if (min !== undefined || desired !== undefined) return `sizes without known state: ${command}`;
          continue;
        }
        if (min !== undefined && group.minSize !== undefined && min <= group.minSize)
          return `min not raised (${group.minSize} → ${min}): ${command}`;
        if (desired !== undefined && group.desiredSize !== undefined && desired < group.desiredSize)
          return `desired lowered (${group.desiredSize} → ${desired}): ${command}`;
        if (max !== undefined && group.maxSize !== undefined && max < group.maxSize) return `max lowered: ${command}`;
        const newMax = max ?? group.maxSize;
        if (min !== undefined && newMax !== undefined && min > newMax) return `min above max: ${command}`;
      }
      return undefined;
    },
  },
  {
    name: 'quota matches the instance family',
    check(sample) {
      if (sample.rule !== 'ec2-quota-exceeded') return undefined;
      const codes = [
        ...new Set(
          commandsOf(sample).flatMap((c) => [...c.matchAll(/--quota-code (L-[0-9A-F]{8})/g)].map((m) => m[1]!)),
        ),
      ];
      const spot = (sample.entities.quotas ?? []).includes('MaxSpotInstanceCountExceeded');
      const types = sample.entities.instanceTypes ?? [];
      const expected = [
        ...new Set(types.map((t) => expectedQuota(t, spot)).filter((c): c is string => c !== undefined)),
      ];
      if (types.length === 0) {
        return codes.length > 0 ? `quota ${codes.join(', ')} guessed with no instance type named` : undefined;
      }
      const wrong = codes.filter((c) => !expected.includes(c));
      const missing = expected.filter((c) => !codes.includes(c));
      if (wrong.length || missing.length)
        return `quotas ${codes.join(', ')} for ${types.join(', ')} (expected ${expected.join(', ')})`;
      return undefined;
    },
  },
  {
    name: 'shows the limit EC2 stated',
    check(sample) {
      if (sample.rule !== 'ec2-quota-exceeded') return undefined;
      const stated = sample.evidence.map((e) => /vCPU limit of (\d+)/.exec(e.message)?.[1]).find(Boolean);
      return stated && !sample.advice.diagnosis.includes(stated)
        ? `the limit ${stated} from the message is not shown`
        : undefined;
    },
  },
  {
    name: 'namespace taken from the record',
    check(sample) {
      const commands = commandsOf(sample).filter((c) => c.startsWith('kubectl '));
      const namespaces = commands.map((c) => /(?:^kubectl| )-n (\S+)/.exec(c)?.[1]).filter((n): n is string => !!n);
      if (CONTROLLER_RULES.has(sample.rule)) {
        const recorded = (sample.entities.pods ?? []).find((p) => /\/karpenter-/.test(p))?.split('/')[0];
        if (recorded) {
          const other = namespaces.filter((n) => n !== recorded && n !== 'kube-system' && !n.startsWith('<'));
          const controllerOther = commands.filter(
            (c) => /karpenter/.test(c) && !c.includes(`-n ${recorded}`) && / -n /.test(c),
          );
          if (other.length || controllerOther.length)
            return `controller commands outside ${recorded}: ${controllerOther.join(' | ')}`;
        } else if (namespaces.includes('karpenter') && !/kubectl get deployments? -A/.test(commands.join('\n'))) {
          return 'the controller namespace is assumed to be karpenter without showing how to find it';
        }
        return undefined;
      }
      const workload = sample.entities.workloads?.[0];
      if (!workload) return undefined;
      const namespace = workload.split('/')[0]!;
      const wrong = namespaces.filter((n) => n !== namespace && n !== 'kube-system');
      return wrong.length ? `namespace ${wrong.join(', ')} instead of ${namespace}` : undefined;
    },
  },
  {
    name: 'workload kind from the owner',
    check(sample) {
      const workload = sample.entities.workloads?.[0];
      if (!workload) return undefined;
      const [, kind, name] = workload.split('/') as [string, string, string];
      if (kind === 'deployment') return undefined;
      const wrong = commandsOf(sample).find((c) =>
        new RegExp(`\\bdeployment ${name.replace(/[.]/g, '\\.')}\\b`).test(c),
      );
      return wrong ? `a ${kind} pod is treated as a Deployment: ${wrong}` : undefined;
    },
  },
  {
    name: 'side effects stated',
    check(sample) {
      for (const command of commandsOf(sample)) {
        for (const [matches, said, what] of SIDE_EFFECTS) {
          if (matches.test(command) && !said.test(textOf(stepOf(sample, command))))
            return `${what}, unsaid: ${command}`;
        }
      }
      return undefined;
    },
  },
  {
    name: 'set resources names the container',
    check(sample) {
      const wrong = commandsOf(sample).find(
        (c) => /kubectl .*set resources/.test(c) && !/ (-c|--containers)[ =]/.test(c),
      );
      return wrong ? `changes every container, sidecars too: ${wrong}` : undefined;
    },
  },
  {
    name: 'no remedy that causes the failure it treats',
    check(sample) {
      if (sample.rule === 'oom-killed' && /default:\s*\n\s*memory/.test(allText(sample)))
        return 'a default memory limit inside an OOM finding';
      return undefined;
    },
  },
  {
    name: 'recipes are complete',
    check(sample) {
      const commands = commandsOf(sample).join('\n');
      const text = `${allText(sample)}\n${commands}`;
      if (commands.includes('AWS_VPC_K8S_CNI_CUSTOM_NETWORK_CFG=true')) {
        const missing = ['ENI_CONFIG_LABEL_DEF', 'ENIConfig', 'route', 'reservedENIs', 'drift'].filter(
          (w) => !text.includes(w),
        );
        if (missing.length) return `custom networking without ${missing.join(', ')}`;
      }
      if (/create-subnet /.test(commands) && !/route/i.test(text))
        return 'new subnets without a route table (no NAT route: nodes NotReady)';
      if (
        /create-addon .*aws-ebs-csi-driver/.test(commands) &&
        !/service-account-role-arn|pod-identity/.test(commands)
      ) {
        return 'the EBS CSI driver without its IAM role';
      }
      if (/volumeSize/.test(text) && !/xvdb/.test(text))
        return "a node disk size without Bottlerocket's data volume (its root holds only the OS)";
      if (/Server 2025|10\.0\.26100/.test(text) && !/windows2025@latest/.test(text))
        return "Windows Server 2025 without Karpenter's windows2025 alias";
      if (sample.rule === 'in-tree-storage-plugin' && !/Retain/.test(text))
        return 'PVs recreated without setting Retain first';
      if (/simulate-principal-policy/.test(commands) && !/context-entries|tag condition|conditions/i.test(text)) {
        return 'simulate-principal-policy without context entries or its limits';
      }
      return undefined;
    },
  },
  {
    name: 'zones named when known',
    check(sample) {
      if (sample.rule !== 'incompatible-requirements' && sample.rule !== 'volume-zone-conflict') return undefined;
      const text = sample.evidence.map((e) => e.message).join('\n');
      const conflict =
        /key topology\.kubernetes\.io\/zone, topology\.kubernetes\.io\/zone In \[([^\]]+)\] not in topology\.kubernetes\.io\/zone In \[([^\]]+)\]/.exec(
          text,
        );
      if (conflict) {
        const wanted = conflict[1]!.split(' ').join(', ');
        const offered = conflict[2]!.split(' ').join(', ');
        if (!sample.advice.diagnosis.includes(`the pod wants ${wanted}`))
          return `the wanted zone ${wanted} is not stated`;
        if (!sample.advice.diagnosis.includes(`offers ${offered}`))
          return `the offered zones ${offered} are not stated`;
        return undefined;
      }
      if (sample.rule === 'volume-zone-conflict') {
        const missing = (sample.entities.zones ?? []).filter((zone) => !sample.advice.diagnosis.includes(zone));
        if (missing.length) return `zones ${missing.join(', ')} known but not named`;
      }
      return undefined;
    },
  },
  {
    name: 'taint owner stated',
    check(sample) {
      if (sample.rule !== 'scheduling-untolerated-taint') return undefined;
      const unowned = (sample.entities.taints ?? []).filter(
        (taint) =>
          !new RegExp(
            `${taint.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\((set by|on existing nodes|a startup taint)`,
          ).test(sample.advice.diagnosis),
      );
      if (unowned.length) return `no owner stated for ${unowned.join(', ')}`;
      const text = sample.evidence.map((e) => e.message).join('\n');
      for (const match of text.matchAll(/nodepool "([a-z0-9.-]+)", did not tolerate ([^\s;,]+)/g)) {
        // Advice for v0.31 and before names the same object a Provisioner.
        const owner = sample.entities.karpenterApis?.includes('karpenter.sh/v1alpha5') ? 'Provisioner' : 'NodePool';
        if (!sample.advice.diagnosis.includes(`set by ${owner} ${match[1]}`))
          return `NodePool ${match[1]} sets ${match[2]}, unsaid`;
      }
      return undefined;
    },
  },
  {
    name: 'blocking pod and PDB named',
    check(sample) {
      if (sample.rule !== 'consolidation-blocked') return undefined;
      const text = sample.evidence.map((e) => e.message).join('\n');
      const named = [
        ...[...text.matchAll(/PodDisruptionBudget(?:\(s\))?=\[([^\]]+)\]/g)].flatMap((m) => m[1]!.split(/[\s,]+/)),
        ...[...text.matchAll(/\bPod=([a-z0-9-]+\/[a-z0-9.-]+[a-z0-9])/g)].map((m) => m[1]!),
        ...(sample.entities.pdbs ?? []).filter((pdb) => pdb.includes('/')),
      ];
      const missing = named.filter((name) => !sample.advice.diagnosis.includes(name));
      if (missing.length) return `${missing.join(', ')} block disruption, unnamed`;
      if (/does not support multiple PDBs/i.test(text)) {
        // Overlapping PDBs: no PDB "allows no eviction"; each one's selector is what to read.
        if (/allows no eviction/.test(sample.advice.diagnosis)) return 'overlapping PDBs blamed on allowed disruptions';
        const unread = named.filter(
          (pdb) =>
            !sample.advice.remediation[0]?.commands.some((c) => c.includes(pdb.split('/')[1]!) && /selector/.test(c)),
        );
        if (unread.length) return `the selectors of ${unread.join(', ')} are not read first`;
      }
      const first = sample.advice.remediation[0];
      if (
        named.length &&
        !(
          first?.title.startsWith('Do this now') &&
          first.commands.some((c) => named.some((n) => c.includes(n.split('/')[1]!)))
        )
      )
        return 'the first step is not one to take now on the blocker';
      return undefined;
    },
  },
  {
    name: 'the shell passes every argument as written',
    check(sample) {
      // Outside quotes, a shell globs * ? [ ] (zsh fails "no matches found"), eats a backslash
      // (`labels.node\.kubernetes\.io` reaches kubectl unescaped) and splits {a,b}.
      for (const command of commandsOf(sample)) {
        const bare = command
          .replace(/'[^']*'/g, "''")
          .replace(/"(?:[^"\\]|\\.)*"/g, '""')
          .replace(/<[^<>\s]*>/g, 'X');
        if (/[*?[\]\\]|\{[^}]*,[^}]*\}/.test(bare)) return `unquoted shell characters: ${command}`;
      }
      return undefined;
    },
  },
  {
    name: 'no fixed resource request over an unread one',
    check(sample) {
      // A fixed --set …resources.requests.cpu=1 lowers a controller that already asks for more: the
      // advice reads the current request and asks for a value above it.
      for (const command of commandsOf(sample)) {
        const fixed = /--set \S*resources\.requests\.(cpu|memory)=(\d\S*)/.exec(command);
        if (fixed) return `a fixed ${fixed[1]} request of ${fixed[2]} can lower the current one: ${command}`;
      }
      return undefined;
    },
  },
  {
    name: 'no placeholder for the region the finding names',
    check(sample) {
      const region = sample.advice.remediation
        .flatMap((step) => step.commands)
        .map((c) => / --region (\S+)/.exec(c)?.[1])
        .find(Boolean);
      const wrong = region && commandsOf(sample).find((c) => c.includes('<region>'));
      return wrong ? `<region> where the region is ${region}: ${wrong}` : undefined;
    },
  },
  {
    name: 'live subnet facts in the lead cause',
    check(sample) {
      if (!SUBNET_FACT_RULES.has(sample.rule)) return undefined;
      const { diagnosis } = sample.advice;
      for (const id of sample.entities.subnets ?? []) {
        const free = sample.context.subnets?.find((s) => s.subnetId === id)?.availableIps;
        if (free === undefined) {
          if (!new RegExp(`${id}[^.]*\\bunknown\\b`).test(diagnosis)) return `${id}: unknown free addresses, unsaid`;
        } else if (!new RegExp(`${id}[^;.]*\\b${free}\\b`).test(diagnosis)) {
          return `${id}: its ${free} free addresses are not stated`;
        }
      }
      if (
        sample.rule === 'prefix-delegation-fragmentation' &&
        !/free \/28 blocks (left )?is unknown|\d+ free \/28/.test(diagnosis)
      )
        return 'the free /28 blocks are neither counted nor said to be unknown';
      return undefined;
    },
  },
  {
    name: 'leads with the cause: one step to take now, then the durable fix',
    check(sample) {
      if (!LEAD_CAUSE_RULES.has(sample.rule)) return undefined;
      const titles = sample.advice.remediation.map((step) => step.title);
      if (!titles[0]?.startsWith('Do this now')) return `the first step is not one to take now: ${titles[0]}`;
      if (titles.filter((t) => t.startsWith('Do this now')).length > 1) return 'more than one "do this now" step';
      if (!titles.some((t) => t.startsWith('Durable fix'))) return 'no durable fix';
      return undefined;
    },
  },
  {
    name: 'departures from the seed say why',
    check(sample) {
      if (
        /karpenter\.sh\/nodepool-/.test(commandsOf(sample).join('\n')) &&
        !/voluntary disruption/i.test(allText(sample))
      ) {
        return 'removing the karpenter.sh/nodepool label without saying it only blocks voluntary disruption';
      }
      if (
        sample.rule === 'aws-api-unreachable' &&
        (sample.entities.endpoints ?? []).some((e) => e.startsWith('api.pricing.'))
      ) {
        if (!/isolatedVPC/.test(allText(sample))) return 'a pricing-API timeout without the isolatedVPC fix';
      }
      return undefined;
    },
  },
  {
    name: 'names only what its Karpenter release has',
    check(sample) {
      const apis = sample.entities.karpenterApis ?? [];
      if (apis.length !== 1 || apis[0] === 'karpenter.sh/v1') return undefined;
      // A Deployment's own pod template (`.spec.template.spec.containers`) is not a NodePool's.
      const text = `${allText(sample)}\n${commandsOf(sample).join('\n')}`.replace(/\.spec\.template\.spec\.\w+/g, '');
      const absent = apis[0] === 'karpenter.sh/v1alpha5' ? ABSENT_IN_V1ALPHA5 : ABSENT_IN_V1BETA1;
      const named = absent.filter(([, pattern]) => pattern.test(text)).map(([what]) => what);
      return named.length ? `names ${named.join(', ')}` : undefined;
    },
  },
];

const samples = adviceSamples();

describe('counts kept', () => {
  it.each(
    loadSamples()
      .samples.map((sample) => [sample.id, sample.raw, /\(x(\d+) over /.exec(sample.raw)?.[1]] as const)
      .filter((entry): entry is readonly [string, string, string] => entry[2] !== undefined),
  )('sample %s: an event that says (xN over …) is at least N occurrences', (_id, raw, count) => {
    const lines = raw.split('\n').map((message, i) => ({ message, origin: { line: i + 1 } }));
    const incidents = analyzeMessages(lines, 'prod').incidents;
    expect(incidents.length).toBeGreaterThan(0);
    for (const incident of incidents) expect(incident.occurrences).toBeGreaterThanOrEqual(Number(count));
  });
});

describe('advice properties', () => {
  it('has a case from its own firing examples for every rule', () => {
    expect(RULE_IDS.filter((rule) => adviceCasesOf(rule).length === 0)).toEqual([]);
  });

  const advice = (
    rule: RuleId,
    c: { entities: AdviceSample['entities']; evidence: string[] },
    context: FindingContext,
  ) =>
    JSON.stringify(
      diagnose({
        rule,
        cluster: 'prod',
        region: 'us-west-2',
        entities: c.entities,
        occurrences: 3,
        context,
        evidence: c.evidence,
      }),
    );
  const KINDS = Object.keys(LIVE_FACTS) as LiveFact[];

  it.each(RULE_IDS)('%s reads no live fact its enrichment does not declare', (rule) => {
    // The enrichment describes only what a rule declares: advice that changes with an undeclared fact never sees it.
    const undeclared = KINDS.filter((kind) => !(RULES[rule].enrichment ?? []).includes(kind));
    const changed = adviceCasesOf(rule).flatMap((c) =>
      undeclared.flatMap((kind) =>
        LIVE_FACTS[kind](c.entities)
          .filter((facts) => advice(rule, c, emptyContext()) !== advice(rule, c, { ...facts, enrichmentErrors: [] }))
          .map(() => `${c.label} changes with ${kind}`),
      ),
    );
    expect(changed).toEqual([]);
  });

  it.each(RULE_IDS.filter((rule) => RULES[rule].enrichment?.length))(
    '%s reads the live facts it declares, in some case',
    (rule) => {
      // A declared fact costs an AWS call per finding: some case's advice must change with it.
      const reads = adviceCasesOf(rule).some((c) =>
        c.live.some((live) => advice(rule, c, emptyContext()) !== advice(rule, c, { ...live, enrichmentErrors: [] })),
      );
      expect(reads).toBe(true);
    },
  );

  describe.each(RULE_IDS)('%s', (rule) => {
    const ofRule = samples.filter((s) => s.rule === rule);
    it.each(PROPERTIES.map((p) => [p.name, p] as const))('%s', (_, property) => {
      const found = ofRule.map((s) => ({ key: `${property.name} › ${s.label}`, violation: property.check(s) }));
      const unexpected = found
        .filter((f) => f.violation && !KNOWN_WRONG.has(f.key))
        .map((f) => `${f.key}: ${f.violation}`);
      const fixed = found
        .filter((f) => !f.violation && KNOWN_WRONG.has(f.key))
        .map((f) => `fixed, remove from KNOWN_WRONG: ${f.key}`);
      expect([...unexpected, ...fixed]).toEqual([]);
    });
  });
});
