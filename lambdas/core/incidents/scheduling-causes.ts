import { CATALOG, type RuleId } from '../recognise/rules';
import type { Entities, Signal } from '../model';

/**
 * One scheduling failure often states several reasons at once: "0/7 nodes are available: 3 node(s)
 * had untolerated taint {nvidia.com/gpu: true}, 4 node(s) didn't match Pod's node affinity/selector".
 * They are one finding, led by one reason, the others kept as its causes (rule ids stay as they are).
 *
 * Which leads follows from how the reasons are counted. kube-scheduler runs its filters in a fixed
 * order (TaintToleration, NodeAffinity, NodeResourcesFit, …, VolumeBinding, VolumeZone,
 * PodTopologySpread, InterPodAffinity: its default plugin set) and counts each node under the first
 * one it fails; Karpenter checks a NodePool's taints, then its requirements, then its instance types
 * and limits. So a node counted under a later filter passed the earlier ones: it is a node the pod
 * could use, and its reason leads. One exception: a node selector, node affinity or NodePool
 * requirement is the pod choosing its nodes, so the nodes it rules out are nodes the pod never
 * wanted; it leads only alone. In the example above the GPU nodes refuse the pod by their taint (the
 * pod wants them) and the others are not GPU nodes: the missing toleration leads.
 *
 * From the reason that leads least to the one that leads most:
 */
export const SCHEDULING_LEAD_ORDER: readonly RuleId[] = [
  'scheduling-node-selector-mismatch',
  'incompatible-requirements',
  'scheduling-untolerated-taint',
  'scheduling-insufficient-resources',
  'nodepool-limits-exceeded',
  'volume-zone-conflict',
  'scheduling-affinity-topology',
];

const RANK = new Map(SCHEDULING_LEAD_ORDER.map((rule, index) => [rule, index]));

/**
 * The signals of one record with its scheduling reasons merged: one signal, of the reason that
 * leads, carrying the others as `causes` (most telling first). Other signals are returned unchanged.
 */
export function mergeSchedulingCauses(signals: Signal[]): Signal[] {
  if (signals.length < 2) return signals;
  // Loops, not filter/reduce/flatMap: this runs on every record that classifies (npm run bench).
  let lead: Signal | undefined;
  let scheduling = 0;
  for (const signal of signals) {
    const rank = RANK.get(signal.rule);
    if (rank === undefined) continue;
    scheduling++;
    if (lead === undefined || rank > RANK.get(lead.rule)!) lead = signal;
  }
  if (scheduling < 2) return signals;
  // The causes most telling first: inserted in place by rank, in the order given among equal ranks
  // (what a stable sort gives), into an array of its final length. A record states a handful of
  // reasons: a sort's setup cost more than these comparisons.
  const causes: RuleId[] = new Array<RuleId>(scheduling - 1);
  let found = 0;
  for (const signal of signals) {
    if (signal === lead) continue;
    const rank = RANK.get(signal.rule);
    if (rank === undefined) continue;
    let at = found++;
    for (; at > 0 && RANK.get(causes[at - 1]!)! < rank; at--) causes[at] = causes[at - 1]!;
    causes[at] = signal.rule;
  }
  // Built member by member (a spread of the lead cost more than merging the rest).
  const leading: Signal = { rule: lead!.rule, entities: lead!.entities, record: lead!.record, causes };
  if (scheduling === signals.length) return [leading];
  const merged: Signal[] = [];
  for (const signal of signals) {
    if (signal === lead) merged.push(leading);
    else if (!RANK.has(signal.rule)) merged.push(signal);
  }
  return merged;
}

/** What one cause says, with what the entities name, for a finding that a merged record leads. */
const CAUSE_PHRASES: Partial<Record<RuleId, (entities: Entities) => string>> = {
  'scheduling-untolerated-taint': (e) =>
    `other nodes carry ${e.taints?.length ? `the taint${e.taints.length > 1 ? 's' : ''} ${names(e.taints)}` : 'a taint'} the pods do not tolerate`,
  'scheduling-node-selector-mismatch': (e) =>
    `other nodes do not match the pods' node selector or affinity${e.labels?.length ? ` (${names(e.labels)})` : ''}`,
  'incompatible-requirements': () => "some NodePools' requirements are incompatible with the pods'",
  'scheduling-insufficient-resources': (e) =>
    `the nodes that would otherwise fit lack ${e.resources?.length ? names(e.resources) : 'resources'}`,
  'nodepool-limits-exceeded': () => 'a NodePool has reached its limits',
  'volume-zone-conflict': () => "the pods' volumes are bound to another zone",
  'scheduling-affinity-topology': () => 'pod affinity, anti-affinity or topology spread rules exclude nodes',
};

/** `a, b, c and 2 more`. */
function names(values: readonly string[]): string {
  const shown = values.slice(0, 5).join(', ');
  return values.length > 5 ? `${shown} and ${values.length - 5} more` : shown;
}

/**
 * One sentence naming the other reasons the same scheduling events gave (empty without causes), for
 * the diagnosis of the finding they are merged into.
 */
export function causesSentence(causes: readonly RuleId[] | undefined, entities: Entities): string {
  if (!causes?.length) return '';
  const phrases = causes.map((cause) => CAUSE_PHRASES[cause]?.(entities) ?? CATALOG[cause].title.toLowerCase());
  return `The same scheduling events also report that ${joinAnd(phrases)}.`;
}

function joinAnd(phrases: string[]): string {
  if (phrases.length < 2) return phrases.join('');
  return `${phrases.slice(0, -1).join('; ')}; and ${phrases[phrases.length - 1]}`;
}
