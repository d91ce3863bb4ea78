/**
 * Planning more IPv4 address space: secondary VPC CIDR candidates the primary range allows, and a subnet
 * per zone; advice only (docs/architecture.md, Secondary CIDR candidates).
 */

export interface Cidr {
  /** Network address as an unsigned 32-bit number. */
  base: number;
  prefix: number;
}

export interface SubnetLayout {
  availabilityZone: string;
  cidr: string;
  /** Usable addresses: the size less the five AWS reserves. */
  usableIps: number;
}

export interface CidrPlan {
  vpcId: string;
  /** Candidate secondary blocks, best first; empty when the VPC has no free CIDR slot or no room. */
  candidates: string[];
  /** One subnet per zone inside the first candidate. */
  subnets: SubnetLayout[];
  /** CIDR associations the default quota still allows. */
  cidrSlotsLeft: number;
  /** Why no candidate could be offered, when none is. */
  blocked?: string;
}

export interface PlanInput {
  vpcId: string;
  /** Every IPv4 block associated with the VPC, the primary first. */
  vpcCidrs: string[];
  /** Zones the cluster's Karpenter subnets are in. */
  zones: string[];
  /** The VPC's quota of IPv4 blocks. @default 5 */
  cidrQuota?: number;
  /** Prefix of each candidate block. @default 16 */
  candidatePrefix?: number;
  /** Candidates offered at most. @default 3 */
  maxCandidates?: number;
}

const RFC1918 = ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16'].map(parseCidr) as Cidr[];
const SHARED_ADDRESS_SPACE = parseCidr('100.64.0.0/10')!;
const BENCHMARK_198_19 = parseCidr('198.19.0.0/16')!;

/** Parses `a.b.c.d/n` into its network address and prefix; undefined when malformed. */
export function parseCidr(text: string): Cidr | undefined {
  const match = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})\/(\d{1,2})$/.exec(text.trim());
  if (!match) return undefined;
  const octets = match.slice(1, 5).map(Number);
  const prefix = Number(match[5]);
  if (octets.some((o) => o > 255) || prefix > 32) return undefined;
  const address = ((octets[0]! << 24) >>> 0) + (octets[1]! << 16) + (octets[2]! << 8) + octets[3]!;
  return { base: networkOf(address, prefix), prefix };
}

export function formatCidr(cidr: Cidr): string {
  const b = cidr.base;
  return `${b >>> 24}.${(b >>> 16) & 255}.${(b >>> 8) & 255}.${b & 255}/${cidr.prefix}`;
}

export const sizeOf = (cidr: Cidr): number => 2 ** (32 - cidr.prefix);

export function overlaps(a: Cidr, b: Cidr): boolean {
  return a.base < b.base + sizeOf(b) && b.base < a.base + sizeOf(a);
}

export function contains(outer: Cidr, inner: Cidr): boolean {
  return inner.base >= outer.base && inner.base + sizeOf(inner) <= outer.base + sizeOf(outer);
}

/** The ranges secondary candidates are drawn from, for a VPC whose primary block is `primary`. */
export function allowedRanges(primary: Cidr): Cidr[] {
  const ownPrivate = RFC1918.find((range) => contains(range, primary));
  if (contains(BENCHMARK_198_19, primary)) return [SHARED_ADDRESS_SPACE, BENCHMARK_198_19];
  return ownPrivate ? [SHARED_ADDRESS_SPACE, ownPrivate] : [SHARED_ADDRESS_SPACE];
}

/** Blocks that must not be suggested even inside an allowed range. */
function refusedBlocks(primary: Cidr): Cidr[] {
  const ten = parseCidr('10.0.0.0/15')!;
  return contains(ten, primary) ? [parseCidr('10.0.0.0/16')!] : [];
}

/** Secondary CIDR candidates and a per-zone subnet layout for a VPC running out of addresses. */
export function planSubnetCapacity(input: PlanInput): CidrPlan {
  const quota = input.cidrQuota ?? 5;
  const existing = input.vpcCidrs.map(parseCidr).filter((c): c is Cidr => c !== undefined);
  const cidrSlotsLeft = Math.max(0, quota - existing.length);
  const plan: CidrPlan = { vpcId: input.vpcId, candidates: [], subnets: [], cidrSlotsLeft };
  const primary = existing[0];
  if (!primary) return { ...plan, blocked: 'the VPC CIDR blocks are not known' };
  if (cidrSlotsLeft === 0) {
    return {
      ...plan,
      blocked: `the VPC already has ${existing.length} IPv4 blocks, the quota of ${quota}: ask for more ("IPv4 CIDR blocks per VPC", L-83CA0A9D) first`,
    };
  }

  const prefix = input.candidatePrefix ?? 16;
  const taken = [...existing, ...refusedBlocks(primary)];
  const wanted = Math.min(input.maxCandidates ?? 3, cidrSlotsLeft);
  const candidates: Cidr[] = [];
  for (const range of allowedRanges(primary)) {
    if (range.prefix > prefix) continue;
    for (
      let base = range.base;
      base < range.base + sizeOf(range) && candidates.length < wanted;
      base += 2 ** (32 - prefix)
    ) {
      const candidate = { base, prefix };
      if (![...taken, ...candidates].some((block) => overlaps(block, candidate))) candidates.push(candidate);
    }
  }
  plan.candidates = candidates.map(formatCidr);
  if (candidates.length === 0) return { ...plan, blocked: `no free /${prefix} is left in the ranges this VPC may add` };
  plan.subnets = layoutSubnets(candidates[0]!, [...new Set(input.zones)].sort());
  return plan;
}

/** Splits a block into equal subnets, one per zone, as large as the zone count allows (at most /28). */
export function layoutSubnets(block: Cidr, zones: string[]): SubnetLayout[] {
  if (zones.length === 0) return [];
  const bits = Math.ceil(Math.log2(zones.length));
  const prefix = Math.min(28, block.prefix + bits);
  const size = 2 ** (32 - prefix);
  if (size * zones.length > sizeOf(block)) return [];
  return zones.map((availabilityZone, index) => ({
    availabilityZone,
    cidr: formatCidr({ base: block.base + index * size, prefix }),
    usableIps: size - 5,
  }));
}

function networkOf(address: number, prefix: number): number {
  if (prefix === 0) return 0;
  const mask = (0xffffffff << (32 - prefix)) >>> 0;
  return (address & mask) >>> 0;
}
