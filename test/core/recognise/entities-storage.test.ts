import { analyzeMessages } from '../../../lambdas/core/analyze';
import { extractEntities, isNodePoolName } from '../../../lambdas/core/recognise/entities';
import { buildFinding } from '../../../lambdas/core/findings/finding';
import type { Entities } from '../../../lambdas/core/model';
import { parseMessage, type DescribeContext } from '../../../lambdas/core/parse/parse-message';

/**
 * A StorageClass's `provisioner` is a storage driver (`kubernetes.io/aws-ebs`, `ebs.csi.aws.com`),
 * and a PersistentVolume or claim is not a pod: the shapes kubectl, the API server, the CSI
 * external-provisioner and Karpenter print for them must never yield a NodePool, a pod or a workload.
 */
const SHAPES: Record<string, string> = {
  'kubectl describe storageclass': `Name:            gp2
IsDefaultClass:  Yes
Annotations:     kubectl.kubernetes.io/last-applied-configuration={"apiVersion":"storage.k8s.io/v1","kind":"StorageClass","metadata":{"annotations":{"storageclass.kubernetes.io/is-default-class":"true"},"name":"gp2"},"parameters":{"fsType":"ext4","type":"gp2"},"provisioner":"kubernetes.io/aws-ebs","volumeBindingMode":"WaitForFirstConsumer"}
,storageclass.kubernetes.io/is-default-class=true
Provisioner:           kubernetes.io/aws-ebs
Parameters:            fsType=ext4,type=gp2
AllowVolumeExpansion:  <unset>
MountOptions:          <none>
ReclaimPolicy:         Delete
VolumeBindingMode:     WaitForFirstConsumer
Events:                <none>`,
  'kubectl get storageclass': `NAME            PROVISIONER             RECLAIMPOLICY   VOLUMEBINDINGMODE      ALLOWVOLUMEEXPANSION   AGE
gp2 (default)   kubernetes.io/aws-ebs   Delete          WaitForFirstConsumer   false                  2y
gp3             ebs.csi.aws.com         Delete          WaitForFirstConsumer   true                   41d`,
  'kubectl get storageclass -o yaml (gp2, in-tree)': `apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  annotations:
    storageclass.kubernetes.io/is-default-class: "true"
  name: gp2
parameters:
  fsType: ext4
  type: gp2
provisioner: kubernetes.io/aws-ebs
reclaimPolicy: Delete
volumeBindingMode: WaitForFirstConsumer`,
  'a StorageClass manifest with quoted values (gp3, CSI)': `apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: gp3
provisioner: "ebs.csi.aws.com"
parameters:
  type: "gp3"
  encrypted: "true"`,
  'kubectl get storageclass -o json | jq -c': `{"apiVersion":"storage.k8s.io/v1","kind":"StorageClass","metadata":{"annotations":{"storageclass.kubernetes.io/is-default-class":"true"},"name":"gp2"},"parameters":{"fsType":"ext4","type":"gp2"},"provisioner":"kubernetes.io/aws-ebs","reclaimPolicy":"Delete","volumeBindingMode":"WaitForFirstConsumer"}`,
  'kubectl describe pv (in-tree EBS)': `Name:              pvc-0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0
Labels:            topology.kubernetes.io/zone=us-west-2a
Annotations:       pv.kubernetes.io/migrated-to: ebs.csi.aws.com
                   pv.kubernetes.io/provisioned-by: kubernetes.io/aws-ebs
Finalizers:        [kubernetes.io/pv-protection external-attacher/ebs-csi-aws-com]
StorageClass:      gp2
Status:            Bound
Claim:             data/data-postgres-0
Reclaim Policy:    Delete
Access Modes:      RWO
VolumeMode:        Filesystem
Capacity:          20Gi
Node Affinity:
  Required Terms:
    Term 0:        topology.kubernetes.io/zone in [us-west-2a]
Message:
Source:
    Type:       AWSElasticBlockStore (a Persistent Disk resource in AWS)
    VolumeID:   vol-0abc123def4567890
    FSType:     ext4
    Partition:  0
    ReadOnly:   false
Events:
  Type     Reason              Age   From                         Message
  ----     ------              ----  ----                         -------
  Warning  VolumeFailedDelete  2m    persistentvolume-controller  error getting deleter volume plugin for volume "pvc-0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0": no deletable volume plugin matched`,
  'kubectl get pv -o json | jq -c': `{"apiVersion":"v1","kind":"PersistentVolume","metadata":{"annotations":{"pv.kubernetes.io/provisioned-by":"ebs.csi.aws.com","volume.kubernetes.io/provisioner-deletion-secret-name":""},"name":"pvc-0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0"},"spec":{"accessModes":["ReadWriteOnce"],"claimRef":{"name":"data-postgres-0","namespace":"data"},"csi":{"driver":"ebs.csi.aws.com","fsType":"ext4","volumeHandle":"vol-0abc123def4567890"},"persistentVolumeReclaimPolicy":"Delete","storageClassName":"gp3"}}`,
  'kubectl describe pvc with its events': `Name:          data-postgres-0
Namespace:     data
StorageClass:  gp2
Status:        Pending
Volume:
Labels:        app=postgres
Annotations:   volume.beta.kubernetes.io/storage-provisioner: ebs.csi.aws.com
               volume.kubernetes.io/selected-node: ip-10-0-1-7.us-west-2.compute.internal
               volume.kubernetes.io/storage-provisioner: ebs.csi.aws.com
Finalizers:    [kubernetes.io/pvc-protection]
Capacity:
Access Modes:
VolumeMode:    Filesystem
Used By:       postgres-0
Events:
  Type     Reason                Age                From                                                                                      Message
  ----     ------                ----               ----                                                                                      -------
  Normal   WaitForFirstConsumer  2m                 persistentvolume-controller                                                               waiting for first consumer to be created before binding
  Normal   ExternalProvisioning  14s (x9 over 2m)   persistentvolume-controller                                                               waiting for a volume to be created, either by external provisioner "ebs.csi.aws.com" or manually created by system administrator
  Normal   Provisioning          13s (x5 over 2m)   ebs.csi.aws.com_ebs-csi-controller-6d8f9b7c5d-x2x2x_0c1d2e3f-4a5b-6c7d-8e9f-0a1b2c3d4e5f  External provisioner is provisioning volume for claim "data/data-postgres-0"
  Warning  ProvisioningFailed    13s (x5 over 2m)   ebs.csi.aws.com_ebs-csi-controller-6d8f9b7c5d-x2x2x_0c1d2e3f-4a5b-6c7d-8e9f-0a1b2c3d4e5f  failed to provision volume with StorageClass "gp2": rpc error: code = Internal desc = Could not create volume "pvc-0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0": could not create volume in EC2: operation error EC2: CreateVolume, https response error StatusCode: 403, RequestID: 1c2d3e4f-5a6b-7c8d-9e0f-1a2b3c4d5e6f, api error UnauthorizedOperation: You are not authorized to perform this operation.`,
  'events of a claim (kubectl get events -o json | jq -c)': `{"apiVersion":"v1","count":9,"involvedObject":{"apiVersion":"v1","kind":"PersistentVolumeClaim","name":"data-postgres-0","namespace":"data"},"kind":"Event","message":"waiting for a volume to be created, either by external provisioner \\"ebs.csi.aws.com\\" or manually created by system administrator","metadata":{"name":"data-postgres-0.17a3c","namespace":"data"},"reason":"ExternalProvisioning","source":{"component":"persistentvolume-controller"},"type":"Normal"}
{"apiVersion":"v1","count":5,"involvedObject":{"apiVersion":"v1","kind":"PersistentVolumeClaim","name":"data-postgres-0","namespace":"data"},"kind":"Event","message":"Waiting for a volume to be created either by the external provisioner 'ebs.csi.aws.com' or manually by the system administrator. If volume creation is delayed, please verify that the provisioner is running and correctly registered.","metadata":{"name":"data-postgres-0.17a3d","namespace":"data"},"reason":"ExternalProvisioning","source":{"component":"persistentvolume-controller"},"type":"Normal"}`,
  'events of a claim (kubectl get events)': `NAMESPACE   LAST SEEN   TYPE      REASON                 OBJECT                                  MESSAGE
data        14s         Normal    ExternalProvisioning   persistentvolumeclaim/data-postgres-0   waiting for a volume to be created, either by external provisioner "ebs.csi.aws.com" or manually created by system administrator
data        13s         Warning   ProvisioningFailed     persistentvolumeclaim/data-postgres-0   failed to provision volume with StorageClass "gp2": rpc error: code = Internal desc = Could not create volume "pvc-0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0": could not create volume in EC2: operation error EC2: CreateVolume, https response error StatusCode: 403, api error UnauthorizedOperation: You are not authorized to perform this operation.`,
  'the CSI external-provisioner (klog)': `I1128 10:00:00.000000       1 csi-provisioner.go:232] Detected CSI driver ebs.csi.aws.com
I1128 10:00:01.000000       1 controller.go:1366] provision "data/data-postgres-0" class "gp2": started
I1128 10:00:01.000000       1 event.go:298] Event(v1.ObjectReference{Kind:"PersistentVolumeClaim", Namespace:"data", Name:"data-postgres-0", APIVersion:"v1", ResourceVersion:"1234", FieldPath:""}): type: 'Normal' reason: 'Provisioning' External provisioner is provisioning volume for claim "data/data-postgres-0"`,
};

