/**
 * Cluster objects in the shapes the Kubernetes API returns them for Karpenter v1.0 and v1.14 and for
 * EKS Auto Mode (CRDs of kubernetes-sigs/karpenter and aws/karpenter-provider-aws, `kubectl get -o
 * json`): conditions as operatorpkg writes them, with observedGeneration and lastTransitionTime.
 */

export interface ConditionInput {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
}

const T0 = '2026-12-01T10:00:00Z';

const conditions = (list: ConditionInput[]) =>
  list.map((c) => ({
    type: c.type,
    status: c.status,
    reason: c.reason ?? c.type,
    message: c.message ?? '',
    lastTransitionTime: c.lastTransitionTime ?? T0,
    observedGeneration: 1,
  }));

/** Launched Unknown with the reason of a launch that found no free IP (Karpenter v1.14 keeps a failed launch so). */
export const NO_FREE_IP: ConditionInput = {
  type: 'Launched',
  status: 'Unknown',
  reason: 'InsufficientFreeAddressesInSubnet',
  message: 'Error creating fleet request: There are not enough free IP addresses to launch an instance in this subnet',
};

/** Launched True, as the NodeClaim of a failed launch says once a later attempt succeeds. */
export const LAUNCHED: ConditionInput = {
  type: 'Launched',
  status: 'True',
  lastTransitionTime: '2026-12-01T10:20:00Z',
};

let uid = 0;
const nextUid = () => `4f1c2a3b-0000-4000-8000-${String(++uid).padStart(12, '0')}`;

export function nodeClaim(
  name: string,
  list: ConditionInput[],
  options: { nodePool?: string; autoMode?: boolean } = {},
): Record<string, unknown> {
  const pool = options.nodePool ?? name.replace(/-[a-z0-9]{5}$/, '');
  return {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodeClaim',
    metadata: {
      name,
      uid: nextUid(),
      generation: 1,
      creationTimestamp: T0,
      finalizers: ['karpenter.sh/termination'],
      labels: {
        'karpenter.sh/nodepool': pool,
        'karpenter.sh/capacity-type': 'on-demand',
        ...(options.autoMode
          ? { 'eks.amazonaws.com/compute-type': 'auto' }
          : { 'karpenter.k8s.aws/ec2nodeclass': 'default' }),
      },
      annotations: { 'karpenter.sh/nodepool-hash': '6821555240594823858', 'karpenter.sh/nodepool-hash-version': 'v3' },
      ownerReferences: [{ apiVersion: 'karpenter.sh/v1', kind: 'NodePool', name: pool, uid: nextUid() }],
    },
    spec: {
      expireAfter: '720h',
      nodeClassRef: options.autoMode
        ? { group: 'eks.amazonaws.com', kind: 'NodeClass', name: 'default' }
        : { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' },
      requirements: [
        { key: 'kubernetes.io/arch', operator: 'In', values: ['amd64'] },
        { key: 'karpenter.sh/capacity-type', operator: 'In', values: ['on-demand'] },
      ],
      resources: { requests: { cpu: '1150m', memory: '1Gi', pods: '5' } },
    },
    status: { conditions: conditions(list) },
  };
}

export function nodePool(name: string, list: ConditionInput[], options: { autoMode?: boolean } = {}) {
  return {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodePool',
    metadata: { name, uid: nextUid(), generation: 1, creationTimestamp: T0 },
    spec: {
      disruption: {
        consolidateAfter: '0s',
        consolidationPolicy: 'WhenEmptyOrUnderutilized',
        budgets: [{ nodes: '10%' }],
      },
      template: {
        spec: {
          expireAfter: '720h',
          nodeClassRef: options.autoMode
            ? { group: 'eks.amazonaws.com', kind: 'NodeClass', name: 'default' }
            : { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' },
          requirements: [{ key: 'karpenter.sh/capacity-type', operator: 'In', values: ['on-demand'] }],
        },
      },
    },
    status: { conditions: conditions(list), resources: { cpu: '0', nodes: '0' } },
  };
}

export function ec2NodeClass(name: string, list: ConditionInput[]) {
  return {
    apiVersion: 'karpenter.k8s.aws/v1',
    kind: 'EC2NodeClass',
    metadata: {
      name,
      uid: nextUid(),
      generation: 1,
      creationTimestamp: T0,
      finalizers: ['karpenter.k8s.aws/termination'],
    },
    spec: {
      amiSelectorTerms: [{ alias: 'al2023@latest' }],
      role: 'KarpenterNodeRole-prod',
      subnetSelectorTerms: [{ tags: { 'karpenter.sh/discovery': 'prod' } }],
      securityGroupSelectorTerms: [{ tags: { 'karpenter.sh/discovery': 'prod' } }],
      metadataOptions: { httpEndpoint: 'enabled', httpPutResponseHopLimit: 1, httpTokens: 'required' },
    },
    status: {
      conditions: conditions(list),
      subnets: [{ id: 'subnet-0a1b2c3d4e5f60718', zone: 'us-west-2a', zoneID: 'usw2-az1' }],
      instanceProfile: 'prod_1234567890',
    },
  };
}

/** An EKS Auto Mode NodeClass (eks.amazonaws.com/v1). */
export function autoModeNodeClass(name: string, list: ConditionInput[]) {
  return {
    apiVersion: 'eks.amazonaws.com/v1',
    kind: 'NodeClass',
    metadata: {
      name,
      uid: nextUid(),
      generation: 1,
      creationTimestamp: T0,
      finalizers: ['eks.amazonaws.com/termination'],
    },
    spec: {
      ephemeralStorage: { iops: 3000, size: '80Gi', throughput: 125 },
      networkPolicy: 'DefaultAllow',
      role: 'AmazonEKSAutoNodeRole',
      securityGroupSelectorTerms: [{ id: 'sg-0123456789abcdef0' }],
      subnetSelectorTerms: [{ id: 'subnet-0a1b2c3d4e5f60718' }],
    },
    status: { conditions: conditions(list), instanceProfile: 'eks-us-west-2-prod-1234' },
  };
}

export function pendingPod(
  namespace: string,
  name: string,
  message: string,
  options: { nodeSelector?: Record<string, string> } = {},
) {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace, uid: nextUid(), creationTimestamp: T0, labels: { app: name.replace(/-[^-]+$/, '') } },
    spec: {
      containers: [{ name: 'app', image: 'public.ecr.aws/nginx/nginx:1.27', resources: { requests: { cpu: '1' } } }],
      ...(options.nodeSelector ? { nodeSelector: options.nodeSelector } : {}),
    },
    status: {
      phase: 'Pending',
      qosClass: 'Burstable',
      conditions: [
        {
          type: 'PodScheduled',
          status: 'False',
          reason: 'Unschedulable',
          message,
          lastTransitionTime: T0,
          lastProbeTime: null,
        },
      ],
    },
  };
}

