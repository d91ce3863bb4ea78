import { DOCS } from '../advice/docs-links';
import { ec2QuotaFor } from '../advice/quota';
import { anyOf, defineRule } from './types';

export default defineRule({
  info: {
    id: 'ec2-quota-exceeded',
    title: 'An EC2 service quota blocks new instances',
    severity: 'high',
    source: 'beyond',
    family: 'capacity',
    emittedBy: 'logs',
    recognises: 'VcpuLimitExceeded, MaxSpotInstanceCountExceeded, InstanceLimitExceeded',
  },
  recognition: {
    clauses: anyOf(
      'vcpulimitexceeded',
      'maxspotinstancecountexceeded',
      'instancelimitexceeded',
      'networkinterfacelimitexceeded',
      'maxfleetcountexceeded',
      'than your current vcpu limit',
      'max spot instance count exceeded',
    ),
    refinesCapacityWrapper: true,
  },
  diagnose: (f) => {
    const quota = ec2QuotaFor(f.all('quotas')[0], f.all('instanceTypes')[0]);
    const current = f.context.quotas?.find((q) => q.quotaCode === quota.code)?.value;
    return {
      diagnosis:
        `An EC2 service quota${f.where('quotas', '')} stops new instances` +
        `${current !== undefined ? ` (the ${quota.name} quota is ${current} today)` : ''}. Karpenter cannot launch ` +
        `more capacity of this kind in the account and region until the quota is raised or capacity is freed.`,
      remediation: [
        {
          title: 'See the current quota',
          detail: `The quota that applies: ${quota.name}.`,
          commands: [`aws service-quotas get-service-quota --service-code ec2 --quota-code ${quota.code}${f.region}`],
        },
        {
          title: 'Request an increase',
          detail:
            'Ask for enough for the NodePool limits. The request-quota-increase action can file it, up to a configured cap.',
          commands: [
            `aws service-quotas request-service-quota-increase --service-code ec2 --quota-code ${quota.code} --desired-value <new-value>${f.region}`,
          ],
          action: 'request-quota-increase',
        },
      ],
      docs: [DOCS.quotaIncrease, DOCS.launchTroubleshooting],
    };
  },
  examples: {
    fires: [
      {
        line: '{"message":"failed launching nodeclaim","error":"creating instance, insufficient capacity, with fleet error(s), VcpuLimitExceeded: You have requested more vCPU capacity than your current vCPU limit of 64 allows"}',
        source:
          "constructed from Karpenter's fleet error wrapping and the EC2 error code VcpuLimitExceeded with its message",
      },
      {
        line: 'creating instance, insufficient capacity, with fleet error(s), MaxSpotInstanceCountExceeded: Max spot instance count exceeded',
        source: "constructed from Karpenter's fleet error wrapping and the EC2 error code MaxSpotInstanceCountExceeded",
      },
    ],
    silent: [
      {
        line: '2022-01-25T09:50:13.967Z\tDEBUG\tcontroller.provisioning\tDiscovered 328 EC2 instance types\t{"commit": "723b1b7", "provisioner": "default"}',
        source: 'https://github.com/aws/karpenter-provider-aws/issues/1218 (shared samples ref-057)',
      },
    ],
  },
});