/** Every record's entities, as the assembler parses the lines of one stream (describe state carried). */
function recordEntities(text: string): Entities[] {
  const describe: DescribeContext = {};
  return text
    .split('\n')
    .map((line, i) => parseMessage(line, { line: i + 1 }, describe))
    .filter((record) => record !== undefined)
    .map((record) => extractEntities(record));
}

describe('storage objects never become NodePools, pods or workloads', () => {
  it.each(Object.entries(SHAPES))('%s', (_shape, text) => {
    const records = recordEntities(text);
    expect(records.length).toBeGreaterThan(0);
    for (const entities of records) {
      expect(entities.nodepools ?? []).toEqual([]);
      expect(entities.pods ?? []).toEqual([]);
      expect(entities.workloads ?? []).toEqual([]);
    }
    const { incidents } = analyzeMessages(
      text.split('\n').map((message, i) => ({ message, origin: { file: 'storage.txt', line: i + 1 } })),
      'prod',
    );
    for (const incident of incidents) {
      expect(incident.entities.nodepools ?? []).toEqual([]);
      expect(incident.entities.pods ?? []).toEqual([]);
    }
  });

  it("a claim's ProvisioningFailed still names its volume and the refused call, now without a made-up pod", () => {
    const { incidents } = analyzeMessages(
      SHAPES['kubectl describe pvc with its events']!.split('\n').map((message, i) => ({
        message,
        origin: { file: 'describe.txt', line: i + 1 },
      })),
      'prod',
    );
    expect(incidents.map((i) => i.rule)).toEqual(['aws-permission-denied']);
    expect(incidents[0]!.entities).toMatchObject({
      volumes: ['pvc-0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0'],
      iamActions: ['ec2:CreateVolume'],
    });
    expect(incidents[0]!.entities.workloads).toBeUndefined();
  });

  it('a pod described the same way is still the pod', () => {
    const describe: DescribeContext = {};
    const lines = [
      'Name:             postgres-0',
      'Namespace:        data',
      'Priority:         0',
      'Volumes:',
      '  data:',
      '    Type:       PersistentVolumeClaim (a reference to a PersistentVolumeClaim in the same namespace)',
      '    ClaimName:  data-postgres-0',
      'Events:',
      '  Warning  FailedScheduling  2m  default-scheduler  0/3 nodes are available: 3 node(s) had volume node affinity conflict.',
    ];
    const last = lines.map((line, i) => parseMessage(line, { line: i + 1 }, describe)).at(-1)!;
    expect(extractEntities(last).pods).toEqual(['data/postgres-0']);
  });
});

