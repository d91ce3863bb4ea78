import { DOCS } from '../../advice/docs-links';
import { describeRequirement, requirementConflicts } from '../../advice/scheduling-evidence';
import { anyOf, defineRule } from './types';

const ZONE_KEY = 'topology.kubernetes.io/zone';

export default defineRule({
  info: {
    id: 'volume-zone-conflict',
    title: 'Pods are pinned to a zone by their volume',
    shortTitle: 'pods pinned by volume zone',
    severity: 'medium',
    source: 'beyond',
    family: 'storage',
    emittedBy: 'logs',
    recognises: 'volume node affinity conflict, zone DoesNotExist caused by a zonal PersistentVolume',
    keyEntity: 'workloads',
  },
  perWorkloadCause: null,
  resolvedByPlacement: true,
  scheduling: { leadRank: 5, asCause: () => "the pods' volumes are bound to another zone" },
  recognition: {
    clauses: anyOf('volume node affinity conflict', 'zone doesnotexist not in', 'volume node affinity'),
    schedulingReason: true,
  },
  diagnose: (f) => {
    const w = f.workload();
    const zone = requirementConflicts(f.evidence).find((c) => c.key === ZONE_KEY);
    const zones = f.all('zones');
    const cause = zone
      ? `the pod wants ${describeRequirement(zone.pod)} (its volume's zone), ${zone.nodepoolName ? `NodePool ${zone.nodepoolName}` : 'the NodePool'} offers ${describeRequirement(zone.nodepool)}`
      : zones.length
        ? `the volume is in ${f.list('zones')}, and no node or NodePool that could take the pod is there`
        : 'the volume is bound to one zone, and the nodes or NodePools that could take the pod are in others';
    return {
      diagnosis: `Pods${f.where('workloads', 'of')} cannot be placed: ${cause}. An EBS volume attaches only in its own Availability Zone.`,
      remediation: [
        {
          title: "Do this now: read the volume's zone and the zones the NodePools offer",
          detail:
            "The PersistentVolume's node affinity names its zone; a NodePool offers the zones of its topology.kubernetes.io/zone requirement where its EC2NodeClass has subnets.",
          commands: [
            `kubectl -n ${w.namespace} get pvc -o custom-columns=NAME:.metadata.name,VOLUME:.spec.volumeName,CLASS:.spec.storageClassName`,
            `kubectl get pv ${f.first('volumes', '<pv-name>')} -o jsonpath='{.spec.nodeAffinity.required.nodeSelectorTerms}{"\\n"}'`,
            'kubectl get nodepools -o jsonpath=\'{range .items[*]}{.metadata.name}{": "}{.spec.template.spec.requirements[?(@.key=="topology.kubernetes.io/zone")]}{"\\n"}{end}\'',
          ],
        },
        {
          title: "Durable fix: allow the volume's zone in a NodePool, and bind new volumes late",
          detail:
            "Add the volume's zone to a NodePool's topology.kubernetes.io/zone requirement (its EC2NodeClass needs a subnet there; widening a requirement replaces no existing node). For new volumes, use volumeBindingMode: WaitForFirstConsumer in the StorageClass, so a volume is created in the zone where its pod lands.",
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
        source:
          'https://github.com/aws/karpenter-provider-aws/issues/2971 (test/fixtures/karpenter-samples.jsonl ref-036)',
      },
    ],
    silent: [
      {
        line: ' Normal   Nominated         3m44s                karpenter          Pod should schedule on: nodeclaim/default-zlp9c',
        source:
          'https://github.com/aws/karpenter-provider-aws/issues/5463 (test/fixtures/karpenter-samples.jsonl ref-045)',
      },
    ],
  },
});
