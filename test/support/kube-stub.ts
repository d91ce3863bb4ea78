import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';

/**
 * A stub Kubernetes API server on 127.0.0.1 for checking printed kubectl commands: legacy discovery
 * for the API groups the advice uses (core, apps, batch, policy, storage, coordination, admission,
 * metrics, Karpenter, VPC CNI), and any object of them by any name, so kubectl gets as far as a
 * real cluster would take it. What kubectl refuses against it (unknown flags, resource types,
 * jsonpath, arguments) it refuses on syntax.
 */

interface ResourceDef {
  name: string;
  singularName: string;
  kind: string;
  namespaced: boolean;
  shortNames?: string[];
  subresources?: string[];
}

const r = (
  name: string,
  kind: string,
  namespaced: boolean,
  shortNames?: string[],
  subresources?: string[],
): ResourceDef => ({
  name,
  singularName: kind.toLowerCase(),
  kind,
  namespaced,
  ...(shortNames ? { shortNames } : {}),
  ...(subresources ? { subresources } : {}),
});

const GROUPS: Record<string, ResourceDef[]> = {
  v1: [
    r('pods', 'Pod', true, ['po'], ['log', 'status', 'eviction']),
    r('nodes', 'Node', false, ['no'], ['status', 'proxy']),
    r('namespaces', 'Namespace', false, ['ns']),
    r('events', 'Event', true, ['ev']),
    r('services', 'Service', true, ['svc']),
    r('configmaps', 'ConfigMap', true, ['cm']),
    r('secrets', 'Secret', true),
    r('serviceaccounts', 'ServiceAccount', true, ['sa']),
    r('persistentvolumes', 'PersistentVolume', false, ['pv']),
    r('persistentvolumeclaims', 'PersistentVolumeClaim', true, ['pvc']),
    r('limitranges', 'LimitRange', true, ['limits']),
    r('resourcequotas', 'ResourceQuota', true, ['quota']),
    r('endpoints', 'Endpoints', true, ['ep']),
  ],
  'apps/v1': [
    r('deployments', 'Deployment', true, ['deploy'], ['scale', 'status']),
    r('statefulsets', 'StatefulSet', true, ['sts'], ['scale', 'status']),
    r('daemonsets', 'DaemonSet', true, ['ds'], ['status']),
    r('replicasets', 'ReplicaSet', true, ['rs'], ['scale', 'status']),
  ],
  'batch/v1': [r('jobs', 'Job', true, undefined, ['status']), r('cronjobs', 'CronJob', true, ['cj'], ['status'])],
  'policy/v1': [r('poddisruptionbudgets', 'PodDisruptionBudget', true, ['pdb'], ['status'])],
  'storage.k8s.io/v1': [
    r('storageclasses', 'StorageClass', false, ['sc']),
    r('csinodes', 'CSINode', false),
    r('csidrivers', 'CSIDriver', false),
    r('volumeattachments', 'VolumeAttachment', false),
  ],
  'coordination.k8s.io/v1': [r('leases', 'Lease', true)],
  'admissionregistration.k8s.io/v1': [
    r('validatingwebhookconfigurations', 'ValidatingWebhookConfiguration', false),
    r('mutatingwebhookconfigurations', 'MutatingWebhookConfiguration', false),
  ],
  'rbac.authorization.k8s.io/v1': [
    r('clusterroles', 'ClusterRole', false),
    r('clusterrolebindings', 'ClusterRoleBinding', false),
    r('roles', 'Role', true),
    r('rolebindings', 'RoleBinding', true),
  ],
  'apiextensions.k8s.io/v1': [r('customresourcedefinitions', 'CustomResourceDefinition', false, ['crd', 'crds'])],
  'events.k8s.io/v1': [r('events', 'Event', true, ['ev'])],
  'metrics.k8s.io/v1beta1': [r('pods', 'PodMetrics', true), r('nodes', 'NodeMetrics', false)],
  'karpenter.sh/v1': [
    r('nodepools', 'NodePool', false, undefined, ['status']),
    r('nodeclaims', 'NodeClaim', false, undefined, ['status']),
  ],
  'karpenter.k8s.aws/v1': [r('ec2nodeclasses', 'EC2NodeClass', false, ['ec2nc', 'ec2ncs'], ['status'])],
  // Karpenter v0.31 and before (karpenter.sh/v1alpha5), for the advice given to logs of those releases.
  'karpenter.sh/v1alpha5': [
    r('provisioners', 'Provisioner', false, undefined, ['status']),
    r('machines', 'Machine', false, undefined, ['status']),
  ],
  'karpenter.k8s.aws/v1alpha1': [r('awsnodetemplates', 'AWSNodeTemplate', false, undefined, ['status'])],
  'eks.amazonaws.com/v1': [r('nodeclasses', 'NodeClass', false, undefined, ['status'])],
  'crd.k8s.amazonaws.com/v1alpha1': [r('eniconfigs', 'ENIConfig', false)],
};

