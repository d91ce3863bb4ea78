import { isObject } from '../common/json';
import { SubstringMatcher } from './substring-matcher';
import type { Entities, EntityKind, LogRecord } from '../model';
import type { KarpenterApi } from '../common/karpenter-api';
import {
  API_TEXT_PATTERNS,
  OLD_CONTROLLER_KINDS,
  PROVISIONER_GATE,
  PROVISIONER_NAMED,
} from './vocabulary/karpenter-apis';

/** At most this many values of one kind are kept per record: enough to act on, bounded for hostile input. */
const MAX_PER_KIND = 25;

// Each has its gates: lower-case literals of which every match holds one (case ignored). A pattern
// runs only on a text where one of its gates was found, and the gates are all found in one pass
// (ENTITY_GATES): most patterns have nothing to find in most texts, and one without a literal start
// (zones, instance types, error codes) is otherwise tried at every word of the text.
//
// Every pattern below uses bounded repetitions of a single class, so each is linear-time.
export const TEXT_PATTERNS: ReadonlyArray<readonly [EntityKind, RegExp, number, readonly string[]]> = [
  ['subnets', /\bsubnet-[0-9a-f]{8,17}\b/g, 0, ['subnet-']],
  ['securityGroups', /\bsg-[0-9a-f]{8,17}\b/g, 0, ['sg-']],
  ['amis', /\bami-[0-9a-f]{8,17}\b/g, 0, ['ami-']],
  ['instances', /\bi-[0-9a-f]{8,17}\b/g, 0, ['i-']],
  ['volumes', /\bvol-[0-9a-f]{8,17}\b/g, 0, ['vol-']],
  ['volumes', /\bpvc-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/g, 0, ['pvc-']],
  [
    'zones',
    /\b(?:af|ap|ca|cn|eu|il|me|mx|sa|us)(?:-gov|-iso[a-z]?)?-(?:north|south|east|west|central|northeast|northwest|southeast|southwest)-\d[a-z]\b/g,
    0,
    ['north-', 'south-', 'east-', 'west-', 'central-'],
  ],
  [
    'instanceTypes',
    /\b[a-z][a-z0-9-]{0,8}\d[a-z0-9-]{0,6}\.(?:nano|micro|small|medium|large|\d{0,3}xlarge|metal(?:-\d{1,3}xl)?)\b/g,
    0,
    ['.nano', '.micro', '.small', '.medium', 'large', '.metal'],
  ],
  ['nodes', /\bip-\d{1,3}-\d{1,3}-\d{1,3}-\d{1,3}(?:\.[a-z0-9-]{1,40}){1,4}\b/g, 0, ['ip-']],
  // Not a StorageClass's provisioner: `external provisioner "ebs.csi.aws.com"`, `storage-provisioner: "…"`.
  [
    'nodepools',
    /(?<!external |[-/.])\b(?:nodepool|provisioner)[:=]? ?"([a-z0-9][a-z0-9.-]{0,62})"/gi,
    1,
    ['nodepool', 'provisioner'],
  ],
  ['nodepools', /\bnodepool\/([a-z0-9][a-z0-9.-]{0,62})/gi, 1, ['nodepool/']],
  // Karpenter v1.x wraps errors with their objects as `message (NodePool=name, Pod=namespace/name)`.
  ['nodepools', /\bNodePool=([a-z0-9][a-z0-9.-]{0,62})/g, 1, ['nodepool=']],
  ['nodeclaims', /\b(?:nodeclaim|machine)\/([a-z0-9][a-z0-9.-]{0,62})/gi, 1, ['nodeclaim/', 'machine/']],
  ['nodeclaims', /\bNodeClaim=([a-z0-9][a-z0-9.-]{0,62})/g, 1, ['nodeclaim=']],
  ['nodeclasses', /\b(?:EC2)?NodeClass=([a-z0-9][a-z0-9.-]{0,62})/g, 1, ['nodeclass=']],
  [
    'nodeclasses',
    /\b(?:ec2nodeclass|nodeclass|awsnodetemplate)(?:\.karpenter\.k8s\.aws)? "([a-z0-9][a-z0-9.-]{0,62})"/gi,
    1,
    ['nodeclass', 'awsnodetemplate'],
  ],
  // Not a subresource (an RBAC `forbidden` names `pods/eviction`, `pods/status`).
  [
    'pods',
    /\bpods?\/(?!(?:eviction|status|binding|log|exec|attach|portforward|proxy|ephemeralcontainers|resize)(?![a-z0-9.-]))([a-z0-9][a-z0-9.-]{0,252})/g,
    1,
    ['pod/', 'pods/'],
  ],
  ['pods', /\bpod[= ]"([a-z0-9][a-z0-9-]{0,62}\/[a-z0-9][a-z0-9.-]{0,252})"/gi, 1, ['pod="', 'pod "']],
  // `pod default/web-1 would schedule against …`, `(Pod=default/web-1)`; not "pod affinity/anti-affinity".
  [
    'pods',
    /\b(?:pod |Pod=)(?!affinity\/|anti-affinity\/)([a-z0-9][a-z0-9-]{0,62}\/[a-z0-9][a-z0-9.-]{0,252})/g,
    1,
    ['pod ', 'pod='],
  ],
  // The first running pod Karpenter's consolidation simulation could not place elsewhere:
  // `not all pods would schedule, ns/name => <reason>` (scheduling/scheduler.go, v0.32-v1.14).
  [
    'pods',
    /\bnot all pods would schedule, ([a-z0-9][a-z0-9-]{0,62}\/[a-z0-9][a-z0-9.-]{0,252}) =>/gi,
    1,
    ['not all pods would schedule, '],
  ],
  ['taints', /\btaint \{([^{}]{1,200})\}/g, 1, ['taint {']],
  ['taints', /\bdid not tolerate (?!taint\b)([^\s;,]{1,200})/g, 1, ['did not tolerate ']],
  ['taints', /\bdid not tolerate taint \(taint=([^\s;,()]{1,200})/g, 1, ['did not tolerate taint (taint=']],
  ['labels', /\blabel "([^"\s]{1,200})" does not have known values/g, 1, ['does not have known values']],
  ['labels', /\bincompatible requirements, key ([^\s,]{1,200})/g, 1, ['incompatible requirements, key ']],
  ['resources', /\b\d+ Insufficient ([a-zA-Z0-9./-]{1,60})/g, 1, [' insufficient ']],
  // A PersistentVolume (or the EBS volume behind it) by the operations that only act on one: the
  // attach/detach controller and kubelet device steps (`AttachVolume.Attach failed for volume "X"`,
  // `Multi-Attach error for volume "X"`, `MountVolume.MountDevice failed …`), the PV controller's
  // deleter, the EBS CSI driver (`Could not attach volume "vol-…"`) and Karpenter (`getting persistent
  // volume "X"`, `failed to validate pvc "c" with volume "X"`). Not `MountVolume.SetUp failed for
  // volume "X"` nor `unmounted volumes=[…]`: there X is the pod's own name for a volume (a ConfigMap,
  // a projected token, `data`) unless a PV backs it, and a PV name there is a `pvc-…` found above.
  [
    'volumes',
    /\b(?:(?:Attach|Detach|MountDevice|UnmountDevice|WaitForAttach|SetUpDevice|MapPodDevice) (?:failed|succeeded) for volume|Multi-Attach error for volume|deleter volume plugin for volume|persistent volume|pvc "[a-z0-9][a-z0-9.-]{0,252}" with volume|Could not (?:attach|detach|create|delete|modify|expand) volume) "([^"\s]{1,253})"/g,
    1,
    ['volume "'],
  ],
  // Karpenter v1.x wraps a volume error with its objects: `(PersistentVolumeClaim=ns/c, PersistentVolume=pv-1)`.
  ['volumes', /\bPersistentVolume=([a-z0-9][a-z0-9.-]{0,252})/g, 1, ['persistentvolume=']],
  // Karpenter names the PDB as `namespace/name`: `PDB "ns/name" prevents pod evictions` (v0.3x events),
  // `pdb "ns/name" prevents pod evictions` (v0.37-v1.7), `can't drain node, PDB "ns/name" is blocking
  // evictions` (unquoted in v0.32); v1.8+ says `pdb prevents pod evictions (PodDisruptionBudget=[ns/name])`
  // (below). A word after "PDB" without a slash is prose: "PDB is", "violates a PDB of the pod".
  ['pdbs', /\bpdb \\?"?([a-z0-9][a-z0-9-]{0,62}\/[a-z0-9][a-z0-9.-]{0,252})/gi, 1, ['pdb ']],
  // v1.8+ lists every blocking PDB in one bracket, as Go prints a slice: `PodDisruptionBudget(s)=[ns/a ns/b]`;
  // the whole list is captured and split into its names (PDB_LIST).
  ['pdbs', /\bPodDisruptionBudget(?:\(s\))?=\[([a-z0-9][a-z0-9 ,/.-]{0,1000})\]/g, 1, ['poddisruptionbudget']],
  [
    'quotas',
    /\b(VcpuLimitExceeded|MaxSpotInstanceCountExceeded|InstanceLimitExceeded|NetworkInterfaceLimitExceeded|MaxFleetCountExceeded)\b/g,
    1,
    ['exceeded'],
  ],
  [
    'errorCodes',
    /\b(Insufficient[A-Za-z]{3,40}|Unfulfillable[A-Za-z]{0,20}|[A-Z][a-z]{1,12}[A-Za-z]{0,30}LimitExceeded|Invalid[A-Za-z]{2,40}(?:\.[A-Za-z]{2,20})?|UnauthorizedOperation|AccessDenied(?:Exception)?|AuthFailure(?:\.[A-Za-z]{2,60})?|SpotMaxPriceTooLow|WebIdentityErr|NoCredentialProviders|EC2RoleRequestError|EC2MetadataError|ExpiredToken(?:Exception)?|UnrecognizedClientException|Throttling(?:Exception)?|TooManyRequestsException|ParameterNotFound|LimitExceeded)\b/g,
    1,
    [
      'insufficient',
      'unfulfillable',
      'exceeded',
      'invalid',
      'unauthorizedoperation',
      'accessdenied',
      'authfailure',
      'spotmaxpricetoolow',
      'webidentityerr',
      'nocredentialproviders',
      'ec2rolerequesterror',
      'ec2metadataerror',
      'expiredtoken',
      'unrecognizedclientexception',
      'throttling',
      'toomanyrequestsexception',
      'parameternotfound',
    ],
  ],
  ['iamActions', /\bperform:? ([a-z0-9-]{2,30}:[A-Za-z0-9*]{2,60})/g, 1, ['perform']],
  // AWS SDK for Go v2: "operation error EC2: CreateFleet, …" names the call that failed.
  ['iamActions', /\boperation error ([A-Za-z0-9]{2,30}: [A-Za-z0-9]{2,60})/g, 1, ['operation error ']],
  ['tags', /\bselector map\[([a-zA-Z0-9./_-]{1,128}:[a-zA-Z0-9./_-]{0,256})\]/g, 1, ['selector map[']],
  ['endpoints', /\bhttps?:\/\/([a-z0-9.-]{1,100}\.amazonaws\.com(?:\.cn)?)/g, 1, ['.amazonaws.com']],
  ['images', /\bimage "([^"\s]{1,300})"/g, 1, ['image "']],
  ['capacityTypes', /\bcapacity-type(?: In \[|[":= ]{1,4})(spot|on-demand|reserved)\b/gi, 1, ['capacity-type']],
  [
    'serviceAccounts',
    /\bsystem:serviceaccount:([a-z0-9][a-z0-9.-]{0,62}:[a-z0-9][a-z0-9.-]{0,252})/g,
    1,
    ['system:serviceaccount:'],
  ],
  // The IAM authenticator's `arn="…"` field: the role a node (or user) presented to the API server.
  ['roles', /\barn="(arn:aws[a-z-]{0,10}:iam::\d{12}:role\/[\w+=,.@/-]{1,512})"/g, 1, ['arn="arn:aws']],
];

/**
 * Pulls every entity a record names: from its structured fields, its event, and its text. `gates`, when
 * given, are the ENTITY_GATES found in the record's text (the classifier finds them in the same pass
 * as its fragments); otherwise they are looked for here.
 */
export function extractEntities(record: LogRecord, gates?: readonly string[]): Entities {
  const found = new EntityCollector();
  fromFields(record.fields, found);
  const object = record.event?.object;
  if (object) {
    const kind = object.kind?.toLowerCase();
    if (kind === 'pod') found.add('pods', object.namespace ? `${object.namespace}/${object.name}` : object.name);
    else if (kind === 'node') found.add('nodes', object.name);
    else if (kind === 'nodeclaim' || kind === 'machine') found.add('nodeclaims', object.name);
    else if (kind === 'nodepool' || kind === 'provisioner') found.add('nodepools', object.name);
    else if (kind === 'ec2nodeclass' || kind === 'awsnodetemplate') found.add('nodeclasses', object.name);
  }
  const textGates = gates ?? entityGates().findAll(record.text).patterns();
  gatedTextEntities(record.text, textGates, found);
  for (const api of textApis(record.text, textGates)) found.add('karpenterApis', api);
  // Karpenter v0.32-v0.36 log through knative loggers (`controller.provisioner`); v1 logs as `controller`.
  if (
    found.count('karpenterApis') === 0 &&
    record.logger?.startsWith('controller.') &&
    /\b(?:nodepool|nodeclaim|ec2nodeclass)/i.test(record.text)
  ) {
    found.add('karpenterApis', 'karpenter.sh/v1beta1');
  }
  for (const namespace of karpenterNamespaces(record, found.values('serviceAccounts'))) {
    found.add('karpenterNamespaces', namespace);
  }
  for (const pod of found.values('pods')) {
    const workload = workloadOf(pod);
    if (workload) found.add('workloads', workload);
  }
  if (found.count('nodepools') === 0) {
    for (const claim of found.values('nodeclaims')) {
      const pool = /^(.+)-[a-z0-9]{5}$/.exec(claim)?.[1];
      if (pool) found.add('nodepools', pool);
    }
  }
  return found.toEntities();
}

/** The Karpenter API generations a text's terms show, each pattern tried only where its gates were found. */
function textApis(text: string, gates: readonly string[]): KarpenterApi[] {
  const apis: KarpenterApi[] = [];
  if (gates.length === 0) return apis;
  const selected = selectedBy(gates, API_PATTERNS_BY_GATE, API_SELECTED);
  for (let index = 0; index < API_TEXT_PATTERNS.length; index++) {
    if (selected[index] === 0) continue;
    const [api, pattern] = API_TEXT_PATTERNS[index]!;
    if (!apis.includes(api) && pattern.test(text)) apis.push(api);
  }
  if (gates.includes(PROVISIONER_GATE) && !apis.includes('karpenter.sh/v1alpha5')) {
    // A StorageClass's provisioner is a storage driver (`ebs.csi.aws.com`), never a Karpenter Provisioner.
    PROVISIONER_NAMED.lastIndex = 0;
    for (let match = PROVISIONER_NAMED.exec(text); match !== null; match = PROVISIONER_NAMED.exec(text)) {
      if (isNodePoolName(match[1]!)) {
        apis.push('karpenter.sh/v1alpha5');
        break;
      }
    }
  }
  return apis;
}

/**
 * Adds the entities named in `text` to `found`, in the patterns' order; each pattern runs only where
 * one of its gates was found. No cache of texts: hashing a whole text cost more than it saved.
 */
function gatedTextEntities(text: string, gates: readonly string[], found: EntityCollector): void {
  if (gates.length === 0) return;
  // The patterns whose gates were found, run in their order. exec with lastIndex, not matchAll:
  // matchAll clones its regular expression on every call.
  const selected = selectedBy(gates, PATTERNS_BY_GATE, SELECTED);
  for (let index = 0; index < TEXT_PATTERNS.length; index++) {
    if (selected[index] === 0) continue;
    const [kind, pattern, group] = TEXT_PATTERNS[index]!;
    pattern.lastIndex = 0;
    for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) {
      const value = match[group];
      if (!value) continue;
      if (kind !== 'pdbs') found.add(kind, normalise(kind, value));
      else {
        for (const pdb of value.split(/[ ,]+/)) {
          const name = normalise(kind, pdb);
          if (PDB_NAME.test(name)) found.add(kind, name);
        }
      }
    }
  }
  if (gates.includes(ASSUMED_ROLE_GATE)) {
    ASSUMED_ROLE.lastIndex = 0;
    for (let match = ASSUMED_ROLE.exec(text); match !== null; match = ASSUMED_ROLE.exec(text)) {
      found.add('roles', `arn:${match[1]}:iam::${match[2]}:role/${match[3]}`);
    }
  }
  if (gates.includes('too many pods') && /too many pods/i.test(text)) found.add('resources', 'pods');
  if (gates.includes('spot') && /\bspot\b/i.test(text) && /maxspotinstancecount|spot instances|spot node/i.test(text)) {
    found.add('capacityTypes', 'spot');
  }
}

/**
 * Marks in `selected` (reused: one record at a time) the patterns that the found gates open: from the
 * few gates found, not each pattern's gates looked up in them.
 */
function selectedBy(gates: readonly string[], byGate: ReadonlyMap<string, number[]>, selected: Uint8Array): Uint8Array {
  selected.fill(0);
  for (const gate of gates) {
    const opened = byGate.get(gate);
    if (opened) for (const index of opened) selected[index] = 1;
  }
  return selected;
}

/** Gate → the indexes of the patterns it opens, for patterns listed with their gates. */
function indexByGate(gatesOfPatterns: ReadonlyArray<readonly string[]>): Map<string, number[]> {
  const byGate = new Map<string, number[]>();
  gatesOfPatterns.forEach((gates, index) => {
    for (const gate of gates) byGate.set(gate, [...(byGate.get(gate) ?? []), index]);
  });
  return byGate;
}

const PATTERNS_BY_GATE = indexByGate(TEXT_PATTERNS.map(([, , , gates]) => gates));
const SELECTED = new Uint8Array(TEXT_PATTERNS.length);
const API_PATTERNS_BY_GATE = indexByGate(API_TEXT_PATTERNS.map(([, , gates]) => gates));
const API_SELECTED = new Uint8Array(API_TEXT_PATTERNS.length);

/** Every gate of every text pattern (lower case). */
export const ENTITY_GATES: readonly string[] = [
  ...new Set([
    ...TEXT_PATTERNS.flatMap(([, , , gates]) => gates),
    ...API_TEXT_PATTERNS.flatMap(([, , gates]) => gates),
    PROVISIONER_GATE,
    ':assumed-role/',
    'too many pods',
    'spot',
  ]),
];

/** The gates as one automaton, built on first use (case ignored). */
let entityGatesMemo: SubstringMatcher | undefined;
const entityGates = (): SubstringMatcher => (entityGatesMemo ??= new SubstringMatcher(ENTITY_GATES));

/** One `namespace/name` of a PDB list: a bracket may also hold prose or a name without its namespace. */
const PDB_NAME = /^[a-z0-9][a-z0-9-]{0,62}\/[a-z0-9][a-z0-9.-]{0,252}$/;

const ASSUMED_ROLE_GATE = ':assumed-role/';
const ASSUMED_ROLE = /\barn:(aws[a-z-]{0,10}):sts::(\d{12}):assumed-role\/([\w+=,.@-]{1,64})\//g;

/**
 * The structured fields that name entities: field → its slot and its rank in the slot (the first
 * field of a slot that is present wins: `NodeClaim` before `nodeclaim` before `Machine`).
 */
const FIELD_SLOTS: ReadonlyMap<string, readonly [slot: number, rank: number]> = new Map(
  Object.entries({
    NodeClaim: [0, 0],
    nodeclaim: [0, 1],
    Machine: [0, 2],
    machine: [0, 3],
    NodePool: [1, 0],
    nodepool: [1, 1],
    Provisioner: [1, 2],
    provisioner: [1, 3],
    EC2NodeClass: [2, 0],
    nodeclass: [2, 1],
    AWSNodeTemplate: [2, 2],
    Node: [3, 0],
    node: [3, 1],
    hostname: [4, 0],
    'instance-type': [5, 0],
    zone: [6, 0],
    'capacity-type': [7, 0],
    queue: [8, 0],
    // `volume` is the pod's name for a volume (`mypd`), not a PersistentVolume: not read.
    PersistentVolume: [9, 0],
    'persistent-volume': [9, 1],
    Pod: [10, 0],
    pod: [10, 1],
    'provider-id': [11, 0],
    StorageClass: [12, 0],
    'storage-class': [12, 1],
    controllerKind: [13, 0],
    'reconciler kind': [13, 1],
  } as Record<string, readonly [number, number]>),
);
const SLOTS = 14;
const RANKS = 4;
/** The present fields by slot and rank (reused: one record at a time, cleared after each). */
const FIELD_VALUES = new Array<unknown>(SLOTS * RANKS).fill(undefined);

/** The first field of a slot that is present: a name, or an object's `name`. */
function namedIn(slots: readonly unknown[], slot: number): string | undefined {
  for (let rank = 0; rank < RANKS; rank++) {
    const value = slots[slot * RANKS + rank];
    if (typeof value === 'string') return value;
    if (isObject(value) && typeof value.name === 'string') return value.name;
  }
  return undefined;
}

/**
 * Entities from a record's structured fields. One pass over the keys the record has, not a lookup of
 * every key it might have: the fields of JSON lines come in many shapes, and a lookup of an absent
 * key on an object of yet another shape was the largest single cost of extraction.
 */
function fromFields(fields: Readonly<Record<string, unknown>>, found: EntityCollector): void {
  let any = false;
  for (const key in fields) {
    const place = FIELD_SLOTS.get(key);
    if (place === undefined) continue;
    FIELD_VALUES[place[0] * RANKS + place[1]] = fields[key];
    any = true;
  }
  if (!any) return;
  try {
    namedFields(FIELD_VALUES, found);
  } finally {
    // Cleared however it ends, so no value of this record is read as the next one's.
    FIELD_VALUES.fill(undefined);
  }
}

/** The entities the present fields name, by slot. */
function namedFields(slots: unknown[], found: EntityCollector): void {
  // Karpenter v0.x names its Provisioner in `provisioner`; beside `storage-class` that field is the
  // StorageClass's provisioner (`kubernetes.io/aws-ebs`), a storage driver, never a NodePool.
  if (slots[12 * RANKS] !== undefined || slots[12 * RANKS + 1] !== undefined) slots[1 * RANKS + 3] = undefined;
  found.add('karpenterApis', apiOfFields(slots));
  const named = (slot: number) => namedIn(slots, slot);
  found.add('nodeclaims', named(0));
  found.add('nodepools', named(1));
  found.add('nodeclasses', named(2));
  found.add('nodes', named(3));
  // A host line (kubelet, nodeadm) names its host, which is the node's name on EKS (private DNS name or instance id).
  const host = named(4);
  if (host && NODE_HOST.test(host)) found.add('nodes', host);
  found.add('instanceTypes', named(5));
  found.add('zones', named(6));
  found.add('capacityTypes', named(7));
  found.add('queues', named(8));
  found.add('volumes', named(9));
  found.add('storageClasses', named(12));
  const pod = slots[10 * RANKS] ?? slots[10 * RANKS + 1];
  if (isObject(pod) && typeof pod.name === 'string') {
    found.add('pods', typeof pod.namespace === 'string' && pod.namespace ? `${pod.namespace}/${pod.name}` : pod.name);
  } else if (typeof pod === 'string') {
    found.add('pods', pod);
  }
  const providerId = named(11);
  const provider = providerId ? /^aws:\/\/\/([a-z0-9-]{1,30})\/(i-[0-9a-f]{8,17})$/.exec(providerId) : null;
  if (provider) {
    found.add('zones', provider[1]);
    found.add('instances', provider[2]);
  }
}

/**
 * The API generation the field names show: `provisioner`, `machine` and their objects are v1alpha5's
 * (v0.31 and before); lower-case `nodepool`/`nodeclaim` are v0.32-v0.36's knative fields, which v0.37
 * and v1 write as objects (`"NodePool":{"name":…}`), as v0.34+ reconciler errors do too.
 */
function apiOfFields(slots: readonly unknown[]): KarpenterApi | undefined {
  const has = (slot: number, rank: number) => slots[slot * RANKS + rank] !== undefined;
  const kind = slots[13 * RANKS] ?? slots[13 * RANKS + 1];
  if (has(0, 2) || has(0, 3) || has(1, 2) || has(1, 3) || has(2, 2)) return 'karpenter.sh/v1alpha5';
  if (typeof kind === 'string' && OLD_CONTROLLER_KINDS.has(kind)) return 'karpenter.sh/v1alpha5';
  if (has(0, 1) || has(1, 1)) return 'karpenter.sh/v1beta1';
  return undefined;
}

const NODE_HOST = /^(?:ip-\d{1,3}-\d{1,3}-\d{1,3}-\d{1,3}|i-[0-9a-f]{8,17})(?:\.[a-z0-9-]{1,63}){0,4}$/;

/**
 * A name a NodePool (or v0.x Provisioner) can have: a DNS subdomain, and not a storage driver's name
 * (`ebs.csi.aws.com`, `kubernetes.io/aws-ebs`), which a StorageClass's `provisioner` holds.
 */
export const isNodePoolName = (value: string): boolean =>
  /^[a-z0-9](?:[a-z0-9.-]{0,251}[a-z0-9])?$/.test(value) && !STORAGE_DRIVER.test(value);

const STORAGE_DRIVER = /(?:^|\.)csi(?:\.|$)|\.(?:com|io|org|net|aws)$/;

function normalise(kind: EntityKind, value: string): string {
  const normalised = normaliseKind(kind, value);
  // The replace only where the last character is punctuation: most values end with a letter or digit.
  return PUNCTUATION.has(normalised.charCodeAt(normalised.length - 1))
    ? normalised.replace(TRAILING_PUNCTUATION, '')
    : normalised;
}

/**
 * Punctuation that ends the sentence or the wrapper around a name (`Insufficient cpu.`,
 * `nodepool/default,`, `(NodePool=batch)`): no Kubernetes or AWS name ends with it.
 */
const TRAILING_PUNCTUATION = /[.,;!?)\]}'"`]{1,10}$/;
const PUNCTUATION = new Set([...'.,;!?)]}\'"`'].map((char) => char.charCodeAt(0)));