describe("Karpenter's own storage lines (v0.28-v0.32, kubernetes-sigs/karpenter pkg/scheduling/volumeusage.go)", () => {
  // logging.With("storage-class", sc.Name, "provisioner", sc.Provisioner).Errorf("StorageClass .spec.provisioner uses …")
  const STORAGE_CLASS_LINE =
    "2023-06-14T09:12:41.118Z\tERROR\tcontroller.provisioner\tStorageClass .spec.provisioner uses an in-tree storage plugin which is unsupported by Karpenter and is deprecated by Kubernetes. Scale-ups may fail because Karpenter will not discover driver limits. Create a new StorageClass with a .spec.provisioner referencing the CSI driver plugin name 'ebs.csi.aws.com'.\t" +
    '{"commit": "d7e22b1", "pod": "data/postgres-0", "volume": "data", "storage-class": "gp2", "provisioner": "kubernetes.io/aws-ebs"}';
  // logging.With("persistent-volume", pv.Name), after With("pod", …) and With("volume", volume.Name)
  const PERSISTENT_VOLUME_LINE =
    '2023-04-05T23:56:53.363Z        ERROR   controller.node_state   PersistentVolume source \'AWSElasticBlockStore\' uses an in-tree storage plugin which is unsupported by Karpenter and is deprecated by Kubernetes. Scale-ups may fail because Karpenter will not discover driver limits. Use a PersistentVolume that references the \'CSI\' volume source for Karpenter auto-scaling support.       {"commit": "b2af562", "node": "ip-192-168-36-137.us-west-2.compute.internal", "pod": "inflate0-6c4bdb8b75-7qmfd", "volume": "mypd", "persistent-volume": "pvc-11db7489-3c6e-46f3-a958-91f9d5009d41"}';

  it('the StorageClass line names the class, not a NodePool called after its provisioner', () => {
    const entities = extractEntities(parseMessage(STORAGE_CLASS_LINE, {})!);
    expect(entities.nodepools).toBeUndefined();
    expect(entities.storageClasses).toEqual(['gp2']);
    expect(entities.volumes).toBeUndefined();
  });

  it("the PersistentVolume line names the PV only: neither the pod's volume name nor the plugin type", () => {
    expect(extractEntities(parseMessage(PERSISTENT_VOLUME_LINE, {})!).volumes).toEqual([
      'pvc-11db7489-3c6e-46f3-a958-91f9d5009d41',
    ]);
  });

  it('the advice for the StorageClass line replaces the class by a CSI one, named', () => {
    const { incidents } = analyzeMessages([{ message: STORAGE_CLASS_LINE, origin: { line: 1 } }], 'prod');
    expect(incidents.map((i) => i.rule)).toEqual(['in-tree-storage-plugin']);
    const finding = buildFinding(incidents[0]!, { region: 'us-west-2' });
    const text = [finding.diagnosis, ...finding.remediation.flatMap((s) => [s.detail, ...s.commands])].join('\n');
    expect(text).toContain('kubectl get storageclass gp2 -o yaml');
    expect(text).toMatch(/provisioner ebs\.csi\.aws\.com/);
    expect(text).not.toContain('nodepool kubernetes.io');
  });

  it("a v0.x Provisioner named in Karpenter's own `provisioner` field is still the NodePool", () => {
    const line =
      '2023-02-13T10:21:45.282Z        INFO    controller.provisioner  launching machine with 1 pods requesting {"cpu":"3125m"} from types r5a.xlarge    {"commit": "8c27519-dirty", "provisioner": "spot"}';
    expect(extractEntities(parseMessage(line, {})!).nodepools).toEqual(['spot']);
  });

  it.each([
    ['default', true],
    ['gpu-spot', true],
    ['team.a', true],
    ['ebs.csi.aws.com', false],
    ['efs.csi.aws.com', false],
    ['kubernetes.io/aws-ebs', false],
    ['driver.longhorn.io', false],
    ['Default', false],
  ])('isNodePoolName(%s) is %s', (name, expected) => {
    expect(isNodePoolName(name)).toBe(expected);
  });
});

