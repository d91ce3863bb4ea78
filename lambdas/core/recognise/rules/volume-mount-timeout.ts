import { DOCS } from '../../advice/docs-links';
import { anyOf, defineRule, seedSection } from './types';

export default defineRule({
  info: {
    id: 'volume-mount-timeout',
    title: 'Volumes cannot be attached or mounted in time',
    shortTitle: 'volumes not mounting',
    severity: 'medium',
    source: 2,
    family: 'storage',
    emittedBy: 'logs',
    recognises:
      'FailedMount "Unable to attach or mount volumes … timed out waiting for the condition", MountVolume failures',
    keyEntity: 'workloads',
  },
  perWorkloadCause: null,
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
        line: 'Warning  FailedAttachVolume  15s   attachdetach-controller  Multi-Attach error for volume "pvc-16293fb9-4a67-4508-b112-178e5c4455cd" Volume is already exclusively attached to one node and can\'t be attached to another',
        source:
          'https://github.com/kubernetes-sigs/aws-ebs-csi-driver/issues/542 (train-325, Multi-Attach is not the attach limit)',
      },
      {
        line: 'default   2m   Warning   FailedAttachVolume   pod/postgres-0   AttachVolume.Attach failed for volume "pvc-16293fb9" : timed out waiting for external-attacher of ebs.csi.aws.com CSI driver to attach volume vol-0abc123def4567890',
        source:
          'constructed from kubernetes/kubernetes@v1.31.0-alpha.2:pkg/volume/csi/csi_attacher.go "timed out waiting for external-attacher of %v CSI driver to %v volume %v"',
      },
      {
        line: 'E0202 03:58:11.004411       1 driver.go:107] "GRPC error" err="rpc error: code = Internal desc = Could not attach volume \\"vol-0abc123def4567890\\" to node \\"i-0123456789abcdef0\\": error waiting for volume attachment: context deadline exceeded"',
        source:
          'constructed from kubernetes-sigs/aws-ebs-csi-driver@429e202e:pkg/cloud/cloud.go "error waiting for volume attachment: %w"',
      },
      {
        line: '{"kind":"Event","involvedObject":{"kind":"Pod","namespace":"data","name":"redis-1"},"reason":"FailedAttachVolume","type":"Warning","source":{"component":"attachdetach-controller"},"message":"Multi-Attach error for volume \\"pvc-0f1e\\" Volume is already used by pod(s) redis-0"}',
        source:
          'constructed from kubernetes/kubernetes@v1.31.0-alpha.2:pkg/controller/volume/attachdetach/reconciler "Multi-Attach error for volume %q Volume is already used by pod(s) %s", as Event JSON',
      },
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