function normaliseKind(kind: EntityKind, value: string): string {
  if (kind === 'taints') {
    // kube-scheduler prints {key: value}; kubectl and Karpenter use key=value[:Effect].
    if (value.includes('=') || /^[^\s:]+:(?:NoSchedule|PreferNoSchedule|NoExecute)$/.test(value)) return value;
    const [key, ...rest] = value.split(':');
    const taintValue = rest.join(':').trim();
    return taintValue ? `${key!.trim()}=${taintValue}` : key!.trim();
  }
  if (kind === 'resources' || kind === 'capacityTypes') return value.toLowerCase();
  if (kind === 'serviceAccounts') return value.replace(':', '/');
  if (kind === 'iamActions' && value.includes(': ')) {
    const [service, action] = value.split(': ') as [string, string];
    return `${service.toLowerCase()}:${action}`;
  }
  return value;
}

const POD_HASH = '[bcdfghjklmnpqrstvwxz2456789]';
const DEPLOYMENT_POD = new RegExp(`^(.{1,200})-${POD_HASH}{6,10}-${POD_HASH}{5}$`);
const STATEFULSET_POD = /^(.{1,200})-\d{1,5}$/;
const GENERATED_POD = new RegExp(`^(.{1,200})-${POD_HASH}{5}$`);

