import { DRIFT_NOTE } from '../../advice/side-effects';
import { DOCS } from '../../advice/docs-links';
import { anyOf, defineRule } from './types';

export default defineRule({
  info: {
    id: 'node-disk-pressure',
    title: 'Nodes are under disk pressure',
    shortTitle: 'nodes under disk pressure',
    severity: 'medium',
    source: 'beyond',
    family: 'node',
    emittedBy: 'logs',
    recognises: 'image garbage collection failing, DiskPressure, evictions for ephemeral storage',
    keyEntity: 'nodes',
  },
  filterTerms: ['DiskPressure', 'NodeHasDiskPressure'],
  recognition: {
    clauses: [
      ...anyOf(
        'diskpressure',
        'disk pressure',
        'disk-pressure',
        'imagegcfailed',
        'freediskspacefailed',
        'failed to garbage collect required amount of images',
        'low on resource: ephemeral-storage',
        // kubelet eviction manager (pkg/kubelet/eviction/helpers.go): pods evicted for local storage, and its
        // log lines naming the disk signal it reclaims; image GC failing again and again (image_gc_manager.go)
        'exceeded its local ephemeral storage limit',
        'pod ephemeral local storage usage exceeds the total limit',
        'image garbage collection failed multiple times in a row',
        'no space left on device',
      ),
      ...[
        ['usage of emptydir volume', 'exceeds the limit'],
        ['eviction manager:', 'ephemeral-storage'],
        ['eviction manager:', 'nodefs'],
        ['eviction manager:', 'imagefs'],
      ],
    ],
    // `NodeHasNoDiskPressure`, `DiskPressure False`, `Status: True -> False` say the opposite (classify.ts).
    conditions: [{ type: 'diskpressure' }],
  },
  diagnose: (f) => {
    const nodeclass = f.first('nodeclasses', '<ec2nodeclass-name>');
    return {
      diagnosis:
        `Nodes${f.where('nodes', '')} are short of disk: image garbage collection cannot free enough space, and the ` +
        `kubelet evicts pods. The volume of the EC2NodeClass that holds images and pods is too small for the images in use.`,
      remediation: [
        {
          title: 'See the disk pressure on the node',
          detail: 'Check the DiskPressure condition and the images it holds.',
          commands: [`kubectl describe node ${f.first('nodes', '<node-name>')}`],
        },
        {
          title: 'Give nodes a larger volume for images and pods',
          detail:
            'Raise blockDeviceMappings[].ebs.volumeSize in the EC2NodeClass above its current value (the first command shows the mappings and the AMI family) on the volume that holds images and pods: ' +
            'the root /dev/xvda on AL2 and AL2023, /dev/sda1 on Windows, but the data volume /dev/xvdb on Bottlerocket, whose root holds only the OS (growing it frees nothing). ' +
            'New nodes get the larger disk.' +
            `\n${DRIFT_NOTE}`,
          commands: [
            `kubectl get ec2nodeclass ${nodeclass} -o jsonpath='{.spec.amiSelectorTerms}{"\\n"}{.spec.blockDeviceMappings}{"\\n"}'`,
            `kubectl edit ec2nodeclass ${nodeclass}`,
          ],
        },
      ],
      docs: [DOCS.nodePressure, DOCS.karpenterNodeClasses],
    };
  },
  examples: {
    fires: [
      {
        line: 'default   1m   Warning   Evicted   pod/builder-7f9c-x2x4q   Pod ephemeral local storage usage exceeds the total limit of containers 2Gi.',
        source:
          'constructed from kubernetes/kubernetes@v1.31.0-alpha.2:pkg/kubelet/eviction/helpers.go "Pod ephemeral local storage usage exceeds the total limit of containers %s."',
      },
      {
        line: 'Warning  FreeDiskSpaceFailed  3m  kubelet  Failed to garbage collect required amount of images. Attempted to free 4203855462 bytes, but only found 0 bytes eligible to free.',
        source:
          "constructed from kubelet's image GC event 'Failed to garbage collect required amount of images. Attempted to free %d bytes, but only found %d bytes eligible to free.'",
      },
      {
        line: 'Normal  NodeHasDiskPressure  node/ip-10-0-1-7.ec2.internal  kubelet  Node ip-10-0-1-7.ec2.internal status is now: NodeHasDiskPressure',
        source: "constructed from kubelet's node status event 'Node %s status is now: %s'",
      },
    ],
    silent: [
      {
        line: '  Normal   NodeHasNoDiskPressure    51s (x2 over 51s)  kubelet                Node ip-10-3-17-107.ec2.internal status is now: NodeHasNoDiskPressure',
        source: 'https://github.com/aws/karpenter-provider-aws/issues/4341 (train-224)',
      },
      {
        line: '  DiskPressure     False   Fri, 09 Sep 2022 17:27:30 -0700   Fri, 09 Sep 2022 14:46:52 -0700   KubeletHasNoDiskPressure     kubelet has no disk pressure',
        source: 'https://github.com/aws/karpenter-provider-aws/issues/2489 (train-135)',
      },
      {
        line: 'Normal  NodeHasNoDiskPressure  node/ip-10-0-1-7.ec2.internal  kubelet  Node ip-10-0-1-7.ec2.internal status is now: NodeHasNoDiskPressure',
        source:
          "constructed from kubelet's node status event 'Node %s status is now: %s' (pkg/kubelet/nodestatus/setters.go)",
      },
      {
        line: '  DiskPressure     False   Mon, 30 Nov 2026 13:00:00 +0000   Mon, 30 Nov 2026 12:00:00 +0000   KubeletHasNoDiskPressure     kubelet has no disk pressure',
        source:
          "constructed from the node condition kubelet sets (KubeletHasNoDiskPressure, 'kubelet has no disk pressure') as kubectl describe node shows it",
      },
      {
        line: 'Normal  Pulled  pod/web-1  kubelet  Successfully pulled image "nginx:1.27" in 1.2s',
        source: "constructed from kubelet's 'Successfully pulled image %q in %v'",
      },
    ],
  },
});
