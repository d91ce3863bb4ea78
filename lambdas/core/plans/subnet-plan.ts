import type { CidrPlan } from './cidr-plan';
import { shellArg } from '../advice/shell';

/**
 * The steps of a subnet capacity plan, in the only safe order: associate the block, create each
 * subnet untagged, give it the route table of its zone's node subnet (the one with the NAT route),
 * and only then tag it for Karpenter discovery. A subnet tagged before it is routed takes nodes that
 * cannot reach the internet and stay NotReady. One approach at a time: these steps make new node
 * subnets; pod-only custom networking is the alternative (`customNetworkingSteps`), never mixed in.
 */
export interface PlanStep {
  title: string;
  /** False for a read-only lookup; true when the command changes something. */
  changes: boolean;
  command: string;
}

export interface SubnetPlanInput {
  plan: CidrPlan;
  discoveryTag: { key: string; value: string };
  region: string | null;
  /** A node subnet Karpenter uses today, per zone: its route table is the one to copy. */
  nodeSubnetOfZone?: Readonly<Record<string, string>>;
}

/** Placeholder for the id EC2 gives the subnet created for `cidr`. */
export const newSubnetId = (cidr: string): string => `<subnet-id-of-${cidr.replace('/', '-')}>`;

/** The shared first steps: CIDR block, untagged subnets, their route tables. */
export function routedSubnetSteps(input: SubnetPlanInput): PlanStep[] {
  const { plan, region } = input;
  const candidate = plan.candidates[0];
  if (!candidate) return [];
  const r = region ? ` --region ${shellArg(region)}` : '';
  const vpc = shellArg(plan.vpcId);
  const steps: PlanStep[] = [
    {
      title: `Associate ${candidate} with ${plan.vpcId}`,
      changes: true,
      command: `aws ec2 associate-vpc-cidr-block --vpc-id ${vpc} --cidr-block ${candidate}${r}`,
    },
  ];
  for (const s of plan.subnets) {
    steps.push({
      title: `Create the ${s.availabilityZone} subnet (${s.cidr}), not yet tagged for Karpenter`,
      changes: true,
      command: `aws ec2 create-subnet --vpc-id ${vpc} --availability-zone ${shellArg(s.availabilityZone)} --cidr-block ${s.cidr} --query Subnet.SubnetId --output text${r}`,
    });
  }
  for (const s of plan.subnets) {
    const existing = input.nodeSubnetOfZone?.[s.availabilityZone];
    const filter = existing
      ? `Name=association.subnet-id,Values=${shellArg(existing)}`
      : `Name=vpc-id,Values=${vpc} Name=route.destination-cidr-block,Values=0.0.0.0/0`;
    steps.push({
      title: `Find the route table with the NAT route of ${s.availabilityZone}${existing ? ` (that of ${existing})` : ''}`,
      changes: false,
      command: `aws ec2 describe-route-tables --filters ${filter} --query "RouteTables[].{Id:RouteTableId,Nat:Routes[?DestinationCidrBlock=='0.0.0.0/0'].NatGatewayId}" --output table${r}`,
    });
    steps.push({
      title: `Associate the ${s.availabilityZone} subnet with that route table`,
      changes: true,
      command: `aws ec2 associate-route-table --route-table-id <route-table-id-of-${s.availabilityZone}> --subnet-id ${newSubnetId(s.cidr)}${r}`,
    });
  }
  return steps;
}

/** New node subnets: the routed subnets, then the discovery tag, last. */
export function nodeSubnetSteps(input: SubnetPlanInput): PlanStep[] {
  const routed = routedSubnetSteps(input);
  if (routed.length === 0) return [];
  const r = input.region ? ` --region ${shellArg(input.region)}` : '';
  const tag = `Key=${tagText(input.discoveryTag.key)},Value=${tagText(input.discoveryTag.value)}`;
  return [
    ...routed,
    ...input.plan.subnets.map((s) => ({
      title: `Last, tag the ${s.availabilityZone} subnet for Karpenter discovery`,
      changes: true,
      command: `aws ec2 create-tags --resources ${newSubnetId(s.cidr)} --tags '${tag}'${r}`,
    })),
  ];
}

/** The alternative: the routed subnets for pod IPs only (VPC CNI custom networking), never tagged for Karpenter. */
export function customNetworkingSteps(input: SubnetPlanInput): PlanStep[] {
  const routed = routedSubnetSteps(input);
  if (routed.length === 0) return [];
  return [
    ...routed,
    {
      title: 'Create the ENIConfig objects (below), one per zone, with the new subnet ids',
      changes: true,
      command: 'kubectl apply -f eniconfigs.yaml',
    },
    {
      title: 'Turn on custom networking in the VPC CNI; only nodes launched after it use the new subnets',
      changes: true,
      command:
        'kubectl set env daemonset aws-node -n kube-system AWS_VPC_K8S_CNI_CUSTOM_NETWORK_CFG=true ENI_CONFIG_LABEL_DEF=topology.kubernetes.io/zone',
    },
  ];
}

/** A step as one line of text: `[changes] title` then the command. */
export const stepLabel = (step: PlanStep): string => (step.changes ? 'changes' : 'read-only');

/** A tag key or value inside single-quoted shorthand: no quote, comma or brace. */
const tagText = (text: string): string => text.replace(/[^A-Za-z0-9 _.:/=+@-]/g, '');