const CONTAINERS = ['app', 'controller', 'aws-node', 'csi-attacher', 'ebs-plugin'];

function objectOf(groupVersion: string, def: ResourceDef, name: string, namespace?: string): Record<string, unknown> {
  const metadata = {
    name,
    ...(def.namespaced ? { namespace: namespace ?? 'default' } : {}),
    uid: '00000000-0000-0000-0000-000000000001',
    resourceVersion: '1',
    creationTimestamp: '2026-11-30T00:00:00Z',
    labels: { app: name },
  };
  const podSpec = { containers: CONTAINERS.map((c) => ({ name: c, image: 'example:1' })), nodeName: 'node-1' };
  const base = { apiVersion: groupVersion, kind: def.kind, metadata };
  switch (def.kind) {
    case 'Pod':
      return { ...base, spec: podSpec, status: { phase: 'Running' } };
    case 'Deployment':
    case 'StatefulSet':
    case 'DaemonSet':
    case 'ReplicaSet':
      return {
        ...base,
        spec: {
          replicas: 2,
          selector: { matchLabels: { app: name } },
          template: { metadata: { labels: { app: name } }, spec: podSpec },
        },
        status: { replicas: 2 },
      };
    case 'Job':
      return {
        ...base,
        spec: {
          selector: { matchLabels: { app: name } },
          template: { metadata: { labels: { app: name } }, spec: podSpec },
        },
      };
    case 'CronJob':
      return { ...base, spec: { schedule: '0 * * * *', jobTemplate: { spec: { template: { spec: podSpec } } } } };
    case 'Node':
      return {
        ...base,
        spec: { providerID: 'aws:///us-west-2a/i-0123456789abcdef0' },
        status: {
          conditions: [{ type: 'Ready', status: 'True' }],
          capacity: { cpu: '4', memory: '16Gi', pods: '58' },
          allocatable: { cpu: '4', memory: '15Gi', pods: '58' },
        },
      };
    case 'PodMetrics':
      return {
        ...base,
        timestamp: '2026-11-30T00:00:00Z',
        window: '30s',
        containers: [{ name: 'app', usage: { cpu: '10m', memory: '20Mi' } }],
      };
    case 'NodeMetrics':
      return { ...base, timestamp: '2026-11-30T00:00:00Z', window: '30s', usage: { cpu: '10m', memory: '20Mi' } };
    case 'Lease':
      return { ...base, spec: { holderIdentity: name, leaseDurationSeconds: 15 } };
    default:
      return { ...base, spec: {} };
  }
}

function resourceList(groupVersion: string): Record<string, unknown> {
  const resources = GROUPS[groupVersion]!.flatMap((def) => [
    {
      name: def.name,
      singularName: def.singularName,
      namespaced: def.namespaced,
      kind: def.kind,
      verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
      ...(def.shortNames ? { shortNames: def.shortNames } : {}),
    },
    ...(def.subresources ?? []).map((sub) => ({
      name: `${def.name}/${sub}`,
      singularName: '',
      namespaced: def.namespaced,
      kind: sub === 'scale' ? 'Scale' : def.kind,
      verbs: ['get', 'patch', 'update', 'create'],
    })),
  ]);
  return { kind: 'APIResourceList', apiVersion: 'v1', groupVersion, resources };
}

