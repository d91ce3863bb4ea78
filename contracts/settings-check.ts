import { filterPatternProblems } from './filter-pattern';
import { type PollPlacement, pollAccountProblem, pollProblems } from './poll';
import { clusterKeysUnique } from './cluster-key';
import { logSourceProblems } from './auto-mode-logs';
import { FUNCTION_SETTINGS_JSON_SCHEMA } from './settings-schema.generated';
import type { FunctionSettings } from './settings';

/**
 * The functions' check of their settings file without zod, which would cost each cold start more than it checks;
 * one-sided: what it refuses goes to zod (docs/architecture.md, Checking the settings without zod).
 */
export function isCompleteSettings(document: unknown): document is FunctionSettings {
  return conforms(FUNCTION_SETTINGS_JSON_SCHEMA, document);
}

/** A node of the schema's JSON Schema form, as far as the generator emits it. */
export interface SchemaNode {
  readonly type?: 'object' | 'array' | 'string' | 'number' | 'integer' | 'boolean';
  readonly properties?: Readonly<Record<string, SchemaNode>>;
  readonly required?: readonly string[];
  readonly additionalProperties?: boolean;
  readonly items?: SchemaNode;
  readonly minItems?: number;
  readonly maxItems?: number;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly pattern?: string;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly exclusiveMinimum?: number;
  readonly exclusiveMaximum?: number;
  readonly enum?: readonly unknown[];
  /** Annotations: what the schema fills in; a complete document already has it. */
  readonly default?: unknown;
  readonly $schema?: string;
  /** Where the zod schema refines the value with code of its own: the key of that check in REFINEMENTS. */
  readonly refinement?: string;
}

/** Every keyword `conforms` knows: the generator refuses a schema that needs another. */
export const KNOWN_KEYWORDS: ReadonlySet<string> = new Set([
  'type',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'minItems',
  'maxItems',
  'minLength',
  'maxLength',
  'pattern',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'enum',
  'default',
  '$schema',
  'refinement',
]);

/**
 * The zod schema's refinements (`refine`, `superRefine`: code no JSON Schema can say), each under the
 * JSON Pointer of the schema node it refines; the generator marks those nodes with the key. A node
 * refined by code this table does not know fails the check (the zod schema decides), and a test
 * fails until the table holds it.
 */
export const REFINEMENTS: Readonly<Record<string, (value: never) => boolean>> = {
  '/properties/clusters': clusterKeysUnique,
  '/properties/clusters/items': (cluster: {
    name: string;
    account?: string;
    filterPattern?: string;
    poll?: PollPlacement;
    logGroups?: string[];
    autoModeLogs?: { create?: boolean; logGroupName?: string };
  }) =>
    (cluster.filterPattern === undefined || filterPatternProblems(cluster.filterPattern).length === 0) &&
    pollAccountProblem(cluster) === undefined &&
    logSourceProblems(cluster).length === 0,
  '/properties/clusters/items/properties/poll': (poll: PollPlacement) => pollProblems(poll).length === 0,
};

const patterns = new Map<string, RegExp>();

/** Whether `value` conforms to `node`, with zod's meaning of each keyword (lengths in UTF-16 units). */
function conforms(node: SchemaNode, value: unknown): boolean {
  if (node.type !== undefined && !hasType(node.type, value)) return false;
  if (node.enum !== undefined && !node.enum.includes(value)) return false;
  if (typeof value === 'string') {
    if (node.minLength !== undefined && value.length < node.minLength) return false;
    if (node.maxLength !== undefined && value.length > node.maxLength) return false;
    if (node.pattern !== undefined && !patternOf(node.pattern).test(value)) return false;
  } else if (typeof value === 'number') {
    if (node.minimum !== undefined && value < node.minimum) return false;
    if (node.maximum !== undefined && value > node.maximum) return false;
    if (node.exclusiveMinimum !== undefined && value <= node.exclusiveMinimum) return false;
    if (node.exclusiveMaximum !== undefined && value >= node.exclusiveMaximum) return false;
  } else if (Array.isArray(value)) {
    if (node.minItems !== undefined && value.length < node.minItems) return false;
    if (node.maxItems !== undefined && value.length > node.maxItems) return false;
    // Index by index: `every` would skip the holes of a sparse array, which zod refuses.
    if (node.items !== undefined)
      for (let i = 0; i < value.length; i++) if (!conforms(node.items, value[i])) return false;
  } else if (typeof value === 'object' && value !== null) {
    const record = value as Record<string, unknown>;
    const properties = node.properties ?? {};
    for (const key of node.required ?? []) if (!Object.hasOwn(record, key)) return false;
    for (const [key, item] of Object.entries(record)) {
      const property = Object.hasOwn(properties, key) ? properties[key] : undefined;
      if (property === undefined ? node.additionalProperties === false : !conforms(property, item)) return false;
    }
  }
  if (node.refinement !== undefined) {
    const refinement = REFINEMENTS[node.refinement];
    if (refinement === undefined || !refinement(value as never)) return false;
  }
  return true;
}

function hasType(type: NonNullable<SchemaNode['type']>, value: unknown): boolean {
  switch (type) {
    case 'object':
      return typeof value === 'object' && value !== null && !Array.isArray(value);
    case 'array':
      return Array.isArray(value);
    case 'string':
      return typeof value === 'string';
    case 'boolean':
      return typeof value === 'boolean';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'integer':
      return Number.isSafeInteger(value);
  }
}

function patternOf(source: string): RegExp {
  let pattern = patterns.get(source);
  if (pattern === undefined) patterns.set(source, (pattern = new RegExp(source)));
  return pattern;
}
