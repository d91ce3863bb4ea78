import {
  CreateNetworkInterfaceCommand,
  CreateSubnetCommand,
  CreateVpcCommand,
  DeleteNetworkInterfaceCommand,
  DescribeSubnetsCommand,
  type EC2Client,
} from '@aws-sdk/client-ec2';
import { awslogsEvent, type AwslogsOptions } from '../../support/awslogs';
import type { Deployment } from './deploy';

/**
 * The AWS side of a cluster, built in the emulator by the test: a VPC, subnets tagged for Karpenter
 * discovery, and network interfaces that consume their addresses as nodes and pods would.
 */
export class Network {
  private constructor(
    private readonly ec2: EC2Client,
    readonly vpcId: string,
  ) {}

  static async create(ec2: EC2Client, cidr = '10.0.0.0/16'): Promise<Network> {
    const { Vpc } = await ec2.send(new CreateVpcCommand({ CidrBlock: cidr }));
    return new Network(ec2, Vpc!.VpcId!);
  }

  /** A subnet in `zone`, tagged as Karpenter's (`karpenter.sh/discovery=<cluster>` unless `tags` say otherwise). */
  async subnet(cidr: string, zone: string, tags: Record<string, string>): Promise<string> {
    const { Subnet } = await this.ec2.send(
      new CreateSubnetCommand({
        VpcId: this.vpcId,
        CidrBlock: cidr,
        AvailabilityZone: zone,
        TagSpecifications: [
          { ResourceType: 'subnet', Tags: Object.entries(tags).map(([Key, Value]) => ({ Key, Value })) },
        ],
      }),
    );
    return Subnet!.SubnetId!;
  }

  /** Takes `count` addresses of the subnet (one ENI each); returns the ENIs, to give them back later. */
  async consume(subnetId: string, count: number): Promise<string[]> {
    const enis: string[] = [];
    for (let i = 0; i < count; i++) {
      const { NetworkInterface } = await this.ec2.send(new CreateNetworkInterfaceCommand({ SubnetId: subnetId }));
      enis.push(NetworkInterface!.NetworkInterfaceId!);
    }
    return enis;
  }

  /** Takes every free address of the subnet. */
  async exhaust(subnetId: string): Promise<string[]> {
    return this.consume(subnetId, await this.freeIps(subnetId));
  }

  async release(enis: string[]): Promise<void> {
    for (const id of enis) await this.ec2.send(new DeleteNetworkInterfaceCommand({ NetworkInterfaceId: id }));
  }

  /** What EC2 itself says is free: the number a notice must show. */
  async freeIps(subnetId: string): Promise<number> {
    const { Subnets } = await this.ec2.send(new DescribeSubnetsCommand({ SubnetIds: [subnetId] }));
    return Subnets![0]!.AvailableIpAddressCount!;
  }
}

/** The subscription filters of the template: the log groups the stack listens to, per cluster. */
export function subscriptionFilters(deployment: Deployment): Array<{ logGroupName: string; filterName: string }> {
  return Object.values(deployment.stack.template.Resources)
    .filter((r) => r.Type === 'AWS::Logs::SubscriptionFilter')
    .map((r) => ({ logGroupName: String(r.Properties!.LogGroupName), filterName: String(r.Properties!.FilterName) }));
}

/**
 * A subscription delivery of `lines` as CloudWatch Logs would make it through the template's own
 * filter on `logGroupName`: its log group, its filter name (which tells the analyzer the cluster).
 */
export function delivery(
  deployment: Deployment,
  logGroupName: string,
  lines: string[],
  options: Omit<AwslogsOptions, 'logGroup' | 'filters'> = {},
): { awslogs: { data: string } } {
  const filter = subscriptionFilters(deployment).find((f) => f.logGroupName === logGroupName);
  if (!filter) throw new Error(`The stack has no subscription filter on ${logGroupName}`);
  return awslogsEvent(lines, { ...options, logGroup: logGroupName, filters: [filter.filterName] });
}