function groupList(omit: ReadonlySet<string>): Record<string, unknown> {
  const groups = new Map<string, string[]>();
  for (const gv of Object.keys(GROUPS)) {
    if (gv === 'v1' || omit.has(gv)) continue;
    const [group, version] = gv.split('/') as [string, string];
    groups.set(group, [...(groups.get(group) ?? []), version]);
  }
  return {
    kind: 'APIGroupList',
    apiVersion: 'v1',
    groups: [...groups.entries()].map(([name, versions]) => ({
      name,
      versions: versions.map((version) => ({ groupVersion: `${name}/${version}`, version })),
      preferredVersion: { groupVersion: `${name}/${versions[0]}`, version: versions[0] },
    })),
  };
}

const pathOf = (groupVersion: string) => (groupVersion === 'v1' ? 'api/v1' : `apis/${groupVersion}`);

/** OpenAPI v3 index: one document per group version, as kubectl's client-side validation reads it. */
function openApiIndex(): Record<string, unknown> {
  return {
    paths: Object.fromEntries(
      Object.keys(GROUPS).map((gv) => [pathOf(gv), { serverRelativeURL: `/openapi/v3/${pathOf(gv)}?hash=stub` }]),
    ),
  };
}

/** Schemas that accept any field (as a CRD with x-kubernetes-preserve-unknown-fields does). */
function openApiDocument(path: string): Record<string, unknown> | undefined {
  const groupVersion = Object.keys(GROUPS).find((gv) => pathOf(gv) === path);
  if (!groupVersion) return undefined;
  const [group, version] = groupVersion.includes('/') ? groupVersion.split('/') : ['', groupVersion];
  const schemas = Object.fromEntries(
    GROUPS[groupVersion]!.map((def) => [
      `stub.${groupVersion}.${def.kind}`,
      {
        type: 'object',
        'x-kubernetes-preserve-unknown-fields': true,
        'x-kubernetes-group-version-kind': [{ group, version, kind: def.kind }],
      },
    ]),
  );
  // The fieldValidation parameter tells kubectl the server validates fields itself (server-side).
  const operation = (kind: string) => ({
    'x-kubernetes-group-version-kind': { group, version, kind },
    parameters: [{ name: 'fieldValidation', in: 'query', schema: { type: 'string' } }],
  });
  const paths = Object.fromEntries(
    GROUPS[groupVersion]!.map((def) => [
      `/${path}/${def.namespaced ? 'namespaces/{namespace}/' : ''}${def.name}/{name}`,
      { patch: operation(def.kind), put: operation(def.kind) },
    ]),
  );
  return { openapi: '3.0.0', info: { title: 'stub', version: 'v1' }, paths, components: { schemas } };
}