/**
 * The workload a pod belongs to, from the names Kubernetes generates: `<deployment>-<rs hash>-<id>`,
 * `<statefulset>-<ordinal>`, `<daemonset|job>-<id>`. Returns `namespace/kind/name`.
 */
export function workloadOf(pod: string): string | undefined {
  const slash = pod.indexOf('/');
  const namespace = slash > 0 ? pod.slice(0, slash) : 'default';
  const name = slash > 0 ? pod.slice(slash + 1) : pod;
  if (name.length > 253) return undefined;
  const deployment = DEPLOYMENT_POD.exec(name);
  if (deployment) return `${namespace}/deployment/${deployment[1]}`;
  const statefulSet = STATEFULSET_POD.exec(name);
  if (statefulSet) return `${namespace}/statefulset/${statefulSet[1]}`;
  const generated = GENERATED_POD.exec(name);
  if (generated) return `${namespace}/workload/${generated[1]}`;
  return undefined;
}

/**
 * Where the Karpenter controller runs, so that advice names its namespace rather than assuming one:
 * the namespace of the pod that wrote the line (Fluent Bit metadata or kubectl prefix), of a
 * Container Insights log stream of a Karpenter container (`<pod>_<namespace>_<container>-<id>`), or of
 * a Karpenter service account named in the text.
 */
