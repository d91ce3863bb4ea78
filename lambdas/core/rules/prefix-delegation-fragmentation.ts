import { DOCS } from '../advice/docs-links';
import { anyOf, defineRule } from './types';

export default defineRule({
  info: {
    id: 'prefix-delegation-fragmentation',
    title: 'Subnets have free IPs but no free /28 prefix',
    severity: 'high',
    source: 'beyond',
    family: 'network',
    emittedBy: 'logs',
    recognises: 'InsufficientCidrBlocks: free addresses exist but no contiguous /28 for prefix delegation',
  },
  recognition: {
    clauses: anyOf('insufficientcidrblocks', 'insufficient cidr blocks', 'not enough free cidr blocks'),
    refinesCapacityWrapper: true,
  },
  diagnose: (f) => ({
    diagnosis:
      `With prefix delegation, the VPC CNI needs free contiguous /28 blocks, and subnets${f.where('subnets', '')} ` +
      `have none left even though single IPs are free. AvailableIpAddressCount is not proof of capacity here.`,
    remediation: [
      {
        title: 'Reserve prefix space in the subnets, or add subnets',
        detail: 'A subnet CIDR reservation of type prefix keeps a range for /28 prefixes.',
        commands: [
          `aws ec2 create-subnet-cidr-reservation --subnet-id ${f.first('subnets', '<subnet-id>')} --cidr <reserved-cidr> --reservation-type prefix${f.region}`,
        ],
        action: 'plan-subnet-capacity',
      },
    ],
    docs: [DOCS.prefixDelegation, DOCS.vpcCidrs],
  }),
  examples: {
    fires: [
      {
        line: 'InsufficientCidrBlocks: The specified subnet does not have enough free cidr blocks to satisfy the request.',
        source:
          'constructed from the EC2 error code InsufficientCidrBlocks and its message (AssignPrivateIpAddresses with prefixes)',
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