describe('a resource name before a value is not the object', () => {
  it('an RBAC subresource (pods/eviction) is not a pod; a pod whose name starts like one still is', () => {
    const forbidden =
      'E0412 10:02:11.310492       1 reflector.go:158] "Unhandled Error" err="pods \\"web-1\\" is forbidden: User \\"system:serviceaccount:kube-system:karpenter\\" cannot create resource \\"pods/eviction\\" in API group \\"\\" in the namespace \\"default\\"" logger="UnhandledError"';
    expect(extractEntities(parseMessage(forbidden, {})!).pods).toBeUndefined();
    const status =
      'Warning  FailedScheduling  pod/status-page-7d9f8c6b5d-x2z4q  0/3 nodes are available: 3 Insufficient cpu.';
    expect(extractEntities(parseMessage(status, {})!).pods).toEqual(['status-page-7d9f8c6b5d-x2z4q']);
  });
});

/**
 * `volume "X"` names a PersistentVolume (or its EBS volume) only where the operation acts on one:
 * attach, detach and device steps use the PV's name (kubernetes pkg/volume/util/operationexecutor,
 * GenerateMsgDetailed with VolumeSpec.Name()), as do the PV controller, the EBS CSI driver and
 * Karpenter; `MountVolume.SetUp failed for volume "X"` and `unmounted volumes=[…]` name the pod's
 * own volume (a ConfigMap, a projected token) unless a PV backs it.
 */