export function event(
  reason: string,
  message: string,
  involved: { kind: string; name: string; namespace?: string },
  type: 'Warning' | 'Normal' = 'Warning',
  at = T0,
) {
  return {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: {
      name: `${involved.name}.18${String(++uid).padStart(14, '0')}`,
      namespace: involved.namespace ?? 'default',
      uid: nextUid(),
      creationTimestamp: at,
    },
    involvedObject: {
      kind: involved.kind,
      name: involved.name,
      ...(involved.namespace ? { namespace: involved.namespace } : {}),
    },
    reason,
    message,
    type,
    count: 1,
    firstTimestamp: at,
    lastTimestamp: at,
    source: { component: 'karpenter' },
    reportingComponent: 'karpenter',
    reportingInstance: '',
  };
}

export const list = (items: unknown[]) => ({
  apiVersion: 'v1',
  kind: 'List',
  metadata: { resourceVersion: '' },
  items,
});

/**
 * What the stub API server lists for a Karpenter v1 cluster with these NodeClaims, a healthy NodePool
 * and EC2NodeClass `default`, and nothing else; keyed by API path, as the poller reads them.
 */
export const clusterLists = (nodeClaims: unknown[]): Record<string, unknown[]> => ({
  'karpenter.sh/v1/nodeclaims': nodeClaims,
  'karpenter.sh/v1/nodepools': [nodePool('default', [{ type: 'Ready', status: 'True' }])],
  'karpenter.k8s.aws/v1/ec2nodeclasses': [ec2NodeClass('default', [{ type: 'Ready', status: 'True' }])],
  'eks.amazonaws.com/v1/nodeclasses': [],
  'v1/pods': [],
  'v1/events': [],
  'storage.k8s.io/v1/storageclasses': [],
});
