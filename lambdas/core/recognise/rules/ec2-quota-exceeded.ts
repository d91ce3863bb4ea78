import type { RemediationStep } from '../../advice/types';
import { planQuota, UNVERIFIED_QUOTA_CODES } from '../../advice/quota-family';
import { DOCS } from '../../advice/docs-links';
import { anyOf, defineRule } from './types';

export default defineRule({
  info: {
    id: 'ec2-quota-exceeded',
    title: 'An EC2 service quota blocks new instances',
    shortTitle: 'EC2 quota blocks launches',
    severity: 'high',
    source: 'beyond',
    family: 'capacity',
    emittedBy: 'logs',
    recognises: 'VcpuLimitExceeded, MaxSpotInstanceCountExceeded, InstanceLimitExceeded',
  },
  enrichment: ['quota'],
  actions: ['request-quota-increase'],
  escalatesOn: 'quotas',
  filterTerms: ['VcpuLimitExceeded'],
  recognition: {
    clauses: anyOf(
      'vcpulimitexceeded',
      'maxspotinstancecountexceeded',
      'instancelimitexceeded',
      'networkinterfacelimitexceeded',
      'maxfleetcountexceeded',
      'than your current vcpu limit',
      'max spot instance count exceeded',
      // EC2's message text without its code (InstanceLimitExceeded, VcpuLimitExceeded), as in Auto Scaling
      // status reasons: "You have requested more instances (%d) than your current instance limit of %d allows"
      'than your current instance limit',
      'you have requested more vcpu capacity',
      'your quota allows for',
      // VolumeLimitExceeded's message (a regional EBS storage quota): "You have exceeded your maximum gp3 storage limit"
      'you have exceeded your maximum',
    ),
    refinesCapacityWrapper: true,
  },
  diagnose: (f) => {
    const plan = planQuota({
      codes: [...f.all('quotas'), ...f.all('errorCodes')],
      instanceTypes: f.all('instanceTypes'),
      capacityTypes: f.all('capacityTypes'),
      texts: f.evidence,
    });
    const kind = plan.spot ? 'Spot' : 'On-Demand';
    const live = (code: string) => f.context.quotas?.find((q) => q.quotaCode === code)?.value;
    const stated = plan.limit !== undefined ? ` EC2 stated the current limit: ${plan.limit} vCPUs.` : '';
    const pool = f.first('nodepools', '<nodepool-name>');
    const which =
      plan.quotas.length > 0
        ? ` The instance types ${f.list('instanceTypes')} count against ` +
          plan.quotas
            .map((q) => `${q.name} (${q.code}${live(q.code) !== undefined ? `, ${live(q.code)} today` : ''})`)
            .join(' and ') +
          '.'
        : ' The error does not say which quota: EC2 counts vCPUs per instance bucket (Standard, G and VT, P, Inf, Trn, X, F, DL, HPC), so it depends on the instance types the NodePool launches. Read them before asking for an increase.';
    const steps: RemediationStep[] =
      plan.quotas.length > 0
        ? plan.quotas.flatMap((q): RemediationStep[] => [
            {
              title: `Do this now: read the ${q.name} quota`,
              detail:
                `Quota ${q.code} (${kind}). The value is in vCPUs${plan.spot ? ' of open and running Spot requests' : ' of running instances'}.` +
                (UNVERIFIED_QUOTA_CODES.has(q.code)
                  ? ` This code is not verified against the Service Quotas list: check that the name printed is "${q.name}" before asking for an increase.`
                  : ''),
              commands: [`aws service-quotas get-service-quota --service-code ec2 --quota-code ${q.code}${f.region}`],
            },
            {
              title: `Request an increase of ${q.name}`,
              detail:
                `Ask for the vCPUs the NodePool's spec.limits.cpu allows on top of what already runs${plan.limit !== undefined ? ` (today's limit is ${plan.limit})` : ''}. ` +
                'The request-quota-increase action can file it, up to a configured cap.',
              commands: [
                `aws service-quotas request-service-quota-increase --service-code ec2 --quota-code ${q.code} --desired-value <new-value>${f.region}`,
              ],
              action: 'request-quota-increase',
            },
          ])
        : [
            {
              title: 'Do this now: find which instance types the NodePool launches, then the quota of their bucket',
              detail:
                'G and VT: L-DB2E81BA; P: L-417A185B; Inf: L-1945791B; Trn: L-2C3B7624; X: L-7295265B; F: L-74FC7D96; DL: L-6E869C2A; HPC: L-F7808C92; Standard (A, C, D, H, I, M, R, T, Z): L-1216C47A (On-Demand; Spot request quotas are named "All … Spot Instance Requests"). No quota is filled in, so no increase is filed for a guessed one.',
              commands: [
                `kubectl get nodepool ${pool} -o jsonpath='{.spec.template.spec.requirements}'`,
                'kubectl get nodeclaims -L node.kubernetes.io/instance-type,karpenter.sh/nodepool,karpenter.sh/capacity-type',
                `aws service-quotas list-service-quotas --service-code ec2 --query "Quotas[?contains(QuotaName, '${kind}')].[QuotaCode,QuotaName,Value]" --output table${f.region}`,
              ],
            },
          ];
    return {
      diagnosis:
        `EC2 refused to launch ${kind} capacity${f.where('nodepools', 'for NodePool')}: the account's ${kind} quota for the instance bucket is used up.${stated}${which} ` +
        `Karpenter cannot launch more of this kind in the account and region until the quota is raised or capacity is freed.`,
      remediation: steps,
      docs: [DOCS.quotaIncrease, DOCS.launchTroubleshooting],
    };
  },
  examples: {
    fires: [
      {
        line: '"Description": "Launching a new EC2 instance.  Status Reason: You have requested more instances (7) than your current instance limit of 6 allows for the specified instance type. Please visit http://aws.amazon.com/contact-us/ec2-request to request an adjustment to this limit. Launching EC2 instance failed.",',
        source: 'https://github.com/kubernetes/autoscaler/issues/1263 (real-lines-train train-250)',
      },
      {
        line: 'Launching a new EC2 instance: i-0a1b2c3d4e5f67890. Status Reason: You have requested more vCPU capacity than your current vCPU limit of 64 allows for the instance bucket that the specified instance type belongs to. Please visit http://aws.amazon.com/contact-us/ec2-request to request an adjustment to this limit. Launching EC2 instance failed.',
        source: "constructed from EC2's VcpuLimitExceeded message in an Auto Scaling status reason",
      },
      {
        line: '{"level":"ERROR","time":"2025-05-06T07:08:09.101Z","logger":"controller","message":"failed launching nodeclaim","commit":"a1b2c3d","error":"creating instance, with fleet error(s), InstanceLimitExceeded: Your quota allows for 0 more running instance(s). You requested at least 1"}',
        source: "constructed from EC2's InstanceLimitExceeded message in a Karpenter fleet error",
      },

      {
        line: '{"message":"failed launching nodeclaim","error":"creating instance, insufficient capacity, with fleet error(s), VcpuLimitExceeded: You have requested more vCPU capacity than your current vCPU limit of 64 allows"}',
        source:
          "constructed from Karpenter's fleet error wrapping and the EC2 error code VcpuLimitExceeded with its message",
      },
      {
        line: 'creating instance, insufficient capacity, with fleet error(s), MaxSpotInstanceCountExceeded: Max spot instance count exceeded',
        source: "constructed from Karpenter's fleet error wrapping and the EC2 error code MaxSpotInstanceCountExceeded",
      },
      {
        line: '{"level":"ERROR","time":"2024-08-20T09:59:06.590Z","logger":"controller","message":"failed launching nodeclaim","controller":"nodeclaim.lifecycle","NodeClaim":{"name":"gpu-hmqzq"},"error":"creating instance, insufficient capacity, with fleet error(s), VcpuLimitExceeded: You have requested more vCPU capacity than your current vCPU limit of 64 allows for the instance bucket that the specified instance type belongs to. Please visit http://aws.amazon.com/contact-us/ec2-request to request an adjustment to this limit.; InsufficientInstanceCapacity: We currently do not have sufficient g5.12xlarge capacity in the Availability Zone you requested (us-west-2a)."}',
        source:
          "constructed from Karpenter's fleet error wrapping, which joins each distinct fleet error as `code: message` with `; ` (the quota's message names no type, the capacity one does)",
      },
    ],
    silent: [
      {
        line: '2022-01-25T09:50:13.967Z\tDEBUG\tcontroller.provisioning\tDiscovered 328 EC2 instance types\t{"commit": "723b1b7", "provisioner": "default"}',
        source:
          'https://github.com/aws/karpenter-provider-aws/issues/1218 (test/fixtures/karpenter-samples.jsonl ref-057)',
      },
    ],
  },
});
