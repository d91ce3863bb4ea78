import { DOCS } from '../advice/docs-links';
import { anyOf, defineRule } from './types';

export default defineRule({
  info: {
    id: 'volume-zone-conflict',
    title: 'Pods are pinned to a zone by their volume',
    severity: 'medium',
    source: 'beyond',
    family: 'storage',
    emittedBy: 'logs',
    recognises: 'volume node affinity conflict, zone DoesNotExist caused by a zonal PersistentVolume',
    keyEntity: 'workloads',
  },
  recognition: {
    clauses: anyOf('volume node affinity conflict', 'zone doesnotexist not in', 'volume node affinity'),
    schedulingReason: true,
  },
  diagnose: (f) => {
    const w = f.workload();
    return {
      diagnosis:
        `Pods${f.where('workloads', 'of')} use a volume bound to one Availability Zone, but the nodes (or NodePools) ` +
        `that could take them are in other zones. An EBS volume can only attach in its own zone.`,
      remediation: [
        {
          title: 'See the zone of the volume',
          detail: 'The PersistentVolume node affinity names the zone.',
          commands: [
            `kubectl -n ${w.namespace} get pvc`,
            `kubectl get pv ${f.first('volumes', '<pv-name>')} -o jsonpath='{.spec.nodeAffinity}'`,
          ],
        },
        {
          title: 'Allow that zone in a NodePool, and bind new volumes late',
          detail:
            'Use volumeBindingMode: WaitForFirstConsumer in the StorageClass so new volumes are created where the pod lands.',
          commands: ['kubectl get storageclass -o custom-columns=NAME:.metadata.name,BINDING:.volumeBindingMode'],
        },
      ],
      docs: [DOCS.karpenterScheduling, DOCS.ebsCsi],
    };
  },
  examples: {
    fires: [
      {
        line: '0/3 nodes are available: 3 node(s) had volume node affinity conflict.',
        source: "constructed from kube-scheduler's VolumeBinding reason 'node(s) had volume node affinity conflict'",
      },
      {
        line: "Warning  FailedScheduling  2m28s (x8 over 9m3s)  default-scheduler  0/6 nodes are available: 1 node(s) had volume node affinity conflict, 2 node(s) didn't match Pod's node affinity/selector, 3 Insufficient cpu.",
        source: 'https://github.com/aws/karpenter-provider-aws/issues/2971 (shared samples ref-036)',
      },
    ],
    silent: [
      {
        line: ' Normal   Nominated         3m44s                karpenter          Pod should schedule on: nodeclaim/default-zlp9c',
        source: 'https://github.com/aws/karpenter-provider-aws/issues/5463 (shared samples ref-045)',
      },
    ],
  },
});