function handle(
  req: IncomingMessage,
  body: string,
  res: ServerResponse,
  requests: string[],
  deleted: Set<string>,
  options: KubeStubOptions,
  authorizations: string[],
): void {
  const url = new URL(req.url ?? '/', 'http://stub');
  requests.push(`${req.method} ${url.pathname}${url.search}`);
  authorizations.push(req.headers.authorization ?? '');
  const omit = new Set(options.omit ?? []);
  const json = (status: number, value: unknown) => {
    res.writeHead(status, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify(value));
  };
  const path = url.pathname.replace(/\/+$/, '');
  if (path === '/version')
    return json(200, { major: '1', minor: '32', gitVersion: 'v1.32.0', platform: 'linux/amd64' });
  if (path === '/api') return json(200, { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [] });
  if (path === '/apis') return json(200, groupList(omit));
  if (path === '/openapi/v3') return json(200, openApiIndex());
  if (path.startsWith('/openapi/v3/')) {
    const doc = openApiDocument(path.slice('/openapi/v3/'.length));
    return doc ? json(200, doc) : json(404, status(404, `no schema for ${path}`));
  }
  if (/^\/(readyz|livez|healthz)/.test(path)) {
    res.writeHead(200, { 'Content-Type': 'text/plain' });
    return void res.end('ok\n');
  }
  const match =
    /^\/(?:api\/(v1)|apis\/([^/]+\/[^/]+))(?:\/namespaces\/([^/]+)(?=\/))?(?:\/([^/]+)(?:\/([^/]+)(?:\/([^/]+))?)?)?$/.exec(
      path,
    );
  if (!match) return json(404, status(404, `no route for ${path}`));
  const groupVersion = (match[1] ?? match[2])!;
  const [namespace, resource, name, sub] = [match[3], match[4], match[5], match[6]];
  if (!GROUPS[groupVersion] || omit.has(groupVersion))
    return json(404, status(404, `the server could not find the requested resource`));
  if (!resource) return json(200, resourceList(groupVersion));
  const def = GROUPS[groupVersion]!.find((d) => d.name === resource);
  if (!def) return json(404, status(404, `the server could not find the requested resource (${resource})`));
  if (sub === 'log') {
    res.writeHead(200, { 'Content-Type': 'text/plain' });
    return void res.end('a log line\n');
  }
  if (sub === 'scale') {
    return json(200, {
      apiVersion: 'autoscaling/v1',
      kind: 'Scale',
      metadata: { name, namespace, resourceVersion: '1' },
      spec: { replicas: 2 },
      status: { replicas: 2, selector: `app=${name}` },
    });
  }
  const listed = options.lists?.[`${groupVersion}/${resource}`];
  if (req.method === 'GET' && !name && options.forbidden?.includes(`${groupVersion}/${resource}`)) {
    const group = groupVersion.includes('/') ? groupVersion.split('/')[0]! : '';
    return json(403, {
      ...status(
        403,
        `${resource}${group ? `.${group}` : ''} is forbidden: User "arn:aws:sts::123456789012:assumed-role/viewer/me" cannot list resource "${resource}" in API group "${group}" at the cluster scope`,
      ),
      reason: 'Forbidden',
    });
  }
  if (req.method === 'GET' && !name && listed) {
    return json(200, {
      apiVersion: groupVersion,
      kind: `${def.kind}List`,
      metadata: { resourceVersion: '7' },
      items: listed,
    });
  }
  if (req.method === 'GET' && !name) {
    return json(200, {
      apiVersion: groupVersion,
      kind: `${def.kind}List`,
      metadata: { resourceVersion: '1' },
      items: [objectOf(groupVersion, def, 'example', namespace)],
    });
  }
  const key = `${groupVersion}/${namespace ?? ''}/${resource}/${name ?? ''}`;
  if (req.method === 'DELETE') {
    deleted.add(key);
    return json(200, status(200, 'deleted'));
  }
  // A deleted object stays gone until created again (kubectl replace --force waits for that).
  if (deleted.has(key)) return json(404, status(404, `${resource} "${name}" not found`));
  if (req.method === 'POST') {
    try {
      const created = JSON.parse(body) as { metadata?: { name?: string } };
      deleted.delete(`${groupVersion}/${namespace ?? ''}/${resource}/${created.metadata?.name ?? ''}`);
      return json(201, created);
    } catch {
      return json(400, status(400, 'bad body'));
    }
  }
  return json(200, objectOf(groupVersion, def, name!, namespace));
}

const status = (code: number, message: string) => ({
  kind: 'Status',
  apiVersion: 'v1',
  status: code < 300 ? 'Success' : 'Failure',
  message,
  reason: code === 404 ? 'NotFound' : code < 300 ? '' : 'BadRequest',
  code,
});

export interface KubeStubOptions {
  /** The items a list of `groupVersion/resource` returns (`karpenter.sh/v1/nodeclaims`); others list one example. */
  lists?: Record<string, unknown[]>;
  /** Group versions not served, as a cluster without their CRDs. */
  omit?: string[];
  /** `groupVersion/resource` lists refused with 403 Forbidden, as RBAC refuses them. */
  forbidden?: string[];
  /** Serve HTTPS with this key and certificate (PEM), as an EKS API endpoint does; plain HTTP when absent. */
  tls?: { key: string; cert: string };
}

export interface KubeStub {
  url: string;
  /** `METHOD path?query` of every request served, for tests of the stub itself. */
  requests: string[];
  /** The Authorization header of every request ('' when none). */
  authorizations: string[];
  close(): Promise<void>;
}

export async function startKubeStub(options: KubeStubOptions = {}): Promise<KubeStub> {
  const requests: string[] = [];
  const authorizations: string[] = [];
  const deleted = new Set<string>();
  const listener: RequestListener = (req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => handle(req, body, res, requests, deleted, options, authorizations));
  };
  const server: Server = options.tls ? createTlsServer(options.tls, listener) : createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `${options.tls ? 'https' : 'http'}://127.0.0.1:${port}`,
    requests,
    authorizations,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
