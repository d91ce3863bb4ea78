/**
 * The specific cause of a scheduling or disruption finding, read from its evidence lines in the
 * emitters' own formats, so the advice can lead with it: which requirement the pod and the NodePool
 * disagree on (Karpenter's `key K, <pod's requirement> not in <NodePool's requirement>`,
 * sigs.k8s.io/karpenter pkg/scheduling/requirements.go), which NodePool a taint comes from
 * (`incompatible with nodepool "gpu", did not tolerate …`), which resources were asked for
 * (`no instance type satisfied resources {"cpu":"96"}`), and which pod or PDB blocks a disruption.
 */

/** One side of a requirement: `topology.kubernetes.io/zone In [us-east-1b us-east-1c]`. */
export interface Requirement {
  key: string;
  operator: string;
  values: string[];
}

/** A requirement the pod and a NodePool disagree on. */
export interface RequirementConflict {
  key: string;
  /** The pod's requirement (its node selector, node affinity, or a zonal volume's zone). */
  pod: Requirement;
  /** The NodePool's requirement. */
  nodepool: Requirement;
  /** The NodePool, when the line names it. */
  nodepoolName?: string;
}

const OPERATORS = new Set(['In', 'NotIn', 'Exists', 'DoesNotExist', 'Gt', 'Lt']);
const MARKER = 'incompatible requirements, key ';
const NODEPOOL = /nodepool \\?"([a-z0-9][a-z0-9.-]{0,252})\\?"/;

/** Every requirement conflict Karpenter states in the lines, first by NodePool. */
export function requirementConflicts(lines: readonly string[]): RequirementConflict[] {
  const found: RequirementConflict[] = [];
  for (const line of lines) {
    let from = line.indexOf(MARKER);
    while (from >= 0) {
      const rest = line.slice(from + MARKER.length);
      const conflict = parseConflict(rest);
      if (conflict) {
        const before = line
          .slice(Math.max(0, from - 300), from)
          .split(';')
          .pop()!;
        const pool = NODEPOOL.exec(before)?.[1];
        if (pool) conflict.nodepoolName = pool;
        if (!found.some((f) => sameConflict(f, conflict))) found.push(conflict);
      }
      from = line.indexOf(MARKER, from + MARKER.length);
    }
  }
  return found;
}

function parseConflict(text: string): RequirementConflict | undefined {
  const comma = text.indexOf(', ');
  if (comma <= 0) return undefined;
  const key = text.slice(0, comma);
  const body = text.slice(comma + 2);
  const notIn = body.indexOf(' not in ');
  if (notIn <= 0) return undefined;
  const pod = parseRequirement(body.slice(0, notIn));
  const nodepool = parseRequirement(body.slice(notIn + ' not in '.length));
  if (!pod || !nodepool || pod.key !== key) return undefined;
  return { key, pod, nodepool };
}

/** `K In [a b]`, `K DoesNotExist`, `K Gt [4]`; values past five are `and N others` in Karpenter's text. */
function parseRequirement(text: string): Requirement | undefined {
  const parts = text.trimStart().split(' ');
  const key = parts[0];
  const operator = parts[1]?.replace(/[;,.]+$/, '');
  if (!key || !operator || !OPERATORS.has(operator)) return undefined;
  const open = text.indexOf('[');
  const close = open < 0 ? -1 : text.indexOf(']', open);
  const values =
    open >= 0 && close > open && (operator === 'In' || operator === 'NotIn' || operator === 'Gt' || operator === 'Lt')
      ? text
          .slice(open + 1, close)
          .split(' ')
          .filter(Boolean)
      : [];
  return { key, operator, values: joinOthers(values) };
}

/** Karpenter lists at most five values then `and N others`: kept as one value. */
function joinOthers(values: string[]): string[] {
  const and = values.indexOf('and');
  if (and < 0 || values[and + 2] !== 'others') return values;
  return [...values.slice(0, and), `and ${values[and + 1]} others`];
}

const sameConflict = (a: RequirementConflict, b: RequirementConflict) =>
  a.key === b.key && a.nodepoolName === b.nodepoolName && describeRequirement(a.pod) === describeRequirement(b.pod);

