/**
 * Which EC2 Service Quota a capacity error hits, from the instance types named, never a default
 * (the sources of the codes: docs/architecture.md, Which EC2 quota a capacity error hits).
 */

export type QuotaBucket = 'standard' | 'g-vt' | 'p' | 'inf' | 'trn' | 'x' | 'f' | 'dl' | 'hpc' | 'high-memory';

/** Codes no reachable source confirmed: the advice asks the reader to check the name first. */
export const UNVERIFIED_QUOTA_CODES: ReadonlySet<string> = new Set([
  'L-2C3B7624',
  'L-F7808C92',
  'L-43DA4232',
  'L-6B0D517C',
  'L-85EED4F7',
]);

export interface Ec2Quota {
  bucket: QuotaBucket;
  code: string;
  name: string;
}

const ON_DEMAND: Record<QuotaBucket, { code: string; name: string }> = {
  standard: { code: 'L-1216C47A', name: 'Running On-Demand Standard (A, C, D, H, I, M, R, T, Z) instances' },
  'g-vt': { code: 'L-DB2E81BA', name: 'Running On-Demand G and VT instances' },
  p: { code: 'L-417A185B', name: 'Running On-Demand P instances' },
  inf: { code: 'L-1945791B', name: 'Running On-Demand Inf instances' },
  trn: { code: 'L-2C3B7624', name: 'Running On-Demand Trn instances' },
  x: { code: 'L-7295265B', name: 'Running On-Demand X instances' },
  f: { code: 'L-74FC7D96', name: 'Running On-Demand F instances' },
  dl: { code: 'L-6E869C2A', name: 'Running On-Demand DL instances' },
  hpc: { code: 'L-F7808C92', name: 'Running On-Demand HPC instances' },
  'high-memory': { code: 'L-43DA4232', name: 'Running On-Demand High Memory instances' },
};

/** Spot request quotas; HPC and High Memory instances are not offered as Spot. */
const SPOT: Partial<Record<QuotaBucket, { code: string; name: string }>> = {
  standard: { code: 'L-34B43A08', name: 'All Standard (A, C, D, H, I, M, R, T, Z) Spot Instance Requests' },
  'g-vt': { code: 'L-3819A6DF', name: 'All G and VT Spot Instance Requests' },
  p: { code: 'L-7212CCBC', name: 'All P Spot Instance Requests' },
  inf: { code: 'L-B5D1601B', name: 'All Inf Spot Instance Requests' },
  trn: { code: 'L-6B0D517C', name: 'All Trn Spot Instance Requests' },
  x: { code: 'L-E3A00192', name: 'All X Spot Instance Requests' },
  f: { code: 'L-88CF9481', name: 'All F Spot Instance Requests' },
  dl: { code: 'L-85EED4F7', name: 'All DL Spot Instance Requests' },
};

/** Family prefixes that are not Standard although their first letter is (dl, hpc, inf, …): longest first. */
const SPECIAL_PREFIXES: ReadonlyArray<readonly [string, QuotaBucket]> = [
  ['hpc', 'hpc'],
  ['inf', 'inf'],
  ['trn', 'trn'],
  ['dl', 'dl'],
  ['gr', 'g-vt'],
  ['vt', 'g-vt'],
  ['g', 'g-vt'],
  ['p', 'p'],
  ['x', 'x'],
  ['f', 'f'],
  ['u', 'high-memory'],
];
const STANDARD_LETTERS = new Set(['a', 'c', 'd', 'h', 'i', 'm', 'r', 't', 'z']);

/** The quota bucket of an instance type (`g5.xlarge` → g-vt, `dl1.24xlarge` → dl); undefined when unknown. */
export function quotaBucketOf(instanceType: string): QuotaBucket | undefined {
  const family = /^([a-z]+)(?:-|\d)/.exec(instanceType.toLowerCase())?.[1];
  if (!family) return undefined;
  const special = SPECIAL_PREFIXES.find(
    ([prefix]) => family === prefix || (family.startsWith(prefix) && prefix.length > 1),
  );
  if (special) return special[1];
  if (family === 'mac') return undefined;
  return STANDARD_LETTERS.has(family[0]!) ? 'standard' : undefined;
}

/** The quota of a bucket for On-Demand or Spot capacity; undefined for a Spot bucket that does not exist. */
export function quotaOf(bucket: QuotaBucket, spot: boolean): Ec2Quota | undefined {
  const entry = spot ? SPOT[bucket] : ON_DEMAND[bucket];
  return entry ? { bucket, ...entry } : undefined;
}

/** The error codes that name an EC2 instance quota, and whether each is about Spot. */
const SPOT_QUOTA_CODES = new Set(['MaxSpotInstanceCountExceeded']);

export interface QuotaPlan {
  spot: boolean;
  /** One quota per bucket of the instance types in the evidence, most named first; empty when none is named. */
  quotas: Ec2Quota[];
  /** Instance types named, for the reader. */
  instanceTypes: string[];
  /** Instance types whose bucket is unknown (e.g. mac). */
  unknownTypes: string[];
  /** The limit EC2 stated in the message ("current vCPU limit of 64"), when it did. */
  limit?: number;
}

/**
 * The quotas an EC2 quota error hit: Spot when the code (or the capacity type) says so, the buckets
 * of the instance types named, and the limit value quoted by EC2.
 */
export function planQuota(input: {
  codes: readonly string[];
  instanceTypes: readonly string[];
  capacityTypes?: readonly string[];
  texts?: readonly string[];
}): QuotaPlan {
  const spot =
    input.codes.some((code) => SPOT_QUOTA_CODES.has(code)) ||
    (!input.codes.includes('VcpuLimitExceeded') &&
      (input.capacityTypes ?? []).length > 0 &&
      (input.capacityTypes ?? []).every((type) => type === 'spot'));
  const counts = new Map<QuotaBucket, number>();
  const unknownTypes: string[] = [];
  for (const type of input.instanceTypes) {
    const bucket = quotaBucketOf(type);
    if (bucket) counts.set(bucket, (counts.get(bucket) ?? 0) + 1);
    else unknownTypes.push(type);
  }
  const quotas = [...counts.entries()]
    .sort((a, b) => b[1] - a[1])
    .map(([bucket]) => quotaOf(bucket, spot))
    .filter((quota): quota is Ec2Quota => quota !== undefined);
  const limit = vcpuLimitIn(input.texts ?? []);
  return {
    spot,
    quotas,
    instanceTypes: [...input.instanceTypes],
    unknownTypes,
    ...(limit !== undefined ? { limit } : {}),
  };
}

/** EC2's `VcpuLimitExceeded` message: "…than your current vCPU limit of 64 allows for the instance bucket…". */
export function vcpuLimitIn(texts: readonly string[]): number | undefined {
  for (const text of texts) {
    const match = /\bvCPU limit of (\d{1,9})\b/i.exec(text);
    if (match) return Number(match[1]);
  }
  return undefined;
}

/**
 * The quota of the first instance type, for callers that keep one code per finding (the enrichment
 * and the remediator); undefined when no instance type names a bucket.
 */
export function quotaForCode(code: string | undefined, instanceType: string | undefined): Ec2Quota | undefined {
  const bucket = instanceType ? quotaBucketOf(instanceType) : undefined;
  return bucket ? quotaOf(bucket, code !== undefined && SPOT_QUOTA_CODES.has(code)) : undefined;
}
