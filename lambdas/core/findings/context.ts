/**
 * Live AWS facts behind a finding (its `context`). The core only reads them; the adapters
 * fill them in for findings about to notify. Every part is optional: what could not be checked is
 * listed in `enrichmentErrors` instead.
 */
export interface SubnetFacts {
  subnetId: string;
  availabilityZone?: string;
  vpcId?: string;
  cidrBlock?: string;
  /** AvailableIpAddressCount: already excludes the five addresses AWS reserves. */
  availableIps?: number;
  /** Usable addresses of the subnet's IPv4 CIDR (size minus the five reserved). */
  totalIps?: number;
  /** The subnet carries the cluster's Karpenter discovery tag. */
  discovered?: boolean;
  /** Trend of free IPs per hour from the headroom history (negative: falling). */
  ipsPerHour?: number;
  /** Hours until the subnet runs out at that trend. */
  hoursToExhaustion?: number;
}

/** Free and usable IPs of the known subnets of one Availability Zone. */
export interface ZoneFacts {
  availabilityZone: string;
  subnets: number;
  availableIps: number;
  totalIps: number;
}

export interface VpcFacts {
  vpcId: string;
  cidrBlocks: string[];
  /** CIDR associations the default quota still allows (5 per VPC by default). */
  cidrSlotsLeft?: number;
}

export interface NodegroupFacts {
  name: string;
  /** The node group ARN (managed groups) or the Auto Scaling group ARN (self-managed). */
  arn?: string;
  kind: 'managed' | 'self-managed';
  autoScalingGroups: string[];
  minSize?: number;
  desiredSize?: number;
  maxSize?: number;
  instances?: number;
  healthIssues?: string[];
  /** The group carries the opt-in tag for automatic remediation. */
  remediationOptIn?: boolean;
}

export interface QuotaFacts {
  quotaCode: string;
  quotaName?: string;
  value?: number;
}

export interface EnrichmentError {
  /** The API or check that failed, e.g. `ec2:DescribeSubnets`. */
  source: string;
  message: string;
}

export interface FindingContext {
  subnets?: SubnetFacts[];
  /** Per-AZ totals of `subnets`. */
  zones?: ZoneFacts[];
  vpcs?: VpcFacts[];
  nodegroups?: NodegroupFacts[];
  quotas?: QuotaFacts[];
  enrichmentErrors: EnrichmentError[];
}

export const emptyContext = (): FindingContext => ({ enrichmentErrors: [] });

/** Per-AZ sums of the subnets whose counts are known, in zone order. */
export function zoneTotals(subnets: SubnetFacts[]): ZoneFacts[] {
  const zones = new Map<string, ZoneFacts>();
  for (const subnet of subnets) {
    if (!subnet.availabilityZone || subnet.availableIps === undefined || subnet.totalIps === undefined) continue;
    const zone = zones.get(subnet.availabilityZone) ?? {
      availabilityZone: subnet.availabilityZone,
      subnets: 0,
      availableIps: 0,
      totalIps: 0,
    };
    zone.subnets++;
    zone.availableIps += subnet.availableIps;
    zone.totalIps += subnet.totalIps;
    zones.set(subnet.availabilityZone, zone);
  }
  return [...zones.values()].sort((a, b) => a.availabilityZone.localeCompare(b.availabilityZone));
}

/** Usable IPv4 addresses of a subnet CIDR: its size less the five AWS reserves. */
export function usableIpsOf(cidr: string | undefined): number | undefined {
  const prefix = Number(cidr?.split('/')[1]);
  if (!Number.isInteger(prefix) || prefix < 16 || prefix > 28) return undefined;
  return 2 ** (32 - prefix) - 5;
}