/** `us-east-1a` / `us-east-1b, us-east-1c` / `no value (DoesNotExist)`. */
export function describeRequirement(requirement: Requirement): string {
  const values = requirement.values.join(', ');
  switch (requirement.operator) {
    case 'In':
      return values;
    case 'NotIn':
      return `anything but ${values}`;
    case 'Exists':
      return 'any value';
    case 'DoesNotExist':
      return 'no value (the label absent)';
    case 'Gt':
      return `more than ${values}`;
    default:
      return `less than ${values}`;
  }
}

/** The NodePools whose template taints a pod did not tolerate, per taint (Karpenter's own message). */
export function taintsByNodepool(lines: readonly string[]): Map<string, string[]> {
  const byTaint = new Map<string, string[]>();
  const pattern =
    /nodepool \\?"([a-z0-9][a-z0-9.-]{0,252})\\?", did not tolerate (?:taint \(taint=)?([^\s;,()]{1,200})/g;
  for (const line of lines) {
    for (const match of line.matchAll(pattern)) {
      const pools = byTaint.get(match[2]!) ?? [];
      if (!pools.includes(match[1]!)) pools.push(match[1]!);
      byTaint.set(match[2]!, pools);
    }
  }
  return byTaint;
}

/** The resources Karpenter was asked for when no instance type could hold them: `{"cpu":"96","pods":"1"}`. */
export function requestedResources(lines: readonly string[]): Record<string, string> | undefined {
  for (const line of lines) {
    const match = /no instance type (?:satisfied|has enough) resources (\{[^{}]{1,500}\})/.exec(line);
    if (!match) continue;
    try {
      const parsed = JSON.parse(match[1]!.replace(/\\"/g, '"')) as unknown;
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) {
        const entries = Object.entries(parsed as Record<string, unknown>).filter(
          (entry): entry is [string, string] => typeof entry[1] === 'string',
        );
        if (entries.length) return Object.fromEntries(entries);
      }
    } catch {
      // Cut by the evidence limit: no amounts then, the resource names still come from the entities.
    }
  }
  return undefined;
}

/** What blocks a disruption, by the reason Karpenter gives (pkg/controllers/disruption, state/statenode.go). */
export type DisruptionBlocker =
  /**
   * `overlapping`: the pod is covered by more than one PDB, which the eviction API refuses whatever
   * they allow (state/statenode.go 'eviction does not support multiple PDBs').
   */
  | { kind: 'pdb'; pdbs: string[]; overlapping?: true }
  | { kind: 'pod-annotation'; pods: string[] }
  | { kind: 'node-annotation' }
  | { kind: 'budget'; reason?: string }
  | { kind: 'when-empty'; nodepool?: string }
  | { kind: 'consolidation-disabled'; nodepool?: string }
  | { kind: 'spot-to-spot' }
  | { kind: 'not-all-pods-schedule' }
  | { kind: 'no-cheaper-node' };

/** The blockers the lines name, most specific first (a PDB or an annotated pod before the general reasons). */
export function disruptionBlockers(lines: readonly string[]): DisruptionBlocker[] {
  const text = lines.join('\n');
  const lower = text.toLowerCase();
  const found: DisruptionBlocker[] = [];
  const pdbs = new Set<string>();
  for (const match of text.matchAll(/PodDisruptionBudget(?:\(s\))?=\[([^\]]{1,1000})\]/g)) {
    for (const pdb of match[1]!.split(/[\s,]+/)) if (pdb) pdbs.add(pdb);
  }
  for (const match of text.matchAll(
    /\bpdb \\?"?([a-z0-9][a-z0-9-]{0,62}\/[a-z0-9][a-z0-9.-]{0,252})\\?"? prevents/gi,
  )) {
    pdbs.add(match[1]!);
  }
  if (pdbs.size || lower.includes('prevents pod evictions') || lower.includes("violate the pod's disruption budget")) {
    found.push(
      lower.includes('does not support multiple pdbs') || lower.includes('more than one poddisruptionbudget')
        ? { kind: 'pdb', pdbs: [...pdbs], overlapping: true }
        : { kind: 'pdb', pdbs: [...pdbs] },
    );
  }
  if (lower.includes('do-not-disrupt" annotation') || lower.includes('do-not-evict')) {
    if (/disruption is blocked through the \\?"karpenter\.sh\/do-not-disrupt\\?" annotation/i.test(text)) {
      found.push({ kind: 'node-annotation' });
    }
    const pods = [...text.matchAll(/\bPod=([a-z0-9][a-z0-9-]{0,62}\/[a-z0-9][a-z0-9.-]{0,252})/g)].map((m) =>
      m[1]!.replace(/[.,)]+$/, ''),
    );
    const quoted = [...text.matchAll(/\bpod \\?"([a-z0-9][a-z0-9-]{0,62}\/[a-z0-9][a-z0-9.-]{0,252})\\?" has/g)].map(
      (m) => m[1]!,
    );
    if (pods.length || quoted.length || !found.some((b) => b.kind === 'node-annotation')) {
      found.push({ kind: 'pod-annotation', pods: [...new Set([...pods, ...quoted])] });
    }
  }
  const budget = /no allowed disruptions(?: for disruption reason (\w+))? due to blocking budget/i.exec(text);
  if (budget) found.push({ kind: 'budget', ...(budget[1] ? { reason: budget[1] } : {}) });
  const whenEmpty = /nodepool \\?"([a-z0-9.-]{1,253})\\?" has consolidation policy whenempty/i.exec(text);
  if (whenEmpty) found.push({ kind: 'when-empty', nodepool: whenEmpty[1] });
  const disabled = /nodepool \\?"([a-z0-9.-]{1,253})\\?" has consolidation disabled/i.exec(text);
  if (disabled) found.push({ kind: 'consolidation-disabled', nodepool: disabled[1] });
  if (lower.includes('spot node with a spot node')) found.push({ kind: 'spot-to-spot' });
  if (lower.includes('not all pods would schedule')) found.push({ kind: 'not-all-pods-schedule' });
  if (lower.includes("can't replace with a cheaper node") || lower.includes("can't replace with a lower-priced node")) {
    found.push({ kind: 'no-cheaper-node' });
  }
  return found;
}

