import { DOCS } from '../advice/docs-links';
import { anyOf, defineRule, seedSection } from './types';

export default defineRule({
  info: {
    id: 'volume-mount-timeout',
    title: 'Volumes cannot be attached or mounted in time',
    severity: 'medium',
    source: 2,
    family: 'storage',
    emittedBy: 'logs',
    recognises:
      'FailedMount "Unable to attach or mount volumes … timed out waiting for the condition", MountVolume failures',
    keyEntity: 'workloads',
  },
  recognition: {
    clauses: anyOf(
      'unable to attach or mount volumes',
      'failedmount',
      'mountvolume.setup failed',
      'mountvolume.mountdevice failed',
      'mountvolume.waitforattach failed',
      // the attach-detach controller and the CSI attacher: the volume is held elsewhere or never attaches
      'attachvolume.attach failed',
      'multi-attach error',
      'timed out waiting for external-attacher',
      'attachdetachment timeout for volume',
      'attacherdetacher.attachvolume failed to start',
      'detachvolume.detach failed',
      'mapvolume.setupdevice failed',
      // EBS CSI driver (pkg/driver/controller.go, pkg/cloud/cloud.go, pkg/driver/node.go)
      'could not attach volume',
      'error waiting for volume attachment',
      'error waiting for volume detachment',
      'has multiple attachments',
      'failed to find device path',
    ),
  },
  diagnose: (f) => {
    const pod = f.pod();
    return {
      diagnosis:
        `Volumes of ${f.all('pods').length ? `pod ${f.list('pods')}` : 'a pod'} were not attached or mounted in time` +
        `${f.paren('volumes')}. This follows attachment-limit problems when ` +
        `volume-heavy pods land on one node, or a CSI driver that is not ready on the node.`,
      remediation: [
        {
          title: 'See which volume is stuck and why',
          detail: 'The pod events and the VolumeAttachment objects name the volume and the node.',
          commands: [
            `kubectl -n ${pod.namespace} describe pod ${pod.name}`,
            'kubectl get volumeattachments',
            'kubectl -n kube-system logs deployment/ebs-csi-controller -c csi-attacher --since=1h',
          ],
        },
        {
          title: 'Spread volume-heavy pods and gate nodes on the CSI driver',
          detail:
            'Add topologySpreadConstraints and podAntiAffinity to the workload, and a startup taint ebs.csi.aws.com/agent-not-ready:NoExecute on the NodePool so pods wait for the driver.',
          commands: [],
        },
      ],
      docs: [DOCS.ebsCsi, DOCS.volumeLimits, DOCS.topologySpread],
    };
  },
  examples: {
    fires: [
      {
        line: 'Warning FailedMount pod/example-pod Unable to attach or mount volumes: unmounted volumes=[], unattached volumes=[]: timed out waiting for the condition',
        source: seedSection(2),
      },
      {
        line: '  Warning  FailedMount  3m33s (x6 over 23m)  kubelet  MountVolume.SetUp failed for volume "pvc-719c8ef2-5bdb-4638-b4db-7d59b53d21f0" : rpc error: code = DeadlineExceeded desc = context deadline exceeded',
        source:
          'https://github.com/aws-samples/eks-workshop-v2/blob/bb1b30007ba61a406d5efc18e48dff87ea879a36/website/docs/troubleshooting/pod/container_creating.md (test/fixtures/karpenter-samples.jsonl ref-035)',
      },
    ],
    silent: [
      {
        line: 'Normal  SuccessfulMountVolume  8s  kubelet  MountVolume.SetUp succeeded for volume "pvc-1"',
        source: "constructed from kubelet's 'MountVolume.SetUp succeeded for volume %q'",
      },
    ],
  },
});