function karpenterNamespaces(record: LogRecord, serviceAccounts: Iterable<string>): string[] {
  const namespaces: string[] = [];
  const source = record.source;
  if (source?.namespace && isKarpenterPod(`${source.namespace}/${source.name}`)) namespaces.push(source.namespace);
  const stream = record.origin.logStream ? KARPENTER_STREAM.exec(record.origin.logStream) : null;
  if (stream) namespaces.push(stream[1]!);
  for (const account of serviceAccounts) {
    const [namespace, name] = account.split('/') as [string, string];
    if (/^karpenter(?:-controller)?$/.test(name)) namespaces.push(namespace);
  }
  return namespaces;
}

const KARPENTER_STREAM = /(?:^|[./])karpenter(?:-controller)?-[a-z0-9]{6,10}-[a-z0-9]{5}_([a-z0-9][a-z0-9-]{0,62})_/;

/** The patterns above that are not text patterns, for the linear-time check in the tests. */
export const NAME_PATTERNS: readonly RegExp[] = [
  NODE_HOST,
  KARPENTER_STREAM,
  STORAGE_DRIVER,
  PROVISIONER_NAMED,
  ...API_TEXT_PATTERNS.map(([, pattern]) => pattern),
];

/** A pod of the Karpenter controller deployment (`karpenter-<rs hash>-<id>`). */
export const isKarpenterPod = (pod: string): boolean =>
  /^(?:[a-z0-9-]{1,63}\/)?karpenter(?:-controller)?-[a-z0-9]{6,10}-[a-z0-9]{5}$/.test(pod);

const NONE: readonly string[] = [];

/** A record's values by kind, in the order first named, each kind at most MAX_PER_KIND. */
class EntityCollector {
  // Arrays, not sets: a record names a few values of a kind, and a set per kind cost more to make.
  private readonly entities: Entities = {};

  add(kind: EntityKind, value: string | undefined): void {
    if (!value) return;
    if (kind === 'nodepools' && !isNodePoolName(value)) return;
    const values = this.entities[kind];
    if (values === undefined) this.entities[kind] = [value];
    else if (values.length < MAX_PER_KIND && !values.includes(value)) values.push(value);
  }

  /** The values of a kind so far; iterate before adding more of the same kind. */
  values(kind: EntityKind): readonly string[] {
    return this.entities[kind] ?? NONE;
  }

  count(kind: EntityKind): number {
    return this.entities[kind]?.length ?? 0;
  }

  /** The values, each kind's sorted (the collector is not used after). */
  toEntities(): Entities {
    const entities = this.entities;
    for (const kind in entities) {
      const values = entities[kind as EntityKind]!;
      if (values.length > 1) values.sort();
    }
    return entities;
  }
}
