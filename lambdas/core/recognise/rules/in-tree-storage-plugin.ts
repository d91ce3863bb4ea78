import { DOCS } from '../../advice/docs-links';
import { shellArg } from '../../advice/shell';
import { anyOf, defineRule, seedSection } from './types';

export default defineRule({
  info: {
    id: 'in-tree-storage-plugin',
    title: 'PersistentVolume uses an in-tree storage plugin Karpenter does not support',
    shortTitle: 'in-tree storage plugin',
    severity: 'medium',
    source: 3,
    family: 'storage',
    emittedBy: 'logs',
    recognises: '"uses an in-tree storage plugin which is unsupported by Karpenter"',
  },
  recognition: {
    clauses: anyOf('in-tree storage plugin', 'in-tree volume plugin'),
  },
  diagnose: (f) => {
    const storageClass = f.all('storageClasses')[0];
    // Karpenter names the CSI driver to use: "… referencing the CSI driver plugin name 'ebs.csi.aws.com'".
    const driver =
      f.evidence.map((line) => /\bCSI driver plugin name '([a-z0-9.-]{1,100})'/.exec(line)?.[1]).find(Boolean) ??
      'ebs.csi.aws.com';
    const object = storageClass
      ? `StorageClass ${storageClass} provisions with an in-tree storage plugin (a .spec.provisioner such as kubernetes.io/aws-ebs)`
      : `A PersistentVolume${f.where('volumes', '')} uses an in-tree storage plugin (such as AWSElasticBlockStore)`;
    return {
      diagnosis:
        `${object}. ` +
        `Karpenter does not support in-tree plugins, so it cannot learn the node's volume attach limits and scale-ups may fail.`,
      remediation: [
        ...(storageClass
          ? [
              {
                title: `Do this now: give new claims a StorageClass with provisioner ${driver}`,
                detail:
                  `A StorageClass's provisioner cannot be changed: create a new class from ${storageClass} (same parameters and volumeBindingMode, ` +
                  `provisioner ${driver}, type gp3 if you like), make it the default, and point the claims' storageClassName at it. ` +
                  `Existing volumes keep working; the PersistentVolumes the old class made are moved as below.`,
                commands: [
                  `kubectl get storageclass ${shellArg(storageClass)} -o yaml`,
                  `kubectl patch storageclass ${shellArg(storageClass)} -p '{"metadata":{"annotations":{"storageclass.kubernetes.io/is-default-class":"false"}}}'`,
                ],
              },
            ]
          : []),
        {
          title: 'Do this now: find the PersistentVolumes that use the in-tree plugin',
          detail:
            'Volumes with awsElasticBlockStore set and no csi driver are in-tree; the reclaim policy says whether deleting the PV deletes the EBS volume.',
          commands: [
            'kubectl get pv -o custom-columns=NAME:.metadata.name,IN-TREE:.spec.awsElasticBlockStore.volumeID,CSI:.spec.csi.driver,RECLAIM:.spec.persistentVolumeReclaimPolicy,CLAIM:.spec.claimRef.name',
            'kubectl get storageclass -o custom-columns=NAME:.metadata.name,PROVISIONER:.provisioner,BINDING:.volumeBindingMode',
          ],
        },
        {
          title: 'Install the EBS CSI driver with its IAM role',
          detail:
            'The driver calls EC2 to attach volumes: without a role it fails with AccessDenied. Give its controller service account (kube-system/ebs-csi-controller-sa) a role with the AWS managed policy AmazonEBSCSIDriverPolicy, through EKS Pod Identity (as below) or IRSA (--service-account-role-arn on the add-on).',
          commands: [
            `aws eks create-addon --cluster-name ${f.cluster} --addon-name aws-ebs-csi-driver --pod-identity-associations serviceAccount=ebs-csi-controller-sa,roleArn=<ebs-csi-role-arn>${f.region}`,
            `aws eks describe-addon --cluster-name ${f.cluster} --addon-name aws-ebs-csi-driver --query 'addon.[status,health.issues]'${f.region}`,
          ],
        },
        {
          title: 'Keep the data: set Retain on each in-tree PV before recreating it',
          detail:
            'With reclaim policy Delete, deleting the PV (or its claim) deletes the EBS volume and its data. Set Retain first, then recreate each PV with spec.csi (driver ebs.csi.aws.com, volumeHandle = the same vol- id, fsType) and the same nodeAffinity zone, and bind the claim to it; new volumes come from a StorageClass with provisioner ebs.csi.aws.com. Pods using the volume must be stopped while it moves.',
          commands: [
            `kubectl patch pv ${f.first('volumes', '<pv-name>')} -p '{"spec":{"persistentVolumeReclaimPolicy":"Retain"}}'`,
          ],
        },
      ],
      docs: [DOCS.ebsCsi, DOCS.karpenterTroubleshooting],
    };
  },
  examples: {
    fires: [
      {
        line: "ERROR controller.node_state PersistentVolume source 'AWSElasticBlockStore' uses an in-tree storage plugin which is unsupported by Karpenter and is deprecated by Kubernetes",
        source: seedSection(3),
      },
      {
        line: '2023-04-05T23:56:53.363Z        ERROR   controller.node_state   PersistentVolume source \'AWSElasticBlockStore\' uses an in-tree storage plugin which is unsupported by Karpenter and is deprecated by Kubernetes. Scale-ups may fail because Karpenter will not discover driver limits. Use a PersistentVolume that references the \'CSI\' volume source for Karpenter auto-scaling support.       {"commit": "b2af562", "node": "ip-192-168-36-137.us-west-2.compute.internal", "pod": "inflate0-6c4bdb8b75-7qmfd", "volume": "mypd", "persistent-volume": "pvc-11db7489-3c6e-46f3-a958-91f9d5009d41"}',
        source:
          'https://github.com/aws/karpenter-provider-aws/blob/1d927085dd81a9df9301e613f371dac5b4d16bfe/website/content/en/docs/troubleshooting.md (test/fixtures/karpenter-samples.jsonl ref-010)',
      },
      {
        line: '2023-06-14T09:12:41.118Z\tERROR\tcontroller.provisioner\tStorageClass .spec.provisioner uses an in-tree storage plugin which is unsupported by Karpenter and is deprecated by Kubernetes. Scale-ups may fail because Karpenter will not discover driver limits. Create a new StorageClass with a .spec.provisioner referencing the CSI driver plugin name \'ebs.csi.aws.com\'.\t{"commit": "d7e22b1", "pod": "data/postgres-0", "volume": "data", "storage-class": "gp2", "provisioner": "kubernetes.io/aws-ebs"}',
        source:
          'constructed from kubernetes-sigs/karpenter@v0.28.0:pkg/scheduling/volumeusage.go (With("storage-class", sc.Name, "provisioner", sc.Provisioner).Errorf("StorageClass .spec.provisioner uses an in-tree storage plugin …"))',
      },
    ],
    silent: [
      {
        line: 'Normal  ProvisioningSucceeded  persistentvolumeclaim/data-db-0  ebs.csi.aws.com  Successfully provisioned volume pvc-1',
        source:
          "constructed from external-provisioner's ProvisioningSucceeded event 'Successfully provisioned volume %s'",
      },
    ],
  },
});
