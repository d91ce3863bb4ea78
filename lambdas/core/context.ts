/**
 * Live AWS facts behind a finding (DESIGN §5 `context`). The core only reads them; the adapters
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
}

export interface VpcFacts {
  vpcId: string;
  cidrBlocks: string[];
  /** CIDR associations the default quota still allows (5 per VPC by default). */
  cidrSlotsLeft?: number;
}

export interface NodegroupFacts {
  name: string;
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
  vpcs?: VpcFacts[];
  nodegroups?: NodegroupFacts[];
  quotas?: QuotaFacts[];
  enrichmentErrors: EnrichmentError[];
}

export const emptyContext = (): FindingContext => ({ enrichmentErrors: [] });
