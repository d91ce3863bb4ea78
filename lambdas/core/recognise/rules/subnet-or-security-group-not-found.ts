import { DOCS } from '../../advice/docs-links';
import { shellArg } from '../../advice/shell';
import { anyOf, defineRule } from './types';

export default defineRule({
  info: {
    id: 'subnet-or-security-group-not-found',
    title: 'EC2NodeClass selects no subnets or security groups',
    shortTitle: 'no subnets or SGs selected',
    severity: 'critical',
    source: 'beyond',
    family: 'network',
    emittedBy: 'logs',
    recognises: '"no subnets found", "no subnets matched selector", "no security groups exist given constraints"',
    keyEntity: 'nodeclasses',
  },
  escalatesOn: 'nodeclasses',
  recognition: {
    clauses: anyOf(
      'no subnets found',
      'no subnets matched',
      'no subnets exist',
      'no security groups exist',
      'no security groups found',
      'no security groups matched',
      'invalidsubnetid',
      'invalidsubnet.notfound',
      'invalidgroup.notfound',
      'invalidsecuritygroupid',
    ),
    conditions: [{ type: 'subnetsready' }, { type: 'securitygroupsready' }],
  },
  diagnose: (f) => {
    const tag = f.all('tags')[0];
    const [tagKey, tagValue] = tag
      ? [tag.slice(0, tag.indexOf(':')), tag.slice(tag.indexOf(':') + 1)]
      : ['karpenter.sh/discovery', f.input.cluster];
    return {
      diagnosis:
        `The EC2NodeClass${f.where('nodeclasses', '')} selects no subnets or no security groups` +
        `${tag ? ` (selector ${tag})` : ''}, so Karpenter has nowhere to launch. The discovery tags are missing or do not match.`,
      remediation: [
        {
          title: 'See what the selector finds',
          detail: 'Both lists must be non-empty.',
          commands: [
            `aws ec2 describe-subnets --filters Name=tag:${shellArg(tagKey)},Values=${shellArg(tagValue)} --query 'Subnets[].{Subnet:SubnetId,AZ:AvailabilityZone,Free:AvailableIpAddressCount}' --output table${f.region}`,
            `aws ec2 describe-security-groups --filters Name=tag:${shellArg(tagKey)},Values=${shellArg(tagValue)} --query 'SecurityGroups[].GroupId'${f.region}`,
          ],
        },
        {
          title: 'Tag the cluster subnets and node security group',
          detail:
            'Or change subnetSelectorTerms / securityGroupSelectorTerms of the EC2NodeClass to match existing tags.',
          commands: [
            `aws ec2 create-tags --resources <subnet-id> <security-group-id> --tags Key=${shellArg(tagKey)},Value=${shellArg(tagValue)}${f.region}`,
          ],
        },
      ],
      docs: [DOCS.karpenterNodeClasses],
    };
  },
  examples: {
    fires: [
      {
        line: '{"level":"ERROR","message":"Reconciler error","error":"no subnets found"}',
        source:
          "constructed from Karpenter's subnet provider error 'no subnets found' inside a controller-runtime 'Reconciler error'",
      },
      {
        line: '{"involvedObject":{"kind":"EC2NodeClass","name":"default"},"reason":"SubnetsReady","message":"Status condition transitioned, Type: SubnetsReady, Status: True -> False"}',
        source:
          "constructed from Karpenter v1's status condition event template 'Status condition transitioned, Type: %s, Status: %s -> %s, Reason: %s'",
      },
      {
        line: '2022-02-16T17:58:09.522Z        ERROR   controller.controller.provisioning      Reconciler error        {"commit": "3d0d368", "reconciler group": "karpenter.sh", "reconciler kind": "Provisioner", "name": "default", "namespace": "", "error": "no subnets matched selector map[karpenter.sh/discovery:test-karpenter-sa-9]"}',
        source: 'https://github.com/eksctl-io/eksctl/issues/4806 (test/fixtures/karpenter-samples.jsonl ref-032)',
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