/** The kinds of pod-to-pod placement rule Karpenter names (`TopologyType.String()`, scheduling/topologygroup.go). */
export type TopologyConstraintType = 'topology spread' | 'pod affinity' | 'pod anti-affinity';

/**
 * A placement rule Karpenter could not satisfy for any NodePool: `unsatisfiable topology constraint
 * for <type>, key=<topologyKey> (counts = <pods per domain>, podDomains = <requirement>, nodeDomains =
 * <requirement>` (sigs.k8s.io/karpenter pkg/controllers/provisioning/scheduling/topology.go; v0.x
 * prints the counts as `map[a:1 b:0]` and closes the parenthesis, v1 prints `a: 1, b: 0` and does not).
 */
export interface TopologyConstraint {
  type: TopologyConstraintType;
  key: string;
  /** Pods already counted per domain, as Karpenter prints them. */
  counts?: string;
  /** The domains the pod may go to (its own node selector and affinity on the key). */
  podDomains?: Requirement;
  /** The domains the NodePools can offer on the key. */
  nodeDomains?: Requirement;
}

const TOPOLOGY_MARKER = 'unsatisfiable topology constraint for ';
const TOPOLOGY_TYPES: readonly TopologyConstraintType[] = ['topology spread', 'pod anti-affinity', 'pod affinity'];

/** Every unsatisfiable placement rule Karpenter states in the lines, once each. */
export function topologyConstraints(lines: readonly string[]): TopologyConstraint[] {
  const found: TopologyConstraint[] = [];
  for (const line of lines) {
    let from = line.indexOf(TOPOLOGY_MARKER);
    while (from >= 0) {
      const rest = line.slice(from + TOPOLOGY_MARKER.length, from + TOPOLOGY_MARKER.length + 2000);
      const constraint = parseTopology(rest);
      if (constraint && !found.some((c) => c.type === constraint.type && c.key === constraint.key)) {
        found.push(constraint);
      }
      from = line.indexOf(TOPOLOGY_MARKER, from + TOPOLOGY_MARKER.length);
    }
  }
  return found;
}

