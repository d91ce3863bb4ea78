import { customNetworkingStep } from '../advice/custom-networking';
import { DOCS } from '../advice/docs-links';
import { shellArg } from '../advice/shell';
import { describeSubnetFacts, roomElsewhere } from '../advice/subnets';
import { anyOf, defineRule, seedSection } from './types';

export default defineRule({
  info: {
    id: 'subnet-ip-exhaustion',
    title: 'Subnets are out of free IP addresses',
    severity: 'critical',
    source: 11,
    family: 'network',
    emittedBy: 'logs',
    recognises:
      'InsufficientFreeAddressesInSubnet, "not enough free addresses in subnet", failed to assign an IP address to container',
  },
  recognition: {
    clauses: [
      ...anyOf(
        'insufficientfreeaddressesinsubnet',
        'not enough free addresses in subnet',
        'failed to assign an ip address to container',
        'no available ip/prefix',
        'no available ip addresses',
        'failed to allocate a private ip',
        // VPC CNI ipamd: the subnet has no address or prefix left for the ENI, or the warm pool is empty
        "subnet doesn't seem to have enough ips",
        'unable to attach ips/prefixes for the eni',
        'no free ip available in the prefix',
        'failed to assign ips from network card',
        'max eni limit is already reached',
        // Cilium (cluster-pool, multi-pool, ENI IPAM): the agent's pool is empty
        'range is full',
        'unable to allocate ip via local cilium agent',
        'no more ips available',
        'all cidr ranges are exhausted',
        'no ips currently available on the node',
        // Calico IPAM: the pools or the node's blocks are used up
        'failed to request ipv4 addresses',
        'failed to request ipv6 addresses',
        'no more free affine blocks',
        'no ips available in pools',
        'error getting ips from ipam',
      ),
      ...[
        ['need to allocate an ipam block but could not', 'blocks reached'],
        // the ENI attachment limit of the instance type: an ENI, not an EBS volume, could not be attached
        ['interface count', 'exceeds the limit'],
        ['attach eni', 'limitexceeded'],
        ['attacheni', 'limitexceeded'],
        ['attaching eni', 'limitexceeded'],
      ],
    ],
    // The IP shortage is why the sandbox failed (not a CNI that is not ready); an ENI limit is not an EBS one.
    supersedes: ['node-not-ready', 'volume-attach-limit'],
    refinesCapacityWrapper: true,
  },
  diagnose: (f) => {
    const subnets = f.all('subnets');
    const facts = f.context.subnets ?? [];
    const vpc = facts.find((s) => s.vpcId)?.vpcId;
    const vpcArg = vpc ? shellArg(vpc) : '<vpc-id>';
    const subnetIds = subnets.length ? subnets.map(shellArg).join(' ') : '<subnet-id>';
    return {
      diagnosis:
        `Karpenter cannot launch nodes because subnet${subnets.length > 1 ? 's' : ''} ${subnets.length ? f.list('subnets') : 'of the cluster'} ` +
        `${subnets.length > 1 ? 'have' : 'has'} no free IP addresses left` +
        `${describeSubnetFacts(subnets.length ? facts.filter((s) => subnets.includes(s.subnetId)) : facts, subnets)}. ` +
        `The subnet CIDR is used up by nodes and, with the VPC CNI, by pod IPs.${roomElsewhere(facts, subnets)}`,
      remediation: [
        {
          title: 'See the free addresses of the subnets',
          detail: 'AvailableIpAddressCount already excludes the five addresses AWS reserves.',
          commands: [
            `aws ec2 describe-subnets --subnet-ids ${subnetIds} --query 'Subnets[].{Subnet:SubnetId,AZ:AvailabilityZone,Free:AvailableIpAddressCount,Cidr:CidrBlock,Vpc:VpcId}' --output table${f.region}`,
          ],
        },
        {
          title: 'Add a secondary CIDR to the VPC and new subnets for Karpenter, routed like the old ones',
          detail:
            "Associate an additional IPv4 block, create a subnet per zone in it, and tag them for Karpenter discovery. Beside an RFC 1918 primary, AWS allows 100.64.0.0/10 (shared address space) or more of the primary's own private range, not the other private ranges nor 198.19.0.0/16. The plan-subnet-capacity action computes non-overlapping candidates and the subnet layout.\n" +
            "A new subnet starts on the VPC's main route table, which usually has no route to a NAT gateway: nodes there cannot pull images or reach AWS APIs and stay NotReady. Associate each new subnet with the route table of the existing node subnet of its zone (the one whose 0.0.0.0/0 route points at a NAT gateway), before tagging it for Karpenter.",
          commands: [
            `aws ec2 describe-vpcs --vpc-ids ${vpcArg} --query 'Vpcs[].CidrBlockAssociationSet[].CidrBlock'${f.region}`,
            `aws ec2 associate-vpc-cidr-block --vpc-id ${vpcArg} --cidr-block <new-cidr>${f.region}`,
            `aws ec2 create-subnet --vpc-id ${vpcArg} --availability-zone <zone> --cidr-block <subnet-cidr>${f.region}`,
            `aws ec2 describe-route-tables --filters Name=association.subnet-id,Values=${subnets.length ? shellArg(subnets[0]!) : '<subnet-id>'} --query 'RouteTables[].{Id:RouteTableId,Routes:Routes[].[DestinationCidrBlock,NatGatewayId,GatewayId]}'${f.region}`,
            `aws ec2 associate-route-table --route-table-id <route-table-id> --subnet-id <new-subnet-id>${f.region}`,
            `aws ec2 create-tags --resources <new-subnet-id> --tags Key=karpenter.sh/discovery,Value=${f.cluster}${f.region}`,
          ],
          action: 'plan-subnet-capacity',
        },
        customNetworkingStep(f),
      ],
      docs: [DOCS.vpcCidrs, DOCS.customNetworking, DOCS.karpenterTroubleshooting],
    };
  },
  examples: {
    fires: [
      {
        line: '"error": "creating machine, creating instance, with fleet error(s), InsufficientFreeAddressesInSubnet: There are not enough free addresses in subnet \'subnet-a to satisfy the requested number of instances"',
        source: seedSection(11),
      },
      {
        line: ' ERROR   controller.provisioner  launching machine, creating cloud provider instance, creating instance, with fleet error(s), InsufficientFreeAddressesInSubnet: There are not enough free addresses in subnet \'subnet-0783288fba3453a60\' to satisfy the requested number of instances.; launching machine, creating cloud provider instance, creating instance, with fleet error(s), InsufficientFreeAddressesInSubnet: There are not enough free addresses in subnet \'subnet-0783288fba3453a60\' to satisfy the requested number of instances.        {"commit": "5a7faa0-dirty"}',
        source:
          'https://github.com/aws/karpenter-provider-aws/issues/3380 (test/fixtures/karpenter-samples.jsonl ref-030)',
      },
      {
        line: 'Warning  FailedCreatePodSandBox  2m47s (x1642 over 6h)  kubelet  (combined from similar events): Failed to create pod sandbox: rpc error: code = Unknown desc = failed to setup network for sandbox "71ef22cdaf65163adca4c97ed66df6a7cdcdcbe7c011d0ff62a77648cba5b46b": plugin type="aws-cni" name="aws-cni" failed (add): add cmd: failed to assign an IP address to container',
        source:
          'https://github.com/aws/karpenter-provider-aws/issues/7318 (test/fixtures/karpenter-samples.jsonl ref-031)',
      },
    ],
    silent: [
      {
        line: '{"level":"DEBUG","time":"2024-05-14T09:58:55.080Z","logger":"controller.disruption","message":"discovered subnets","commit":"fb4d75f","subnets":["subnet-05d32764d86645112 (eu-central-1b)","subnet-04e892f4c7dc778f6 (eu-central-1a)","subnet-08a50cd900b173056 (eu-central-1c)"]}',
        source:
          'https://github.com/kubernetes-sigs/karpenter/issues/1256 (test/fixtures/karpenter-samples.jsonl ref-059)',
      },
    ],
  },
});