describe('volume names', () => {
  it.each<[string, string[]]>([
    [
      'Warning  FailedAttachVolume  2m  attachdetach-controller  AttachVolume.Attach failed for volume "static-data-pv" : rpc error: code = Internal desc = Could not attach volume "vol-0abc123def4567890" to node "i-0123456789abcdef0": attachment of disk "vol-0abc123def4567890" failed, expected device to be attached but was attaching',
      ['static-data-pv', 'vol-0abc123def4567890'],
    ],
    [
      'Warning  FailedAttachVolume  3m  attachdetach-controller  Multi-Attach error for volume "static-data-pv" Volume is already exclusively attached to one node and can\'t be attached to another',
      ['static-data-pv'],
    ],
    [
      'Warning  FailedMount  1m  kubelet  MountVolume.MountDevice failed for volume "static-data-pv" : rpc error: code = DeadlineExceeded desc = context deadline exceeded',
      ['static-data-pv'],
    ],
    [
      '{"level":"ERROR","message":"getting persistent volume \\"static-data-pv\\", persistentvolumes \\"static-data-pv\\" not found"}',
      ['static-data-pv'],
    ],
    [
      'failed to validate pvc, persistentvolumeclaim bound to non-existent persistentvolume (PersistentVolumeClaim=data/data-postgres-0, PersistentVolume=static-data-pv)',
      ['static-data-pv'],
    ],
    // The pod's own volume names: never a PV.
    [
      'Warning  FailedMount  2m  kubelet  MountVolume.SetUp failed for volume "config" : configmap "checkout-config" not found',
      [],
    ],
    [
      'Warning  FailedMount  2m  kubelet  MountVolume.SetUp failed for volume "kube-api-access-x7k2p" : object "shop"/"kube-root-ca.crt" not registered',
      [],
    ],
    [
      'Warning  FailedMount  2m  kubelet  Unable to attach or mount volumes: unmounted volumes=[data config], unattached volumes=[data config kube-api-access-x7k2p]: timed out waiting for the condition',
      [],
    ],
    [
      'Warning  FailedMount  2m  kubelet  MountVolume.SetUp failed for volume "pvc-0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0" : rpc error: code = Internal desc = mount failed',
      ['pvc-0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0'],
    ],
  ])('%s → %j', (line, expected) => {
    expect(extractEntities(parseMessage(line, {})!).volumes ?? []).toEqual(expected);
  });
});
