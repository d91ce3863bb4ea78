/** The shape of one EC2 API error code's entry (ec2-error-codes.ts), its families and why a benign one is benign. */
export interface Ec2ErrorCode {
  /** The code as AWS spells it (matching is case-insensitive). */
  code: string;
  family: Ec2Family;
  /** The rule the code means, or null when benign; a test holds every id to the catalog. */
  rule: string | null;
  benign?: keyof typeof EC2_BENIGN_REASONS;
  /** A plain word (`Unsupported`): recognised only where an error code stands, not in prose. */
  contextOnly?: boolean;
}

export type Ec2Family =
  | 'capacity'
  | 'quota'
  | 'permission'
  | 'launch-configuration'
  | 'network'
  | 'volume'
  | 'throttling'
  | 'transient-server'
  | 'other';

export const EC2_BENIGN_REASONS = {
  network:
    'network resource no Karpenter launch or discovery call creates (VPN, gateways, routes, peering, endpoints, mirroring)',
  volume:
    'EBS volume or snapshot operation of another workflow (the CSI driver reports attach failures in its own words)',
  'transient-server': 'AWS-side transient fault: the SDK and Karpenter retry it',
  other: 'not a launch failure cause: bookkeeping, pagination, request syntax or APIs Karpenter does not call',
  dryrun: 'the success answer of a dry run (Karpenter validates its NodeClass permissions with DryRun)',
  eni: 'per-ENI address limit of the instance type: the VPC CNI attaches another ENI, not a subnet or account limit',
} as const;
