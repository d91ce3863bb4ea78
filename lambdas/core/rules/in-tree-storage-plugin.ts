import { DOCS } from '../advice/docs-links';
import { anyOf, defineRule } from './types';

export default defineRule({
  info: {
    id: 'in-tree-storage-plugin',
    title: 'PersistentVolume uses an in-tree storage plugin Karpenter does not support',
    severity: 'medium',
    source: 3,
    family: 'storage',
    emittedBy: 'logs',
    recognises: '"uses an in-tree storage plugin which is unsupported by Karpenter"',
  },
  recognition: {
    clauses: anyOf('in-tree storage plugin', 'in-tree volume plugin'),
  },
  diagnose: (f) => ({
    diagnosis:
      `A PersistentVolume${f.where('volumes', '')} uses an in-tree storage plugin (such as AWSElasticBlockStore). ` +
      `Karpenter does not support in-tree plugins, so it cannot learn the node's volume attach limits and scale-ups may fail.`,
    remediation: [
      {
        title: 'Find the PersistentVolumes that use the in-tree plugin',
        detail: 'Volumes with awsElasticBlockStore set and no csi driver are in-tree.',
        commands: [
          'kubectl get pv -o custom-columns=NAME:.metadata.name,IN-TREE:.spec.awsElasticBlockStore.volumeID,CSI:.spec.csi.driver',
        ],
      },
      {
        title: 'Install the EBS CSI driver and move the volumes to it',
        detail:
          'Create new PersistentVolumes that reference the ebs.csi.aws.com driver (or a StorageClass with provisioner ebs.csi.aws.com) and move the claims to them.',
        commands: [`aws eks create-addon --cluster-name ${f.cluster} --addon-name aws-ebs-csi-driver${f.region}`],
      },
    ],
    docs: [DOCS.ebsCsi, DOCS.karpenterTroubleshooting],
  }),
  examples: {
    fires: [
      {
        line: "ERROR controller.node_state PersistentVolume source 'AWSElasticBlockStore' uses an in-tree storage plugin which is unsupported by Karpenter and is deprecated by Kubernetes",
        source: 'seed §3 (shared/seed/karpenter-scaling-troubleshooting.es.txt)',
      },
      {
        line: '2023-04-05T23:56:53.363Z        ERROR   controller.node_state   PersistentVolume source \'AWSElasticBlockStore\' uses an in-tree storage plugin which is unsupported by Karpenter and is deprecated by Kubernetes. Scale-ups may fail because Karpenter will not discover driver limits. Use a PersistentVolume that references the \'CSI\' volume source for Karpenter auto-scaling support.       {"commit": "b2af562", "node": "ip-192-168-36-137.us-west-2.compute.internal", "pod": "inflate0-6c4bdb8b75-7qmfd", "volume": "mypd", "persistent-volume": "pvc-11db7489-3c6e-46f3-a958-91f9d5009d41"}',
        source:
          'https://github.com/aws/karpenter-provider-aws/blob/1d927085dd81a9df9301e613f371dac5b4d16bfe/website/content/en/docs/troubleshooting.md (shared samples ref-010)',
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