function parseTopology(text: string): TopologyConstraint | undefined {
  const type = TOPOLOGY_TYPES.find((t) => text.startsWith(`${t}, key=`));
  if (!type) return undefined;
  const afterKey = text.slice(`${type}, key=`.length);
  const key = afterKey.split(/[\s,(]/, 1)[0];
  if (!key) return undefined;
  const constraint: TopologyConstraint = { type, key };
  const counts = between(afterKey, '(counts = ', ', podDomains = ');
  if (counts !== undefined) constraint.counts = counts.replace(/^map\[|\]$/g, '').trim();
  const pod = between(afterKey, 'podDomains = ', ', nodeDomains = ');
  const podDomains = pod === undefined ? undefined : parseRequirement(pod);
  if (podDomains) constraint.podDomains = podDomains;
  const nodeStart = afterKey.indexOf('nodeDomains = ');
  if (nodeStart >= 0) {
    const node = afterKey.slice(nodeStart + 'nodeDomains = '.length).split(/\)|; |\\n|"/, 1)[0]!;
    const nodeDomains = parseRequirement(node);
    if (nodeDomains) constraint.nodeDomains = nodeDomains;
  }
  return constraint;
}

function between(text: string, start: string, end: string): string | undefined {
  const from = text.indexOf(start);
  if (from < 0) return undefined;
  const to = text.indexOf(end, from + start.length);
  return to < 0 ? undefined : text.slice(from + start.length, to);
}

/**
 * Why kube-scheduler's filters turned nodes down, for the placement rules: the reason strings of its
 * InterPodAffinity, PodTopologySpread and NodeAffinity plugins (`N node(s) didn't match pod affinity
 * rules`, `didn't satisfy existing pods anti-affinity rules`, `didn't match pod topology spread
 * constraints (missing required label)`, `didn't match Pod's node affinity/selector`; `didn't match
 * node selector` before Kubernetes 1.19), with how many nodes each turned down.
 */
export type PlacementReason =
  | 'pod-affinity'
  | 'pod-anti-affinity'
  | 'existing-anti-affinity'
  | 'topology-spread'
  | 'topology-label-missing'
  | 'node-selector';

export interface PlacementRefusal {
  reason: PlacementReason;
  /** How many nodes gave the reason, when the line counts them. */
  nodes?: number;
}

const PLACEMENT_REASONS: ReadonlyArray<readonly [string, PlacementReason]> = [
  ["didn't satisfy existing pods anti-affinity", 'existing-anti-affinity'],
  ["didn't match pod topology spread constraints (missing required label)", 'topology-label-missing'],
  ["didn't match pod topology spread constraints", 'topology-spread'],
  ["didn't match pod anti-affinity", 'pod-anti-affinity'],
  ["didn't match inter-pod anti-affinity", 'pod-anti-affinity'],
  ["didn't match pod affinity/anti-affinity", 'pod-affinity'],
  ["didn't match pod affinity", 'pod-affinity'],
  ["didn't match pod's node affinity", 'node-selector'],
  ["didn't match node selector", 'node-selector'],
];

/** The scheduler's placement reasons in the lines, each once, with the largest node count given for it. */
export function placementRefusals(lines: readonly string[]): PlacementRefusal[] {
  const found = new Map<PlacementReason, number | undefined>();
  for (const line of lines) {
    const lower = line.toLowerCase();
    for (const part of lower.split(/, (?=\d+ node)|: (?=\d+ node)|\. (?=\d+ node)/)) {
      const reason = PLACEMENT_REASONS.find(([text]) => part.includes(text))?.[1];
      if (!reason) continue;
      const count = /^(\d+) nodes?(?:\(s\))? didn't/.exec(part.trimStart())?.[1];
      const nodes = count === undefined ? undefined : Number(count);
      const before = found.get(reason);
      found.set(reason, nodes === undefined ? before : Math.max(before ?? 0, nodes));
    }
  }
  return [...found].map(([reason, nodes]) => (nodes === undefined ? { reason } : { reason, nodes }));
}

/** How many nodes the scheduler considered: `0/N nodes are available`. */
export function nodesConsidered(lines: readonly string[]): number | undefined {
  for (const line of lines) {
    const match = /\b\d+\/(\d+) nodes are available/.exec(line);
    if (match) return Number(match[1]);
  }
  return undefined;
}
