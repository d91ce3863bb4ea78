import { DOCS } from '../../advice/docs-links';
import { shellArg } from '../../advice/shell';
import type { SubnetFacts } from '../../findings/context';
import { anyOf, defineRule } from './types';

/** Addresses of one /28 prefix. */
const PREFIX_SIZE = 16;

/**
 * The free room of the failing subnets, from the live facts: a subnet with N free addresses holds at
 * most N/16 free /28 blocks, and only if they were aligned and contiguous. EC2 does not report free
 * /28 blocks, so their number is never stated as known.
 */
function prefixRoom(named: string[], facts: SubnetFacts[]): string {
  const known = (named.length ? facts.filter((s) => named.includes(s.subnetId)) : facts).filter(
    (s) => s.availableIps !== undefined,
  );
  const unknown = named.filter((id) => !known.some((s) => s.subnetId === id));
  const parts = known.slice(0, 6).map((s) => {
    const free = s.availableIps!;
    const where = `${s.subnetId}${s.availabilityZone ? ` (${s.availabilityZone})` : ''}`;
    const room =
      free < PREFIX_SIZE
        ? 'fewer than one /28 holds, so it is out of addresses, not only fragmented'
        : `room for at most ${Math.floor(free / PREFIX_SIZE)} /28 blocks had they been contiguous`;
    return `${where} has ${free}${s.totalIps ? ` of ${s.totalIps}` : ''} addresses free, ${room}`;
  });
  const unknownText =
    unknown.length || parts.length === 0
      ? `the free addresses of ${unknown.length ? unknown.join(', ') : 'the subnets'} are unknown (no live subnet facts): read them below`
      : '';
  return `${[...parts, unknownText].filter(Boolean).join('; ')}. The number of free /28 blocks left is unknown: EC2 reports only that there are fewer than the request needed.`;
}

export default defineRule({
  info: {
    id: 'prefix-delegation-fragmentation',
    title: 'Subnets have free IPs but no free /28 prefix',
    shortTitle: 'no free /28 prefix',
    severity: 'high',
    source: 'beyond',
    family: 'network',
    emittedBy: 'logs',
    recognises: 'InsufficientCidrBlocks: free addresses exist but no contiguous /28 for prefix delegation',
  },
  enrichment: ['subnets'],
  escalatesOn: 'subnets',
  filterTerms: ['InsufficientCidrBlocks'],
  recognition: {
    // `InsufficientCidrBlocks` (EC2) and ipamd's "Recently we had InsufficientCidr error" back-off.
    clauses: anyOf('insufficientcidr', 'insufficient cidr blocks', 'not enough free cidr blocks'),
    // Free addresses scattered so no /28 prefix fits is the specific cause of that subnet's shortage.
    supersedes: ['subnet-ip-exhaustion', 'node-not-ready'],
    refinesCapacityWrapper: true,
  },
  diagnose: (f) => {
    const subnets = f.all('subnets');
    const subnetIds = subnets.length ? subnets.map(shellArg).join(' ') : '<subnet-id>';
    return {
      diagnosis:
        `With prefix delegation, the VPC CNI assigns pod addresses in aligned /28 blocks (16 contiguous addresses), and EC2 ` +
        `found too few free /28 blocks in ${subnets.length > 1 ? 'subnets' : 'subnet'} ${subnets.length ? f.list('subnets') : 'of the node'}` +
        `: ${prefixRoom(subnets, f.context.subnets ?? [])} AvailableIpAddressCount is not proof of capacity here: ` +
        'single addresses of nodes and secondary IPs scattered through the range leave free addresses but no whole /28.',
      remediation: [
        {
          title: 'See the free addresses, the prefixes in use and the reservations of the subnets',
          detail:
            'EC2 reports free addresses, not free /28 blocks: the prefixes the ENIs hold and the existing reservations show how the range is split.',
          commands: [
            `aws ec2 describe-subnets --subnet-ids ${subnetIds} --query 'Subnets[].{Subnet:SubnetId,AZ:AvailabilityZone,Free:AvailableIpAddressCount,Cidr:CidrBlock}' --output table${f.region}`,
            `aws ec2 describe-network-interfaces --filters Name=subnet-id,Values=${subnets.length ? shellArg(subnets[0]!) : '<subnet-id>'} --query 'NetworkInterfaces[].{Eni:NetworkInterfaceId,Ip:PrivateIpAddress,Prefixes:Ipv4Prefixes[].Ipv4Prefix}'${f.region}`,
            `aws ec2 get-subnet-cidr-reservations --subnet-id ${f.first('subnets', '<subnet-id>')}${f.region}`,
          ],
        },
        {
          title: 'Reserve prefix space in the subnets, or add subnets',
          detail:
            'A subnet CIDR reservation of type prefix keeps a range for /28 prefixes only: EC2 then places single addresses elsewhere. ' +
            'The reserved CIDR must hold no address in use yet (pick it from the describe-network-interfaces output), so in a fragmented subnet it helps the next nodes, not the current ones; ' +
            'a new subnet per zone, reserved for prefixes from the start and tagged for Karpenter discovery, gives room now.',
          commands: [
            `aws ec2 create-subnet-cidr-reservation --subnet-id ${f.first('subnets', '<subnet-id>')} --cidr <reserved-cidr> --reservation-type prefix${f.region}`,
          ],
          action: 'plan-subnet-capacity',
        },
      ],
      docs: [DOCS.prefixDelegation, DOCS.vpcCidrs],
    };
  },
  examples: {
    fires: [
      {
        line: '{"level":"warn","ts":"2025-02-02T03:56:02.811Z","caller":"ipamd/ipamd.go:1021","msg":"Recently we had InsufficientCidr error hence will wait for 2m0s before retrying"}',
        source:
          'constructed from aws/amazon-vpc-cni-k8s@b5218838:pkg/ipamd/ipamd.go "Recently we had InsufficientCidr error hence will wait for %v before retrying"',
      },
      {
        line: 'InsufficientCidrBlocks: The specified subnet does not have enough free cidr blocks to satisfy the request.',
        source:
          'constructed from the EC2 error code InsufficientCidrBlocks and its message (AssignPrivateIpAddresses with prefixes)',
      },
    ],
    silent: [
      {
        line: '{"level":"info","ts":"2024-11-13T05:30:43.235Z","caller":"ipamd/ipamd.go:380","msg":"Prefix Delegation enabled true"}',
        source: 'https://github.com/aws/amazon-vpc-cni-k8s/issues/3112 (train-281)',
      },
      {
        line: '{"level":"DEBUG","time":"2024-05-14T09:58:55.080Z","logger":"controller.disruption","message":"discovered subnets","commit":"fb4d75f","subnets":["subnet-05d32764d86645112 (eu-central-1b)","subnet-04e892f4c7dc778f6 (eu-central-1a)","subnet-08a50cd900b173056 (eu-central-1c)"]}',
        source:
          'https://github.com/kubernetes-sigs/karpenter/issues/1256 (test/fixtures/karpenter-samples.jsonl ref-059)',
      },
    ],
  },
});
