import { DRIFT_NOTE } from '../../advice/side-effects';
import { DOCS } from '../../advice/docs-links';
import { anyOf, defineRule, seedSection } from './types';

export default defineRule({
  info: {
    id: 'volume-attach-limit',
    title: 'Node reached its EBS volume attachment limit',
    shortTitle: 'EBS attach limit reached',
    severity: 'medium',
    source: 2,
    family: 'storage',
    emittedBy: 'logs',
    recognises:
      'FailedAttachVolume, "expected device to be attached but was attaching", AttachmentLimitExceeded, max volume count',
    keyEntity: 'nodes',
  },
  recognition: {
    // An attach that failed or timed out for another reason (Multi-Attach, the external-attacher) is
    // volume-mount-timeout: only the limit's own evidence names this rule.
    clauses: anyOf(
      'expected device to be attached but was attaching',
      'stuck in attaching state for longer than',
      'attachment limit exceeded for volume',
      'attachmentlimitexceeded',
      'exceed max volume count',
      'max volume count',
      'maximum number of attachments',
      'volume attachment limit',
    ),
    // The limit is why the pod waits on its volume.
    supersedes: ['volume-mount-timeout'],
  },
  diagnose: (f) => {
    const node = f.first('nodes', '<node-name>');
    return {
      diagnosis:
        `Volumes cannot attach${f.where('nodes', 'to node')}${f.where('volumes', '; volumes')}. Several pods with ` +
        `persistent volumes were packed onto the same node and it reached its EBS attachment limit, so the next attachment ` +
        `stays in "attaching".`,
      remediation: [
        {
          title: 'See how many volumes the node can take and has',
          detail: "The EBS CSI driver reports the node's attachable volume count; compare with the attachments on it.",
          commands: [
            `kubectl get csinode ${node} -o jsonpath='{.spec.drivers[?(@.name=="ebs.csi.aws.com")].allocatable.count}'`,
            `kubectl get volumeattachments | grep ${node}`,
          ],
        },
        {
          title: 'Spread volume-heavy pods across nodes',
          detail:
            'Add topologySpreadConstraints (topologyKey kubernetes.io/hostname) and podAntiAffinity to the workloads with many PVCs, so their volumes do not pile up on one node.',
          commands: [],
        },
        {
          title: 'Use the EBS CSI driver and a startup taint on the NodePool',
          detail:
            'With aws-ebs-csi-driver, a startup taint keeps pods off a node until the driver is ready there:\n' +
            'spec:\n  template:\n    spec:\n      startupTaints:\n        - key: ebs.csi.aws.com/agent-not-ready\n          effect: NoExecute' +
            `\n${DRIFT_NOTE}`,
          commands: [`kubectl edit nodepool ${f.first('nodepools', '<nodepool-name>')}`],
        },
      ],
      docs: [DOCS.volumeLimits, DOCS.ebsCsi, DOCS.topologySpread],
    };
  },
  examples: {
    fires: [
      {
        line: 'E0202 03:58:12.004411       1 driver.go:107] "GRPC error" err="rpc error: code = ResourceExhausted desc = Attachment limit exceeded for volume \\"vol-0abc123def4567890\\" on node \\"i-0123456789abcdef0\\": AttachmentLimitExceeded"',
        source:
          'constructed from kubernetes-sigs/aws-ebs-csi-driver@429e202e:pkg/driver/controller.go "Attachment limit exceeded for volume %q on node %q: %v"',
      },
      {
        line: 'Warning FailedAttachVolume pod/example-pod AttachVolume. Attach failed for volume " " : rpc error: code = Internal desc = Could not attach volume " " to node " ": attachment of disk " " failed, expected device to be attached but was attaching',
        source: seedSection(2),
      },
      {
        line: 'AttachVolume.Attach failed for volume "pvc-1" : rpc error: code = Internal desc = Could not attach volume "vol-0123456789abcdef0" to node "i-0123456789abcdef0": AttachmentLimitExceeded',
        source:
          "constructed from aws-ebs-csi-driver's 'Could not attach volume %q to node %q: %v' with the EC2 error code AttachmentLimitExceeded",
      },
      {
        line: 'FailedAttachVolume: AttachVolume.Attach failed for volume "pvc-XXX" : rpc error: code = Internal desc = Could not attach volume "vol-XXX" to node "i-XXX": attachment of disk "vol-XX" failed, expected device to be attached but was attaching',
        source:
          'https://github.com/kubernetes-sigs/aws-ebs-csi-driver/issues/1801 (test/fixtures/karpenter-samples.jsonl ref-034)',
      },
    ],
    silent: [
      {
        line: 'Warning  FailedAttachVolume  15s   attachdetach-controller  Multi-Attach error for volume "pvc-16293fb9-4a67-4508-b112-178e5c4455cd" Volume is already exclusively attached to one node and can\'t be attached to another',
        source:
          'https://github.com/kubernetes-sigs/aws-ebs-csi-driver/issues/542 (train-325, Multi-Attach is volume-mount-timeout)',
      },
      {
        line: '{"level":"error","ts":"2025-02-02T03:55:08.118Z","caller":"awsutils/awsutils.go:742","msg":"Failed to attach ENI eni-0abc12: AttachmentLimitExceeded: Interface count 4 exceeds the limit for c5.large"}',
        source:
          'constructed from aws/amazon-vpc-cni-k8s@b5218838:pkg/awsutils/awsutils.go: an ENI, not an EBS volume (subnet-ip-exhaustion)',
      },
      {
        line: 'Normal  SuccessfulAttachVolume  12s  attachdetach-controller  AttachVolume.Attach succeeded for volume "pvc-1"',
        source:
          "constructed from the attach/detach controller's SuccessfulAttachVolume event 'AttachVolume.Attach succeeded for volume %q'",
      },
    ],
  },
});
