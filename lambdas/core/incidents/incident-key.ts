import { CATALOG, type RuleId } from '../recognise/rules';
import type { Entities, EntityKind } from '../model';

/**
 * What separates one incident from another inside a cluster. Most rules key on their catalog entity
 * (a node pool, a node class). Rules whose failures are reported per workload are keyed on their
 * cause instead — the taint nobody tolerates, the resource nothing can fit, the label nothing has —
 * and the workloads become the incident's affected set: 300 pods Pending on one taint are one
 * incident, not 300 (issue 12).
 */

/**
 * Per-workload rules: the entity kind that names the cause, or null when the rule has one cause per
 * cluster. Rules not listed here key on their catalog `keyEntity`.
 */
export const CAUSE_KIND: Partial<Record<RuleId, EntityKind | null>> = {
  'volume-mount-timeout': null,
  'oom-killed': null,
  'missing-resource-requests': null,
  'windows-image-platform-mismatch': 'images',
  'scheduling-affinity-topology': null,
  'scheduling-insufficient-resources': 'resources',
  'scheduling-untolerated-taint': 'taints',
  'scheduling-node-selector-mismatch': 'labels',
  'incompatible-requirements': 'labels',
  'volume-zone-conflict': null,
};

/** Distinct causes joined into one key stay short: long label lists would make ids unreadable. */
const MAX_KEY_CHARS = 200;

/** True when the rule's failures are per workload and the workloads are its affected set. */
export const isPerWorkload = (rule: RuleId): boolean => keyingOf(rule).perWorkload;

/** The key value of the incident a signal of `rule` with `entities` belongs to (undefined: cluster-wide). */
export function incidentKeyOf(rule: RuleId, entities: Entities): string | undefined {
  return keyValueOf(keyingOf(rule), entities);
}

/** The key value under `keying` (`keyingOf`) of a signal with `entities`: `incidentKeyOf` with the rule looked up. */
export function keyValueOf(keying: Keying, entities: Entities): string | undefined {
  const { keyEntity, cause } = keying;
  if (!keyEntity) return undefined;
  if (keyEntity !== 'workloads') return entities[keyEntity]?.[0];
  if (!cause) return undefined;
  const named = entities[cause];
  if (!named?.length) return undefined;
  // One cause (most records name one taint, one resource): itself, without a set, a sort and a join.
  if (named.length === 1) return named[0]!.slice(0, MAX_KEY_CHARS);
  return [...new Set(named)].sort().join(',').slice(0, MAX_KEY_CHARS);
}

/** How a rule's incidents are keyed, read once per rule from the catalog (a lookup per signal cost more). */
export interface Keying {
  readonly keyEntity?: EntityKind;
  readonly cause?: EntityKind | null;
  readonly perWorkload: boolean;
}
const keyings = new Map<RuleId, Keying>();
export function keyingOf(rule: RuleId): Keying {
  let keying = keyings.get(rule);
  if (keying === undefined) {
    const keyEntity = CATALOG[rule].keyEntity;
    keying = { keyEntity, cause: CAUSE_KIND[rule], perWorkload: keyEntity === 'workloads' };
    keyings.set(rule, keying);
  }
  return keying;
}
