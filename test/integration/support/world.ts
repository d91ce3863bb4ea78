import {
  CreateNetworkInterfaceCommand,
  CreateSubnetCommand,
  CreateVpcCommand,
  DeleteNetworkInterfaceCommand,
  DescribeSubnetsCommand,
  type EC2Client,
} from '@aws-sdk/client-ec2';
import {
  CreateClusterCommand,
  CreateNodegroupCommand,
  DescribeNodegroupCommand,
  type EKSClient,
  type NodegroupScalingConfig,
} from '@aws-sdk/client-eks';
import { awslogsEvent, type AwslogsOptions } from '../../support/awslogs';
import type { Deployment } from './deploy';
import { ACCOUNT } from './moto';

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

  /** A subnet in `zone` with `tags` (e.g. `karpenter.sh/discovery=<cluster>` for Karpenter's subnets). */
  async subnet(cidr: string, zone: string, tags: Record<string, string> = {}): Promise<string> {
    const list = Object.entries(tags).map(([Key, Value]) => ({ Key, Value }));
    const { Subnet } = await this.ec2.send(
      new CreateSubnetCommand({
        VpcId: this.vpcId,
        CidrBlock: cidr,
        AvailabilityZone: zone,
        TagSpecifications: list.length ? [{ ResourceType: 'subnet', Tags: list }] : undefined,
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

/** An EKS cluster in the emulator, with the managed node groups the tests give it. */
export class Cluster {
  private constructor(
    private readonly eks: EKSClient,
    readonly name: string,
    private readonly subnets: string[],
  ) {}

  static async create(eks: EKSClient, name: string, subnets: string[]): Promise<Cluster> {
    await eks.send(
      new CreateClusterCommand({
        name,
        roleArn: `arn:aws:iam::${ACCOUNT}:role/${name}-cluster`,
        resourcesVpcConfig: { subnetIds: subnets },
      }),
    );
    return new Cluster(eks, name, subnets);
  }

  /** A managed node group (EKS creates its Auto Scaling group). */
  async nodegroup(name: string, scaling: NodegroupScalingConfig, tags: Record<string, string> = {}): Promise<void> {
    await this.eks.send(
      new CreateNodegroupCommand({
        clusterName: this.name,
        nodegroupName: name,
        nodeRole: `arn:aws:iam::${ACCOUNT}:role/${this.name}-nodes`,
        subnets: this.subnets,
        scalingConfig: scaling,
        tags,
      }),
    );
  }

  /** What EKS says the node group's scaling is now. */
  async scaling(nodegroup: string): Promise<NodegroupScalingConfig> {
    const { nodegroup: group } = await this.eks.send(
      new DescribeNodegroupCommand({ clusterName: this.name, nodegroupName: nodegroup }),
    );
    return group!.scalingConfig!;
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
  // A subscription filter to a function delivers from the function's own account, always.
  return awslogsEvent(lines, { owner: ACCOUNT, ...options, logGroup: logGroupName, filters: [filter.filterName] });
}

/**
 * The event EventBridge Scheduler sends the headroom function at `at`: the template's own target
 * input, with the scheduled time filled in as Scheduler fills it.
 */
export function scheduledEvent(deployment: Deployment, at: number): unknown {
  const schedule = Object.values(deployment.stack.template.Resources).find(
    (r) => r.Type === 'AWS::Scheduler::Schedule',
  );
  if (!schedule) throw new Error('The stack has no schedule');
  const input = String((schedule.Properties!.Target as { Input: string }).Input);
  return JSON.parse(
    input.replaceAll('<aws.scheduler.scheduled-time>', new Date(at).toISOString().replace(/\.\d{3}Z$/, 'Z')),
  );
}

/** A Karpenter controller line as Container Insights' Fluent Bit ships it to the application group. */
export const fromKarpenterPod = (line: string): string =>
  JSON.stringify({
    time: '2026-11-28T02:20:49.824Z',
    stream: 'stderr',
    log: line,
    kubernetes: {
      pod_name: 'karpenter-6d8f7b9c54-8zr7n',
      namespace_name: 'kube-system',
      container_name: 'controller',
      host: 'ip-10-0-12-4.eu-west-1.compute.internal',
    },
  });
