import { DOCS } from '../../advice/docs-links';
import { shellArg } from '../../advice/shell';
import { anyOf, defineRule } from './types';

export default defineRule({
  info: {
    id: 'launch-template-or-ami-error',
    title: 'Launch template or AMI is invalid',
    shortTitle: 'launch template or AMI invalid',
    severity: 'high',
    source: 'beyond',
    family: 'configuration',
    emittedBy: 'logs',
    recognises: 'InvalidLaunchTemplate*, InvalidBlockDeviceMapping, AMI resolution, fleet InvalidParameterValue',
    keyEntity: 'nodepools',
  },
  // The EBS KMS key an instance cannot launch with, as its state-transition reason.
  filterTerms: ['InvalidKMSKey'],
  recognition: {
    clauses: [
      ...anyOf(
        'invalidlaunchtemplate',
        'invalidblockdevicemapping',
        'invalidamiid',
        'invaliduserdata',
        'invalidparametervalue',
        'invalidparametercombination',
        'invalidparameter:',
        'requirements of amis',
        'no amis found',
        'amis not found',
        'ami not found',
        'resolving ami',
        'creating launch template',
        'launch template not found',
        // instance state-transition reasons of an instance that terminates while it launches: the EBS KMS key
        // of the launch template (or the account's default EBS encryption) cannot be used
        'client error on launch',
        'invalidkmskey',
        'client.invalidsnapshot.notfound',
        // the NotFound messages of the launch inputs, as consoles and status reasons show them without the code
        'the specified launch template',
      ),
      ['the image id', 'does not exist'],
      ['the key pair', 'does not exist'],
    ],
    // ec2:CreateLaunchTemplate refused the rendered user data in the EC2NodeClass dry run (Karpenter v1.3+)
    conditions: [{ type: 'validationsucceeded', reasons: ['userdatasizelimitexceeded'] }],
    refinesCapacityWrapper: true,
  },
  diagnose: (f) => {
    const nodeclass = f.first('nodeclasses', '<ec2nodeclass-name>');
    const amis = f.all('amis');
    return {
      diagnosis:
        `EC2 rejected the launch configuration${f.where('errorCodes', ':')}${amis.length ? ` (AMIs ${f.list('amis')})` : ''}. ` +
        `The EC2NodeClass resolves to an AMI, block device mapping or user data that does not fit the instance types ` +
        `(for example an arm64 AMI for amd64 types), or that no longer exists.`,
      remediation: [
        {
          title: 'Read the EC2NodeClass status',
          detail: 'Its conditions and status.amis show what was resolved.',
          commands: [`kubectl describe ec2nodeclass ${nodeclass}`],
        },
        {
          title: 'Check the AMIs against the NodePool architecture',
          detail: 'The AMI architecture must match the kubernetes.io/arch requirement of the NodePool.',
          commands: [
            `aws ec2 describe-images --image-ids ${amis.length ? amis.map(shellArg).join(' ') : '<ami-id>'} --query 'Images[].{Id:ImageId,Arch:Architecture,State:State,Name:Name}' --output table${f.region}`,
          ],
        },
      ],
      docs: [DOCS.karpenterNodeClasses, DOCS.launchTroubleshooting],
    };
  },
  examples: {
    fires: [
      {
        line: "Launching a new EC2 instance. Status Reason: The image id '[ami-0a1b2c3d4e5f67890]' does not exist. Launching EC2 instance failed.",
        source: "constructed from EC2's InvalidAMIID.NotFound message in an Auto Scaling status reason",
      },
      {
        line: 'State transition reason message: Client.InternalError: Client error on launch',
        source: 'https://github.com/aws/karpenter-provider-aws/issues/1407 (real-lines-train train-177)',
      },
      {
        line: 'State transition reason: Client.InvalidKMSKey.InvalidState: The KMS key provided is in an incorrect state',
        source: 'constructed from the EC2 StateReason of an instance whose EBS KMS key is disabled or pending deletion',
      },
      {
        line: '{"hostname":"ip-10-1-2-3.us-east-2.compute.internal","systemd_unit":"nodeadm-run.service","message":"StateReason: {Code: Client.InternalError, Message: Client.InternalError: Client error on launch}"}',
        source:
          "constructed from aws ec2 describe-instances --query Reservations[].Instances[].StateReason (the EBS KMS key Karpenter's role cannot use)",
      },

      {
        line: '{"level":"ERROR","message":"failed launching nodeclaim","error":"creating instance, with fleet error(s), InvalidParameter: Security group sg-0123456789abcdef0 and subnet subnet-0123456789abcdef0 belong to different networks."}',
        source: "constructed from Karpenter's 'with fleet error(s), %s' and the EC2 error code InvalidParameter",
      },
      {
        line: '{"level":"ERROR","time":"2024-02-21T05:57:39.964Z","logger":"controller","message":"Reconciler error","commit":"17d6c05","controller":"nodeclaim.lifecycle","controllerGroup":"karpenter.sh","controllerKind":"NodeClaim","NodeClaim":{"name":"standard-instance-store-x6wxs"},"namespace":"","name":"standard-instance-store-x6wxs","reconcileID":"ea2d9f2d-b7a9-4061-b65f-c1721321ee0c","error":"launching nodeclaim, creating instance, getting launch template configs, getting launch templates, no instance types satisfy requirements of amis ami-0f58878e44a8ebf11, ami-007e086d128149684, ami-007e086d128149684"}',
        source:
          'https://github.com/aws/karpenter-provider-aws/issues/5706 (test/fixtures/karpenter-samples.jsonl ref-001)',
      },
    ],
    silent: [
      {
        line: '2023-02-13T10:21:45.363Z        DEBUG   controller.provisioner.cloudprovider    discovered new ami      {"commit": "8c27519-dirty", "provisioner": "spot", "ami": "ami-06bf8e441ff8de6c6", "query": "/aws/service/eks/optimized-ami/1.24/amazon-linux-2/recommended/image_id"}',
        source:
          'https://github.com/aws/karpenter-provider-aws/issues/3390 (test/fixtures/karpenter-samples.jsonl ref-071)',
      },
      {
        line: '  Normal  AMIsReady             38s   karpenter  Status condition transitioned, Type: AMIsReady, Status: True -> Unknown, Reason: AwaitingReconciliation, Message: object is awaiting reconciliation',
        source:
          'https://github.com/aws/karpenter-provider-aws/issues/7436 (test/fixtures/karpenter-samples.jsonl ref-054)',
      },
    ],
  },
});
