import { customNetworkingStep } from '../../advice/custom-networking';
import { DOCS } from '../../advice/docs-links';
import { shellArg } from '../../advice/shell';
import { describeSubnetFacts, roomElsewhere } from '../../advice/subnets';
import { anyOf, defineRule, seedSection } from './types';

export default defineRule({
  info: {
    id: 'subnet-ip-exhaustion',
    title: 'Subnets are out of free IP addresses',
    shortTitle: 'subnets out of IPs',
    severity: 'critical',
    source: 11,
    family: 'network',
    emittedBy: 'logs',
    recognises:
      'InsufficientFreeAddressesInSubnet, "not enough free addresses in subnet", failed to assign an IP address to container',
  },
  enrichment: ['subnets'],
  actions: ['plan-subnet-capacity'],
  escalatesOn: 'subnets',
  filterTerms: ['InsufficientFreeAddressesInSubnet'],
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
        'no ips available',
        // host-local IPAM (containernetworking/plugins), under kubenet, Flannel and chained CNIs
        'no ip addresses available in range set',
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
        line: '{"level":"error","ts":"2022-02-01T00:15:06.311Z","caller":"ipamd/ipamd.go:653","msg":"Unable to attach IPs/Prefixes for the ENI, subnet doesn\'t seem to have enough IPs/Prefixes. Consider using new subnet or carve a reserved range using create-subnet-cidr-reservation"}',
        source: 'https://github.com/aws/amazon-vpc-cni-k8s/issues/1836 (train-230, ipamd follow-up line)',
      },
      {
        line: 'Warning  FailedCreatePodSandBox  2m23s (x476 over 105m)  kubelet  (combined from similar events): Failed to create pod sandbox: rpc error: code = Unknown desc = failed to setup network for sandbox "c6f7d9434a5b18602b4329dca397d7731b99fccc0e0baacaeaf82a77d9c9439e": plugin type="cilium-cni" failed (add): unable to allocate IP via local cilium agent: [POST /ipam][502] postIpamFailure  No more IPs available',
        source: 'https://github.com/cilium/cilium/issues/29634 (train-315, Cilium ENI mode, kubectl describe pod row)',
      },
      {
        line: '{"level":"error","ts":"2025-02-02T03:55:06.311Z","caller":"ipamd/ipamd.go:1110","msg":"Unable to attach IPs/Prefixes for the ENI, subnet doesn\'t seem to have enough IPs/Prefixes. Consider using new subnet or carve a reserved range using create-subnet-cidr-reservation"}',
        source: "constructed from aws/amazon-vpc-cni-k8s@b5218838:pkg/ipamd/ipamd.go, in ipamd's JSON log",
      },
      {
        line: '{"level":"error","ts":"2025-02-02T03:55:08.118Z","caller":"awsutils/awsutils.go:742","msg":"Failed to attach ENI eni-0abc12: AttachmentLimitExceeded: Interface count 4 exceeds the limit for c5.large\\n\\tstatus code: 400"}',
        source:
          'constructed from aws/amazon-vpc-cni-k8s@b5218838:pkg/awsutils/awsutils.go "Failed to attach ENI %s: %v" with the EC2 AttachmentLimitExceeded text for network interfaces',
      },
      {
        line: '  Warning  FailedCreatePodSandBox  12s (x9 over 2m)  kubelet  Failed to create pod sandbox: rpc error: code = Unknown desc = failed to setup network for sandbox "77aa": plugin type="cilium-cni" failed (add): unable to allocate IP via local cilium agent: [POST /ipam][502] postIpamFailure  range is full',
        source:
          'constructed from cilium/cilium plugins/cilium-cni/cmd/cmd.go "unable to allocate IP via local cilium agent: %w" and pkg/ipam cluster-pool "range is full"',
      },
      {
        line: 'kube-system   1m   Warning   FailedCreatePodSandBox   pod/web-7f9c-x2x4q   Failed to create pod sandbox: rpc error: code = Unknown desc = failed to setup network for sandbox "0f46": plugin type="calico" failed (add): failed to request IPv4 addresses: Assigned 0 out of 1 requested IPv4 addresses; No IPs available in pools: [10.244.0.0/16]',
        source:
          'constructed from projectcalico/calico@87c15906:cni-plugin/pkg/ipamplugin/ipam_plugin.go "failed to request IPv4 addresses: %w", "No IPs available in pools: %v"',
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
        line: '2025-02-11T22:01:13.354272898Z time="2025-02-11T22:01:13.354109908Z" level=warning msg="Unable to assign additional IPs to interface, will create new interface" error="operation error EC2: AssignPrivateIpAddresses, https response error StatusCode: 400, RequestID: b7b61722-dd3e-4965-ab39-774116e02869, api error PrivateIpAddressLimitExceeded: Number of private addresses will exceed limit." instanceID=i-085c7a3814c3baae3 ipsToAllocate=2 name=ip-192-168-112-204.ec2.internal selectedInterface=eni-00de2626cb8f3ad4a subsys=ipam',
        source:
          'https://github.com/cilium/cilium/issues/36428 (train-285, Cilium operator moves to a new ENI: healthy)',
      },
      {
        line: '{"level":"info","ts":"2024-10-10T21:51:35.002Z","caller":"rpc/rpc.pb.go:863","msg":"Send AddNetworkReply: IPv4Addr: 172.21.149.56, IPv6Addr: , DeviceNumber: -1, err: <nil>"}',
        source: 'https://github.com/aws/amazon-vpc-cni-k8s/issues/3066 (train-286)',
      },
      {
        line: '{"level":"debug","ts":"2023-01-11T19:31:26.402Z","caller":"datastore/data_store.go:1113","msg":"ENI eni-003a47755f6c05b58 cannot be deleted because it has pods assigned"}',
        source: 'https://github.com/aws/amazon-vpc-cni-k8s/issues/2203 (train-288)',
      },
      {
        line: '{"level":"info","ts":"2024-10-10T21:51:34.301Z","caller":"rpc/rpc.pb.go:863","msg":"Send AddNetworkReply: failed to get Branch ENI resource"}',
        source: 'https://github.com/aws/amazon-vpc-cni-k8s/issues/3066 (train-296)',
      },
      {
        line: 'level=info msg="Created new ENI" addresses=6 eniID=eni-087bf941f13a906b1 instanceID=i-0755cbd97a38da9a5 name=ip-192-168-29-106.us-east-2.compute.internal securityGroups="[sg-08a08bb4b97db796a sg-05c46fb3442db275a]" subnetID=subnet-0f0a07177f248bafb subsys=eni',
        source: 'https://github.com/cilium/cilium/issues/9730 (train-302)',
      },
      {
        line: '2018-02-27T13:58:33Z [INFO] Created a new eni: eni-a7b80f83',
        source: 'https://github.com/aws/amazon-vpc-cni-k8s/issues/36 (train-313)',
      },
      {
        line: '{"level":"DEBUG","time":"2024-05-14T09:58:55.080Z","logger":"controller.disruption","message":"discovered subnets","commit":"fb4d75f","subnets":["subnet-05d32764d86645112 (eu-central-1b)","subnet-04e892f4c7dc778f6 (eu-central-1a)","subnet-08a50cd900b173056 (eu-central-1c)"]}',
        source:
          'https://github.com/kubernetes-sigs/karpenter/issues/1256 (test/fixtures/karpenter-samples.jsonl ref-059)',
      },
    ],
  },
});
