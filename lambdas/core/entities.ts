import { isObject } from './json';
import type { PatternPlaces } from './native-find';
import { Found, SubstringMatcher } from './substring-matcher';
import { ENTITY_KINDS, type Entities, type EntityKind, type LogRecord } from './model';

/** At most this many values of one kind are kept per record: enough to act on, bounded for hostile input. */
const MAX_PER_KIND = 25;

/** Each entity kind's index in ENTITY_KINDS: the collector keeps a kind's values at its index. */
const K = Object.fromEntries(ENTITY_KINDS.map((kind, index) => [kind, index])) as Readonly<Record<EntityKind, number>>;

/**
 * Where the matches of a text pattern can start, relative to a literal every match (or every match of
 * one alternative) holds: `[literal, 0]`, at the literal; `[literal, n]`, at the start of a word (a
 * word character after a non-word one, as `\b` sees them) at most n characters before it; `[literal,
 * WORD]`, at the start of the word the literal is in. The literal is looked for with indexOf as
 * written, or in the lower-cased text when the pattern ignores case (it is then written in lower
 * case); a literal holding one of the pattern's gates is looked for only when that gate was found.
 */
type Anchor = readonly [literal: string, start: number];
const WORD = -1;
const at = (...literals: string[]): Anchor[] => literals.map((literal) => [literal, 0]);
const before = (distance: number, ...literals: string[]): Anchor[] => literals.map((literal) => [literal, distance]);

// Each has its gates: lower-case literals of which every match holds one (case ignored). A pattern
// runs only on a text where one of its gates was found, and the gates are all found in one pass
// (ENTITY_GATES): most patterns have nothing to find in most texts, and one without a literal start
// (zones, instance types, error codes) is otherwise tried at every word of the text. Then it is tried
// only where its anchors say a match can start (a pattern without anchors runs over the whole text).
//
// Every pattern below uses bounded repetitions of a single class, so each is linear-time.
export const TEXT_PATTERNS: ReadonlyArray<
  readonly [EntityKind, RegExp, number, readonly string[], readonly Anchor[] | undefined]
> = [
  ['subnets', /\bsubnet-[0-9a-f]{8,17}\b/g, 0, ['subnet-'], at('subnet-')],
  ['securityGroups', /\bsg-[0-9a-f]{8,17}\b/g, 0, ['sg-'], at('sg-')],
  ['amis', /\bami-[0-9a-f]{8,17}\b/g, 0, ['ami-'], at('ami-')],
  ['instances', /\bi-[0-9a-f]{8,17}\b/g, 0, ['i-'], at('i-')],
  ['volumes', /\bvol-[0-9a-f]{8,17}\b/g, 0, ['vol-'], at('vol-')],
  ['volumes', /\bpvc-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/g, 0, ['pvc-'], at('pvc-')],
  // The direction starts at most 8 characters in (`us-isob-`), and `east-` is 5 into `northeast-`.
  [
    'zones',
    /\b(?:af|ap|ca|cn|eu|il|me|mx|sa|us)(?:-gov|-iso[a-z]?)?-(?:north|south|east|west|central|northeast|northwest|southeast|southwest)-\d[a-z]\b/g,
    0,
    ['north-', 'south-', 'east-', 'west-', 'central-'],
    before(13, 'north-', 'south-', 'east-', 'west-', 'central-'),
  ],
  // The dot is 2 to 16 characters in; `large` at most 5 after it (`.192xlarge`).
  [
    'instanceTypes',
    /\b[a-z][a-z0-9-]{0,8}\d[a-z0-9-]{0,6}\.(?:nano|micro|small|medium|large|\d{0,3}xlarge|metal(?:-\d{1,3}xl)?)\b/g,
    0,
    ['.nano', '.micro', '.small', '.medium', 'large', '.metal'],
    [...before(16, '.nano', '.micro', '.small', '.medium', '.metal'), ...before(21, 'large')],
  ],
  ['nodes', /\bip-\d{1,3}-\d{1,3}-\d{1,3}-\d{1,3}(?:\.[a-z0-9-]{1,40}){1,4}\b/g, 0, ['ip-'], at('ip-')],
  // Not a StorageClass's provisioner: `external provisioner "ebs.csi.aws.com"`, `storage-provisioner: "…"`.
  [
    'nodepools',
    /(?<!external |[-/.])\b(?:nodepool|provisioner)[:=]? ?"([a-z0-9][a-z0-9.-]{0,62})"/gi,
    1,
    ['nodepool', 'provisioner'],
    at('nodepool', 'provisioner'),
  ],
  ['nodepools', /\bnodepool\/([a-z0-9][a-z0-9.-]{0,62})/gi, 1, ['nodepool/'], at('nodepool/')],
  // Karpenter v1.x wraps errors with their objects as `message (NodePool=name, Pod=namespace/name)`.
  ['nodepools', /\bNodePool=([a-z0-9][a-z0-9.-]{0,62})/g, 1, ['nodepool='], at('NodePool=')],
  [
    'nodeclaims',
    /\b(?:nodeclaim|machine)\/([a-z0-9][a-z0-9.-]{0,62})/gi,
    1,
    ['nodeclaim/', 'machine/'],
    at('nodeclaim/', 'machine/'),
  ],
  ['nodeclaims', /\bNodeClaim=([a-z0-9][a-z0-9.-]{0,62})/g, 1, ['nodeclaim='], at('NodeClaim=')],
  ['nodeclasses', /\b(?:EC2)?NodeClass=([a-z0-9][a-z0-9.-]{0,62})/g, 1, ['nodeclass='], before(3, 'NodeClass=')],
  [
    'nodeclasses',
    /\b(?:ec2nodeclass|nodeclass|awsnodetemplate)(?:\.karpenter\.k8s\.aws)? "([a-z0-9][a-z0-9.-]{0,62})"/gi,
    1,
    ['nodeclass', 'awsnodetemplate'],
    [...before(3, 'nodeclass'), ...at('awsnodetemplate')],
  ],
  // Not a subresource (an RBAC `forbidden` names `pods/eviction`, `pods/status`).
  [
    'pods',
    /\bpods?\/(?!(?:eviction|status|binding|log|exec|attach|portforward|proxy|ephemeralcontainers|resize)(?![a-z0-9.-]))([a-z0-9][a-z0-9.-]{0,252})/g,
    1,
    ['pod/', 'pods/'],
    at('pod/', 'pods/'),
  ],
  [
    'pods',
    /\bpod[= ]"([a-z0-9][a-z0-9-]{0,62}\/[a-z0-9][a-z0-9.-]{0,252})"/gi,
    1,
    ['pod="', 'pod "'],
    at('pod="', 'pod "'),
  ],
  // `pod default/web-1 would schedule against …`, `(Pod=default/web-1)`; not "pod affinity/anti-affinity".
  [
    'pods',
    /\b(?:pod |Pod=)(?!affinity\/|anti-affinity\/)([a-z0-9][a-z0-9-]{0,62}\/[a-z0-9][a-z0-9.-]{0,252})/g,
    1,
    ['pod ', 'pod='],
    at('pod ', 'Pod='),
  ],
  // The first running pod Karpenter's consolidation simulation could not place elsewhere:
  // `not all pods would schedule, ns/name => <reason>` (scheduling/scheduler.go, v0.32-v1.14).
  [
    'pods',
    /\bnot all pods would schedule, ([a-z0-9][a-z0-9-]{0,62}\/[a-z0-9][a-z0-9.-]{0,252}) =>/gi,
    1,
    ['not all pods would schedule, '],
    at('not all pods would schedule, '),
  ],
  ['taints', /\btaint \{([^{}]{1,200})\}/g, 1, ['taint {'], at('taint {')],
  ['taints', /\bdid not tolerate (?!taint\b)([^\s;,]{1,200})/g, 1, ['did not tolerate '], at('did not tolerate ')],
  [
    'taints',
    /\bdid not tolerate taint \(taint=([^\s;,()]{1,200})/g,
    1,
    ['did not tolerate taint (taint='],
    at('did not tolerate taint (taint='),
  ],
  ['labels', /\blabel "([^"\s]{1,200})" does not have known values/g, 1, ['does not have known values'], at('label "')],
  [
    'labels',
    /\bincompatible requirements, key ([^\s,]{1,200})/g,
    1,
    ['incompatible requirements, key '],
    at('incompatible requirements, key '),
  ],
  ['resources', /\b\d+ Insufficient ([a-zA-Z0-9./-]{1,60})/g, 1, [' insufficient '], [[' Insufficient ', WORD]]],
  // A PersistentVolume (or the EBS volume behind it) by the operations that only act on one: the
  // attach/detach controller and kubelet device steps (`AttachVolume.Attach failed for volume "X"`,
  // `Multi-Attach error for volume "X"`, `MountVolume.MountDevice failed …`), the PV controller's
  // deleter, the EBS CSI driver (`Could not attach volume "vol-…"`) and Karpenter (`getting persistent
  // volume "X"`, `failed to validate pvc "c" with volume "X"`). Not `MountVolume.SetUp failed for
  // volume "X"` nor `unmounted volumes=[…]`: there X is the pod's own name for a volume (a ConfigMap,
  // a projected token, `data`) unless a PV backs it, and a PV name there is a `pvc-…` found above.
  // No anchors: a match starts up to 270 characters before its `volume "`, at one of twelve words.
  [
    'volumes',
    /\b(?:(?:Attach|Detach|MountDevice|UnmountDevice|WaitForAttach|SetUpDevice|MapPodDevice) (?:failed|succeeded) for volume|Multi-Attach error for volume|deleter volume plugin for volume|persistent volume|pvc "[a-z0-9][a-z0-9.-]{0,252}" with volume|Could not (?:attach|detach|create|delete|modify|expand) volume) "([^"\s]{1,253})"/g,
    1,
    ['volume "'],
    undefined,
  ],
  // Karpenter v1.x wraps a volume error with its objects: `(PersistentVolumeClaim=ns/c, PersistentVolume=pv-1)`.
  ['volumes', /\bPersistentVolume=([a-z0-9][a-z0-9.-]{0,252})/g, 1, ['persistentvolume='], at('PersistentVolume=')],
  // Karpenter names the PDB as `namespace/name`: `PDB "ns/name" prevents pod evictions` (v0.3x events),
  // `pdb "ns/name" prevents pod evictions` (v0.37-v1.7), `can't drain node, PDB "ns/name" is blocking
  // evictions` (unquoted in v0.32); v1.8+ says `pdb prevents pod evictions (PodDisruptionBudget=[ns/name])`
  // (below). A word after "PDB" without a slash is prose: "PDB is", "violates a PDB of the pod".
  ['pdbs', /\bpdb \\?"?([a-z0-9][a-z0-9-]{0,62}\/[a-z0-9][a-z0-9.-]{0,252})/gi, 1, ['pdb '], at('pdb ')],
  // v1.8+ lists every blocking PDB in one bracket, as Go prints a slice: `PodDisruptionBudget(s)=[ns/a ns/b]`;
  // the whole list is captured and split into its names (PDB_LIST).
  [
    'pdbs',
    /\bPodDisruptionBudget(?:\(s\))?=\[([a-z0-9][a-z0-9 ,/.-]{0,1000})\]/g,
    1,
    ['poddisruptionbudget'],
    at('PodDisruptionBudget'),
  ],
  // The value is the whole match (group 0, the same as the group): read without a match array.
  [
    'quotas',
    /\b(VcpuLimitExceeded|MaxSpotInstanceCountExceeded|InstanceLimitExceeded|NetworkInterfaceLimitExceeded|MaxFleetCountExceeded)\b/g,
    0,
    ['exceeded'],
    [['Exceeded', WORD]],
  ],
  [
    'errorCodes',
    /\b(Insufficient[A-Za-z]{3,40}|Unfulfillable[A-Za-z]{0,20}|[A-Z][a-z]{1,12}[A-Za-z]{0,30}LimitExceeded|Invalid[A-Za-z]{2,40}(?:\.[A-Za-z]{2,20})?|UnauthorizedOperation|AccessDenied(?:Exception)?|AuthFailure(?:\.[A-Za-z]{2,60})?|SpotMaxPriceTooLow|WebIdentityErr|NoCredentialProviders|EC2RoleRequestError|EC2MetadataError|ExpiredToken(?:Exception)?|UnrecognizedClientException|Throttling(?:Exception)?|TooManyRequestsException|ParameterNotFound|LimitExceeded)\b/g,
    0,
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
    [
      ...at('Insufficient', 'Unfulfillable', 'Invalid', 'UnauthorizedOperation', 'AccessDenied', 'AuthFailure'),
      ...at('SpotMaxPriceTooLow', 'WebIdentityErr', 'NoCredentialProviders', 'EC2RoleRequestError'),
      ...at('EC2MetadataError', 'ExpiredToken', 'UnrecognizedClientException', 'Throttling'),
      ...at('TooManyRequestsException', 'ParameterNotFound'),
      ['LimitExceeded', WORD],
    ],
  ],
  ['iamActions', /\bperform:? ([a-z0-9-]{2,30}:[A-Za-z0-9*]{2,60})/g, 1, ['perform'], at('perform')],
  // AWS SDK for Go v2: "operation error EC2: CreateFleet, …" names the call that failed.
  [
    'iamActions',
    /\boperation error ([A-Za-z0-9]{2,30}: [A-Za-z0-9]{2,60})/g,
    1,
    ['operation error '],
    at('operation error '),
  ],
  [
    'tags',
    /\bselector map\[([a-zA-Z0-9./_-]{1,128}:[a-zA-Z0-9./_-]{0,256})\]/g,
    1,
    ['selector map['],
    at('selector map['),
  ],
  ['endpoints', /\bhttps?:\/\/([a-z0-9.-]{1,100}\.amazonaws\.com(?:\.cn)?)/g, 1, ['.amazonaws.com'], at('http')],
  ['images', /\bimage "([^"\s]{1,300})"/g, 1, ['image "'], at('image "')],
  [
    'capacityTypes',
    /\bcapacity-type(?: In \[|[":= ]{1,4})(spot|on-demand|reserved)\b/gi,
    1,
    ['capacity-type'],
    at('capacity-type'),
  ],
  [
    'serviceAccounts',
    /\bsystem:serviceaccount:([a-z0-9][a-z0-9.-]{0,62}:[a-z0-9][a-z0-9.-]{0,252})/g,
    1,
    ['system:serviceaccount:'],
    at('system:serviceaccount:'),
  ],
  // The IAM authenticator's `arn="…"` field: the role a node (or user) presented to the API server.
  [
    'roles',
    /\barn="(arn:aws[a-z-]{0,10}:iam::\d{12}:role\/[\w+=,.@/-]{1,512})"/g,
    1,
    ['arn="arn:aws'],
    at('arn="arn:aws'),
  ],
];

/**
 * Pulls every entity a record names: from its structured fields, its event, and its text. `gates`, when
 * given, are the ENTITY_GATES found in the record's text (the classifier finds them in the same pass
 * as its fragments); otherwise they are looked for here.
 */
export function extractEntities(record: LogRecord, gates?: ReadonlySet<string>): Entities {
  const found = COLLECTOR;
  found.clear();
  fromFields(record.fields, found);
  const object = record.event?.object;
  if (object) {
    const kind = object.kind?.toLowerCase();
    if (kind === 'pod') found.add(K.pods, object.namespace ? `${object.namespace}/${object.name}` : object.name);
    else if (kind === 'node') found.add(K.nodes, object.name);
    else if (kind === 'nodeclaim' || kind === 'machine') found.add(K.nodeclaims, object.name);
    else if (kind === 'nodepool' || kind === 'provisioner') found.add(K.nodepools, object.name);
    else if (kind === 'ec2nodeclass' || kind === 'awsnodetemplate') found.add(K.nodeclasses, object.name);
  }
  textEntities(record.text, gates ?? entityGates().findAll(record.text), found);
  karpenterNamespaces(record, found);
  const pods = found.values(K.pods);
  if (pods) {
    for (let i = 0, count = pods.length; i < count; i++) {
      const workload = workloadOf(pods[i]!);
      if (workload) found.add(K.workloads, workload);
    }
  }
  const claims = found.values(K.nodeclaims);
  if (claims && !found.values(K.nodepools)) {
    for (let i = 0, count = claims.length; i < count; i++) {
      const pool = claimPool(claims[i]!);
      if (pool) found.add(K.nodepools, pool);
    }
  }
  return found.toEntities();
}

/**
 * The NodePool a generated NodeClaim name holds (`<nodepool>-<5 characters>`): what CLAIM_POOL
 * captures, read by hand (the expression and its match array cost more than the name's few characters).
 */
export function claimPool(claim: string): string | undefined {
  const length = claim.length;
  if (length < 7 || claim.charCodeAt(length - 6) !== 45) return undefined;
  for (let i = length - 5; i < length; i++) if (!isLowerAlnum(claim.charCodeAt(i))) return undefined;
  // `.` is any character but a line terminator.
  for (let i = 0; i < length - 6; i++) {
    const code = claim.charCodeAt(i);
    if (code === 10 || code === 13 || code === 0x2028 || code === 0x2029) return undefined;
  }
  return claim.slice(0, length - 6);
}
/** What claimPool reads (kept for the test that holds it to this). */
export const CLAIM_POOL = /^(.+)-[a-z0-9]{5}$/;
/** [a-z0-9] */
const isLowerAlnum = (code: number): boolean => (code >= 97 && code <= 122) || (code >= 48 && code <= 57);

/**
 * Entities named in a text, into `found`. Each pattern runs only where one of its gates was found
 * (most patterns have nothing to find in most texts), and then only where its anchors say a match
 * can start: the anchors' literals are found with indexOf (native, and most texts hold each once or
 * not at all) and the pattern is tried there, sticky, in the order of those places. The values come
 * out as the pattern run over the whole text finds them (the leftmost match, then the leftmost one
 * after it), since every place a match can start is tried, in order. No cache of texts: looking a
 * text up in one hashes and compares the whole text, which cost more than the gated patterns it
 * saved, and made the cost of a delivery depend on how often its texts repeat (npm run bench,
 * filtered stream).
 */
function textEntities(text: string, gates: ReadonlySet<string>, found: EntityCollector): void {
  if (gates.size === 0) return;
  // The patterns whose gates were found (pattern i is bit i of two words), and of each the anchors
  // whose gates were found, marked from the few gates found, not each pattern's gates looked up in them.
  let low = 0;
  let high = 0;
  let others = 0;
  if (gates instanceof Found) {
    // The classifier's scan: the gates by their indexes into its automaton's patterns, without hashing.
    const { table, anchorGates } = gatesOf(gates.patterns);
    // Where the gates are, when the scan knows: the anchors holding them need not be looked for.
    places = gates.places;
    placesOfAnchors = anchorGates;
    const order = gates.order;
    for (let i = 0, count = gates.count; i < count; i++) {
      const opens = table[order[i]! - 1];
      if (opens === undefined) continue;
      low |= opens.low;
      high |= opens.high;
      others |= opens.others;
      const anchors = opens.anchors;
      for (let a = 0; a < anchors.length; a += 2) ACTIVE[anchors[a]!]! |= anchors[a + 1]!;
    }
  } else {
    places = undefined;
    for (const gate of gates) {
      const opens = BY_GATE.get(gate);
      if (opens === undefined) continue;
      low |= opens.low;
      high |= opens.high;
      others |= opens.others;
      const anchors = opens.anchors;
      for (let a = 0; a < anchors.length; a += 2) ACTIVE[anchors[a]!]! |= anchors[a + 1]!;
    }
  }
  lowerText = undefined;
  // In the patterns' order: a kind's values are kept in the order found, up to its cap.
  while (low !== 0) {
    const bit = low & -low;
    low ^= bit;
    runPattern(31 - Math.clz32(bit), text, found);
  }
  while (high !== 0) {
    const bit = high & -high;
    high ^= bit;
    runPattern(63 - Math.clz32(bit), text, found);
  }
  if (others === 0) return;
  if (others & ASSUMED_ROLE_FOUND) {
    ASSUMED_ROLE.lastIndex = 0;
    for (let match = ASSUMED_ROLE.exec(text); match !== null; match = ASSUMED_ROLE.exec(text)) {
      found.add(K.roles, `arn:${match[1]}:iam::${match[2]}:role/${match[3]}`);
    }
  }
  if (others & TOO_MANY_PODS_FOUND && TOO_MANY_PODS.test(text)) found.add(K.resources, 'pods');
  if (others & SPOT_FOUND && SPOT.test(text) && SPOT_CAPACITY.test(text)) {
    found.add(K.capacityTypes, 'spot');
  }
}

const TOO_MANY_PODS = /too many pods/i;
const SPOT = /\bspot\b/i;
const SPOT_CAPACITY = /maxspotinstancecount|spot instances|spot node/i;

/**
 * The lower-cased text, for the anchors of patterns that ignore case (made for the first such pattern
 * of a text). Its places are the text's unless lower-casing changed the length: of all characters only
 * U+0130 lower-cases to more code units (two), and none to fewer (a test holds this runtime to it).
 */
let lowerText: string | undefined;
/** The text itself, or lower-cased for a pattern that ignores case: where its anchors' literals are looked for. */
const haystackOf = (pattern: CompiledPattern, text: string): string =>
  pattern.ignoreCase ? (lowerText ??= text.toLowerCase()) : text;

/**
 * Where the gates of the text at hand are (the classifier's scan of an ASCII text), and of each text
 * pattern's anchors the index of its gate among the scan's patterns (-1: looked for in the text).
 */
let places: PatternPlaces | undefined;
let placesOfAnchors: ReadonlyArray<Int32Array> = [];

/** Runs one text pattern over `text` where its active anchors say a match can start. */
function runPattern(index: number, text: string, found: EntityCollector): void {
  const pattern = COMPILED[index]!;
  const active = ACTIVE[index]! | pattern.unconditional;
  ACTIVE[index] = 0;
  const sticky = pattern.sticky;
  // Lower-casing keeps an ASCII text's places (the scan gives places only for those).
  if (sticky === undefined || (places === undefined && haystackOf(pattern, text).length !== text.length)) {
    // exec with lastIndex, not matchAll: matchAll clones its regular expression on every call.
    const global = pattern.global;
    global.lastIndex = 0;
    for (let match = global.exec(text); match !== null; match = global.exec(text)) take(pattern, match, found);
    return;
  }
  const gateOfAnchor = places === undefined ? undefined : placesOfAnchors[index]!;
  // The first place of each active anchor's literal; most texts hold one of them, once.
  let sources = 0;
  let only = 0;
  for (let a = 0, bits = active; bits !== 0; a++, bits >>>= 1) {
    if ((bits & 1) === 0) continue;
    // Between the first and the last place of its gate, when the scan says where that is.
    const gate = gateOfAnchor === undefined ? -1 : gateOfAnchor[a]!;
    if (gate >= 0 && places!.ends(gate)) {
      const back = pattern.anchors[a]!.gateEnd;
      LOW[a] = places!.firstEnd - back;
      HIGH[a] = places!.lastEnd - back;
    } else LOW[a] = UNKNOWN;
    const place = nextPlace(pattern, a, text, 0);
    FIRST[a] = place;
    if (place === -1) continue;
    if (sources++ === 0) only = a;
  }
  if (sources === 0) return;
  if (sources === 1) {
    runAnchor(pattern, only, FIRST[only]!, text, found);
    return;
  }
  // Several literals found: their places merged, in order.
  let count = 0;
  for (let a = 0, bits = active; bits !== 0; a++, bits >>>= 1) {
    if ((bits & 1) === 0 || FIRST[a] === -1) continue;
    count = startsOf(pattern, a, FIRST[a]!, text, count);
  }
  STARTS.length = count;
  STARTS.sort(byNumber);
  let end = 0;
  let previous = -1;
  for (let i = 0; i < count; i++) {
    const start = STARTS[i]!;
    if (start < end || start === previous) continue;
    previous = start;
    end = matchAt(pattern, sticky, start, text, found, end);
  }
}

/**
 * The pattern tried where one anchor says it can start, from the literal's first place `at` on; the
 * next place of the literal is looked for only after the last match (a match starts where the last
 * one ended or after).
 */
function runAnchor(pattern: CompiledPattern, a: number, first: number, text: string, found: EntityCollector): void {
  const { start } = pattern.anchors[a]!;
  const sticky = pattern.sticky!;
  let end = 0;
  // The places tried (or ruled out) so far: they only increase.
  let done = -1;
  let at = first;
  do {
    if (start === 0) end = matchAt(pattern, sticky, at, text, found, end);
    else if (start === WORD) {
      const place = wordStart(text, at);
      if (place > done && place >= end) end = matchAt(pattern, sticky, place, text, found, end);
      done = place;
    } else {
      for (let place = Math.max(at - start, done + 1, end); place <= at; place++) {
        if (place >= end && isWordStart(text, place)) end = matchAt(pattern, sticky, place, text, found, end);
      }
      done = at;
    }
    at = nextPlace(pattern, a, text, Math.max(at + 1, end));
  } while (at !== -1);
}

/** Adds to STARTS (from `count`) every place an anchor says a match can start, in order; returns the new count. */
function startsOf(pattern: CompiledPattern, a: number, first: number, text: string, count: number): number {
  const { start } = pattern.anchors[a]!;
  let done = -1;
  let at = first;
  do {
    if (start === 0) STARTS[count++] = at;
    else if (start === WORD) {
      const place = wordStart(text, at);
      if (place > done) STARTS[count++] = done = place;
    } else {
      for (let place = Math.max(at - start, done + 1); place <= at; place++) {
        if (isWordStart(text, place)) STARTS[count++] = place;
      }
      done = at;
    }
    at = nextPlace(pattern, a, text, at + 1);
  } while (at !== -1);
  return count;
}

/** The pattern tried at `place`: the end of its match there (its value taken), or `end` when none. */
function matchAt(
  pattern: CompiledPattern,
  sticky: RegExp,
  place: number,
  text: string,
  found: EntityCollector,
  end: number,
): number {
  sticky.lastIndex = place;
  if (pattern.group === 0) {
    // The whole match is the value: no match array needed.
    if (!sticky.test(text)) return end;
    takeValue(pattern, text.slice(place, sticky.lastIndex), found);
    return sticky.lastIndex;
  }
  const match = sticky.exec(text);
  if (match === null) return end;
  take(pattern, match, found);
  return sticky.lastIndex;
}

/** The value a match names, into `found`. */
function take(pattern: CompiledPattern, match: RegExpExecArray, found: EntityCollector): void {
  takeValue(pattern, match[pattern.group], found);
}

function takeValue(pattern: CompiledPattern, value: string | undefined, found: EntityCollector): void {
  if (!value) return;
  const kind = pattern.kind;
  if (kind !== 'pdbs') {
    // normalise, without its tests of the kind when the kind keeps its values as found.
    if (pattern.normalised) value = normaliseKind(kind, value);
    found.add(
      pattern.index,
      TRAILING[value.charCodeAt(value.length - 1)] === 1 ? value.replace(TRAILING_PUNCTUATION, '') : value,
    );
  } else {
    // The names between runs of spaces and commas (as split(/[ ,]+/) gives them; an empty one is no name).
    for (let start = 0, length = value.length; start < length;) {
      let end = start;
      while (end < length && !isListSeparator(value.charCodeAt(end))) end++;
      if (end > start) {
        const name = normalise(kind, start === 0 && end === length ? value : value.slice(start, end));
        if (PDB_NAME.test(name)) found.add(K.pdbs, name);
      }
      start = end + 1;
    }
  }
}

const isListSeparator = (code: number): boolean => code === 32 || code === 44;

/** A word character, as `\b` sees them: [A-Za-z0-9_]. */
const isWordCode = (code: number): boolean =>
  (code >= 97 && code <= 122) || (code >= 65 && code <= 90) || (code >= 48 && code <= 57) || code === 95;
/** Where `\b` is followed by a word character. */
const isWordStart = (text: string, place: number): boolean =>
  isWordCode(text.charCodeAt(place)) && (place === 0 || !isWordCode(text.charCodeAt(place - 1)));
/** The start of the run of word characters that ends just before `place` (`place` when none does). */
function wordStart(text: string, place: number): number {
  while (place > 0 && isWordCode(text.charCodeAt(place - 1))) place--;
  return place;
}

/**
 * The first place from `from` on where anchor `a` of the pattern has its literal (in the text, or the
 * text lower-cased when the pattern ignores case), or -1. Where the scan said where the anchor's gate
 * first and last is (LOW and HIGH, those places moved back to where the literal would start), the
 * literal is nowhere before the first nor after the last: it is looked for only between them, which
 * for a literal found once (most) is never. An anchor of a pattern that ignores case is used so only
 * when its literal is its gate (the scan's caseless find of it is then the literal's find in the
 * lower-cased text). For a pattern that does not ignore case, a literal with capitals (`Insufficient`)
 * is checked where its gate is, since texts often hold its gate in lower case too (`insufficient
 * capacity`); one in lower case is not: its gate in another case is rare, and a place given too many
 * is harmless (the pattern is tried in order of place and only matches where it matches: where a
 * whole-text run would find a match, every earlier place has none).
 */
function nextPlace(pattern: CompiledPattern, a: number, text: string, from: number): number {
  const anchor = pattern.anchors[a]!;
  const low = LOW[a]!;
  if (low !== UNKNOWN) {
    const high = HIGH[a]!;
    if (from > high) return -1;
    if (from <= low) {
      if (low >= 0 && (!anchor.cased || text.startsWith(anchor.literal, low))) return low;
      from = Math.max(low + 1, 0);
    }
    if (from === high) return !anchor.cased || text.startsWith(anchor.literal, high) ? high : -1;
    if (from > high) return -1;
  }
  return placeOf(anchor, haystackOf(pattern, text), from);
}

/**
 * The first place from `from` on where the anchor's literal is in `haystack`, or -1. indexOf skips
 * ahead to the first character of what it looks for and compares from there: a literal that starts
 * with a space or a common letter (` Insufficient `, `subnet-`, `taint {`) stops it at most words of a
 * text, so it looks for the literal from its least common character on, and checks the rest.
 */
function placeOf(anchor: CompiledAnchor, haystack: string, from: number): number {
  const { literal, needle, offset } = anchor;
  for (let at = haystack.indexOf(needle, from + offset); at !== -1; at = haystack.indexOf(needle, at + 1)) {
    if (offset === 0 || haystack.startsWith(literal, at - offset)) return at - offset;
  }
  return -1;
}

/**
 * Characters of log text from the most common on, roughly (English letter frequencies, the dashes,
 * dots and slashes of names, digits): one not listed (a capital, a bracket) is the least common.
 */
const COMMON = ' e-taoinsr.hldcu/mpf0123456789gwy:",=bvkxjqz_';
const commonness = (char: string): number => {
  const rank = COMMON.indexOf(char);
  return rank === -1 ? 0 : COMMON.length - rank;
};

/** The literal from its least common character on (the first of the least common ones). */
function needleOf(literal: string): { needle: string; offset: number } {
  let offset = 0;
  for (let i = 1; i < literal.length; i++) if (commonness(literal[i]!) < commonness(literal[offset]!)) offset = i;
  return { needle: literal.slice(offset), offset };
}

interface CompiledAnchor {
  readonly literal: string;
  readonly start: number;
  /**
   * The pattern's gate the literal holds, when the scan's places of it can stand for the literal's
   * (see nextPlace), and how far from the literal's start that gate ends.
   */
  readonly gate: string | undefined;
  readonly gateEnd: number;
  /** Whether the gate's places are checked for the literal's case (a pattern not ignoring case, a literal with capitals). */
  readonly cased: boolean;
  /** What indexOf looks for: the literal from its least common character (`offset`) on. */
  readonly needle: string;
  readonly offset: number;
}
interface CompiledPattern {
  readonly kind: EntityKind;
  /** The kind's index in ENTITY_KINDS. */
  readonly index: number;
  readonly group: number;
  readonly global: RegExp;
  /** The pattern matched only where it starts; undefined when it has no anchors. */
  readonly sticky: RegExp | undefined;
  readonly ignoreCase: boolean;
  readonly anchors: readonly CompiledAnchor[];
  /** The anchors (bit a for anchor a) that hold none of the pattern's gates: looked for whenever it runs. */
  readonly unconditional: number;
  /** Whether normaliseKind changes values of the pattern's kind. */
  readonly normalised: boolean;
}

/** The gate of the pattern's that an anchor's literal holds: where the literal is, so is the gate. */
const gateOf = (literal: string, gates: readonly string[]): string | undefined =>
  gates.find((gate) => literal.toLowerCase().includes(gate));

/** An anchor's gate (see CompiledAnchor) and where in its literal that gate ends. */
function gatePlace(
  literal: string,
  gates: readonly string[],
  ignoreCase: boolean,
): { gate: string | undefined; gateEnd: number; cased: boolean } {
  const gate = gateOf(literal, gates);
  const cased = !ignoreCase && literal !== literal.toLowerCase();
  // Caseless, the scan finds the literal itself only when the literal is the gate.
  if (gate === undefined || (ignoreCase && literal !== gate)) return { gate: undefined, gateEnd: 0, cased };
  return { gate, gateEnd: literal.toLowerCase().indexOf(gate) + gate.length - 1, cased };
}

/** The kinds normaliseKind changes (the others' values are kept as found, but for trailing punctuation). */
const NORMALISED: ReadonlySet<EntityKind> = new Set([
  'taints',
  'resources',
  'capacityTypes',
  'serviceAccounts',
  'iamActions',
]);

const COMPILED: readonly CompiledPattern[] = TEXT_PATTERNS.map(([kind, pattern, group, gates, anchors = []]) => ({
  kind,
  index: K[kind],
  group,
  global: pattern,
  sticky: anchors.length > 0 ? new RegExp(pattern.source, pattern.flags.replace('g', '') + 'y') : undefined,
  ignoreCase: pattern.flags.includes('i'),
  anchors: anchors.map(([literal, start]) => ({
    literal,
    start,
    ...needleOf(literal),
    ...gatePlace(literal, gates, pattern.flags.includes('i')),
  })),
  unconditional: anchors.reduce((bits, [literal], a) => (gateOf(literal, gates) ? bits : bits | (1 << a)), 0),
  normalised: NORMALISED.has(kind),
}));

/** Gate → the text patterns it opens (bits of two words) and the anchors it activates (pattern, bits). */
const ASSUMED_ROLE_GATE = ':assumed-role/';
const ASSUMED_ROLE = /\barn:(aws[a-z-]{0,10}):sts::(\d{12}):assumed-role\/([\w+=,.@-]{1,64})\//g;

interface GateOpens {
  low: number;
  high: number;
  /** Pairs of a pattern's index and the bits of its anchors the gate activates. */
  anchors: number[];
  /** The gates textEntities looks at itself, a bit each. */
  others: number;
}
const BY_GATE = new Map<string, GateOpens>();
const opensOf = (gate: string): GateOpens => {
  let opens = BY_GATE.get(gate);
  if (!opens) BY_GATE.set(gate, (opens = { low: 0, high: 0, anchors: [], others: 0 }));
  return opens;
};
TEXT_PATTERNS.forEach(([, , , gates, anchors = []], index) => {
  for (const gate of gates) {
    const opens = opensOf(gate);
    if (index < 32) opens.low |= 1 << index;
    else opens.high |= 1 << (index - 32);
    const bits = anchors.reduce((bits, [literal], a) => (gateOf(literal, gates) === gate ? bits | (1 << a) : bits), 0);
    if (bits !== 0) opens.anchors.push(index, bits);
  }
});
const ASSUMED_ROLE_FOUND = 1;
const TOO_MANY_PODS_FOUND = 2;
const SPOT_FOUND = 4;
opensOf(ASSUMED_ROLE_GATE).others |= ASSUMED_ROLE_FOUND;
opensOf('too many pods').others |= TOO_MANY_PODS_FOUND;
opensOf('spot').others |= SPOT_FOUND;

/**
 * BY_GATE by the index of each gate in a list of patterns (the classifier automaton's), and of each
 * text pattern's anchors the index of its gate in that list (-1 when it has none, or none there),
 * made for the last list asked about.
 */
interface GateTable {
  patterns: readonly string[];
  table: Array<GateOpens | undefined>;
  anchorGates: Int32Array[];
}
let gateTable: GateTable | undefined;
function gatesOf(patterns: readonly string[]): GateTable {
  if (gateTable?.patterns !== patterns) {
    const indexOf = new Map(patterns.map((pattern, index) => [pattern, index]));
    gateTable = {
      patterns,
      table: patterns.map((pattern) => BY_GATE.get(pattern)),
      anchorGates: COMPILED.map(({ anchors }) =>
        Int32Array.from(anchors, ({ gate }) => (gate === undefined ? -1 : (indexOf.get(gate) ?? -1))),
      ),
    };
  }
  return gateTable;
}

/** Of each pattern, the anchors whose gates the text at hand holds (reused: one text at a time). */
const ACTIVE = new Int32Array(TEXT_PATTERNS.length);
/** The first place of each anchor's literal in the text at hand (reused). */
const FIRST = new Int32Array(32);
/**
 * Of each anchor of the pattern at hand, the first and the last place its literal can start, from its
 * gate's places in the scan (LOW UNKNOWN when the scan did not say): reused.
 */
const LOW = new Int32Array(32);
const HIGH = new Int32Array(32);
const UNKNOWN = -0x80000000;
/** The places of several anchors, to be merged (reused). */
const STARTS: number[] = [];
const byNumber = (a: number, b: number): number => a - b;

/** Every gate of every text pattern (lower case). */
export const ENTITY_GATES: readonly string[] = [
  ...new Set([...TEXT_PATTERNS.flatMap(([, , , gates]) => gates), ':assumed-role/', 'too many pods', 'spot']),
];

/** The gates as one automaton, built on first use (case ignored). */
let entityGatesMemo: SubstringMatcher | undefined;
const entityGates = (): SubstringMatcher => (entityGatesMemo ??= new SubstringMatcher(ENTITY_GATES));

/** One `namespace/name` of a PDB list: a bracket may also hold prose or a name without its namespace. */
const PDB_NAME = /^[a-z0-9][a-z0-9-]{0,62}\/[a-z0-9][a-z0-9.-]{0,252}$/;

const SLOTS = 13;
const RANKS = 4;
/**
 * The structured fields that name entities: field → its slot and its rank in the slot (the first
 * field of a slot that is present wins: `NodeClaim` before `nodeclaim` before `Machine`), as one
 * number, slot × RANKS + rank.
 */
const FIELD_PLACES: ReadonlyMap<string, number> = new Map(
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
  } as Record<string, readonly [number, number]>).map(([field, [slot, rank]]) => [field, slot * RANKS + rank]),
);
/**
 * The keys FIELD_PLACES may hold, by their first two characters (their codes modulo 128, as one
 * index) and their length (modulo 32, a bit): a key whose bit is not set is not one of them.
 */
const FIELD_SHAPES = new Uint32Array(128 * 128);
for (const key of FIELD_PLACES.keys())
  FIELD_SHAPES[((key.charCodeAt(0) & 127) << 7) | (key.charCodeAt(1) & 127)]! |= 1 << (key.length & 31);
/** The values of the fields of FIELD_PLACES the record at hand has, by place (reused; emptied after each record). */
const FIELD_VALUES: unknown[] = new Array<unknown>(SLOTS * RANKS).fill(undefined);

/**
 * Entities from a record's structured fields. One pass over the keys the record has, not a lookup of
 * every key it might have: the fields of JSON lines come in many shapes, and a lookup of an absent
 * key on an object of yet another shape was the largest single cost of extraction.
 */
function fromFields(fields: Readonly<Record<string, unknown>>, found: EntityCollector): void {
  // The slots some field filled, one bit each: the others are not looked at.
  let filled = 0;
  for (const key in fields) {
    // Most keys are none of those: ruled out by their length and first two characters, without hashing.
    if ((FIELD_SHAPES[((key.charCodeAt(0) & 127) << 7) | (key.charCodeAt(1) & 127)]! & (1 << (key.length & 31))) === 0)
      continue;
    const place = FIELD_PLACES.get(key);
    if (place === undefined) continue;
    FIELD_VALUES[place] = fields[key];
    filled |= 1 << (place >> 2);
  }
  if (filled === 0) return;
  try {
    fromSlots(filled, found);
  } finally {
    for (let place = 0; place < SLOTS * RANKS; place += RANKS) {
      if ((filled & (1 << (place >> 2))) === 0) continue;
      FIELD_VALUES[place] = FIELD_VALUES[place + 1] = FIELD_VALUES[place + 2] = FIELD_VALUES[place + 3] = undefined;
    }
  }
}

/** The entities of the fields in FIELD_VALUES (slots `filled`), in the order of the slots (12 before 10 and 11). */
function fromSlots(filled: number, found: EntityCollector): void {
  const values = FIELD_VALUES;
  // Karpenter v0.x names its Provisioner in `provisioner`; beside `storage-class` that field is the
  // StorageClass's provisioner (`kubernetes.io/aws-ebs`), a storage driver, never a NodePool.
  if (filled & (1 << 12) && (values[12 * RANKS] !== undefined || values[12 * RANKS + 1] !== undefined))
    values[1 * RANKS + 3] = undefined;
  if (filled & (1 << 0)) found.add(K.nodeclaims, named(0));
  if (filled & (1 << 1)) found.add(K.nodepools, named(1));
  if (filled & (1 << 2)) found.add(K.nodeclasses, named(2));
  if (filled & (1 << 3)) found.add(K.nodes, named(3));
  if ((filled & ~0b1111) === 0) return;
  // A host line (kubelet, nodeadm) names its host, which is the node's name on EKS (private DNS name or instance id).
  if (filled & (1 << 4)) {
    const host = named(4);
    if (host && NODE_HOST.test(host)) found.add(K.nodes, host);
  }
  if (filled & (1 << 5)) found.add(K.instanceTypes, named(5));
  if (filled & (1 << 6)) found.add(K.zones, named(6));
  if (filled & (1 << 7)) found.add(K.capacityTypes, named(7));
  if (filled & (1 << 8)) found.add(K.queues, named(8));
  if (filled & (1 << 9)) found.add(K.volumes, named(9));
  if (filled & (1 << 12)) found.add(K.storageClasses, named(12));
  if (filled & (1 << 10)) {
    const pod = values[10 * RANKS] ?? values[10 * RANKS + 1];
    if (isObject(pod) && typeof pod.name === 'string') {
      found.add(K.pods, typeof pod.namespace === 'string' && pod.namespace ? `${pod.namespace}/${pod.name}` : pod.name);
    } else if (typeof pod === 'string') {
      found.add(K.pods, pod);
    }
  }
  if (filled & (1 << 11)) {
    const providerId = named(11);
    const provider = providerId ? PROVIDER_ID.exec(providerId) : null;
    if (provider) {
      found.add(K.zones, provider[1]);
      found.add(K.instances, provider[2]);
    }
  }
}

/** The name the first present field of a slot gives (a string, or an object's `name`). */
function named(slot: number): string | undefined {
  for (let place = slot * RANKS, last = place + RANKS; place < last; place++) {
    const value = FIELD_VALUES[place];
    if (value === undefined) continue;
    if (typeof value === 'string') return value;
    if (isObject(value) && typeof value.name === 'string') return value.name;
  }
  return undefined;
}

const PROVIDER_ID = /^aws:\/\/\/([a-z0-9-]{1,30})\/(i-[0-9a-f]{8,17})$/;
const NODE_HOST = /^(?:ip-\d{1,3}-\d{1,3}-\d{1,3}-\d{1,3}|i-[0-9a-f]{8,17})(?:\.[a-z0-9-]{1,63}){0,4}$/;

/**
 * A name a NodePool (or v0.x Provisioner) can have: a DNS subdomain, and not a storage driver's name
 * (`ebs.csi.aws.com`, `kubernetes.io/aws-ebs`), which a StorageClass's `provisioner` holds.
 */
export function isNodePoolName(value: string): boolean {
  // NODE_POOL_NAME and not STORAGE_DRIVER, read by hand: this runs on every NodePool name a record gives.
  const length = value.length;
  if (length === 0 || length > 253) return false;
  for (let i = 0; i < length; i++) {
    const code = value.charCodeAt(i);
    if (isLowerAlnum(code)) continue;
    if ((code !== 46 && code !== 45) || i === 0 || i === length - 1) return false;
  }
  // A label `csi` (`ebs.csi.aws.com`), or a name ending in `.com`, `.io`, `.org`, `.net`, `.aws`.
  for (let at = value.indexOf('csi'); at !== -1; at = value.indexOf('csi', at + 1)) {
    if ((at === 0 || value.charCodeAt(at - 1) === 46) && (at + 3 === length || value.charCodeAt(at + 3) === 46))
      return false;
  }
  const dot = value.lastIndexOf('.');
  if (dot === -1) return true;
  const suffix = length - dot;
  if (suffix === 3) return !value.endsWith('.io');
  return (
    suffix !== 4 ||
    !(value.endsWith('.com') || value.endsWith('.org') || value.endsWith('.net') || value.endsWith('.aws'))
  );
}

/** What isNodePoolName holds a name to (kept for the tests that hold it to these). */
export const NODE_POOL_NAME = /^[a-z0-9](?:[a-z0-9.-]{0,251}[a-z0-9])?$/;
export const STORAGE_DRIVER = /(?:^|\.)csi(?:\.|$)|\.(?:com|io|org|net|aws)$/;

function normalise(kind: EntityKind, value: string): string {
  const normalised = normaliseKind(kind, value);
  // Most values end with a letter or digit: the expression runs only on those that end otherwise.
  return TRAILING[normalised.charCodeAt(normalised.length - 1)] === 1
    ? normalised.replace(TRAILING_PUNCTUATION, '')
    : normalised;
}

/**
 * Punctuation that ends the sentence or the wrapper around a name (`Insufficient cpu.`,
 * `nodepool/default,`, `(NodePool=batch)`): no Kubernetes or AWS name ends with it.
 */
const TRAILING_PUNCTUATION = /[.,;!?)\]}'"`]{1,10}$/;
/** 1 at the character codes TRAILING_PUNCTUATION removes. */
const TRAILING = new Uint8Array(128);
for (const char of '.,;!?)]}\'"`') TRAILING[char.charCodeAt(0)] = 1;

/** A taint as `key:Effect`, already in kubectl's form. */
const TAINT_WITH_EFFECT = /^[^\s:]+:(?:NoSchedule|PreferNoSchedule|NoExecute)$/;

function normaliseKind(kind: EntityKind, value: string): string {
  if (kind === 'taints') {
    // kube-scheduler prints {key: value}; kubectl and Karpenter use key=value[:Effect].
    if (value.includes('=') || TAINT_WITH_EFFECT.test(value)) return value;
    const colon = value.indexOf(':');
    if (colon === -1) return value.trim();
    const key = value.slice(0, colon).trim();
    const taintValue = value.slice(colon + 1).trim();
    return taintValue ? `${key}=${taintValue}` : key;
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
/** What workloadOf reads, in this order (kept for the test that holds it to these). */
export const WORKLOAD_POD_NAMES: readonly RegExp[] = [
  new RegExp(`^(.{1,200})-${POD_HASH}{6,10}-${POD_HASH}{5}$`),
  /^(.{1,200})-\d{1,5}$/,
  new RegExp(`^(.{1,200})-${POD_HASH}{5}$`),
];
/** 1 at the codes of the characters of Kubernetes's generated name suffixes (POD_HASH). */
const HASH = new Uint8Array(128);
for (const char of 'bcdfghjklmnpqrstvwxz2456789') HASH[char.charCodeAt(0)] = 1;

/**
 * The workload a pod belongs to, from the names Kubernetes generates: `<deployment>-<rs hash>-<id>`,
 * `<statefulset>-<ordinal>`, `<daemonset|job>-<id>`. Returns `namespace/kind/name`. The name is read
 * from its end as WORKLOAD_POD_NAMES match it (their greedy first group is the longest prefix that
 * leaves a suffix of the form, of 1 to 200 characters and no line terminator), without their
 * backtracking and match arrays.
 */
export function workloadOf(pod: string): string | undefined {
  const slash = pod.indexOf('/');
  const namespace = slash > 0 ? pod.slice(0, slash) : 'default';
  const name = slash > 0 ? pod.slice(slash + 1) : pod;
  const length = name.length;
  if (length > 253) return undefined;
  // A prefix ends at the first line terminator (`.` matches none).
  let clean = 0;
  while (clean < length && !isLineTerminator(name.charCodeAt(clean))) clean++;
  // `-<5 hash characters>` at the end: a Deployment's pod (after `-<6 to 10 of them>`) or a generated one.
  const hashEnd = length >= 6 && name.charCodeAt(length - 6) === 45 && hashes(name, length - 5, length);
  if (hashEnd) {
    // The longest prefix: the shortest ReplicaSet hash.
    for (let hash = 6; hash <= 10; hash++) {
      const prefix = length - 7 - hash;
      if (prefix < 0) break;
      if (name.charCodeAt(prefix) === 45 && hashes(name, prefix + 1, length - 6) && fits(prefix, clean))
        return `${namespace}/deployment/${name.slice(0, prefix)}`;
    }
  }
  // `-<1 to 5 digits>` at the end: the longest prefix, the fewest digits.
  for (let digits = 1; digits <= 5 && digits < length; digits++) {
    const code = name.charCodeAt(length - digits);
    if (code < 48 || code > 57) break;
    const prefix = length - 1 - digits;
    if (name.charCodeAt(prefix) === 45) {
      if (fits(prefix, clean)) return `${namespace}/statefulset/${name.slice(0, prefix)}`;
      break;
    }
  }
  if (hashEnd && fits(length - 6, clean)) return `${namespace}/workload/${name.slice(0, length - 6)}`;
  return undefined;
}

/** Whether `.{1,200}` matches the first `prefix` characters of a name whose first line terminator is at `clean`. */
const fits = (prefix: number, clean: number): boolean => prefix >= 1 && prefix <= 200 && prefix <= clean;

/** Whether every character of `text` from `start` to `end` is one of POD_HASH's. */
function hashes(text: string, start: number, end: number): boolean {
  for (let i = start; i < end; i++) if (HASH[text.charCodeAt(i)] !== 1) return false;
  return true;
}

const isLineTerminator = (code: number): boolean => code === 10 || code === 13 || code === 0x2028 || code === 0x2029;

/**
 * Where the Karpenter controller runs, so that advice names its namespace rather than assuming one:
 * the namespace of the pod that wrote the line (Fluent Bit metadata or kubectl prefix), of a
 * Container Insights log stream of a Karpenter container (`<pod>_<namespace>_<container>-<id>`), or of
 * a Karpenter service account named in the text.
 */
function karpenterNamespaces(record: LogRecord, found: EntityCollector): void {
  const source = record.source;
  if (source?.namespace && isKarpenterSource(source.namespace, source.name))
    found.add(K.karpenterNamespaces, source.namespace);
  const stream = record.origin.logStream;
  if (stream) found.add(K.karpenterNamespaces, karpenterStreamNamespace(stream));
  const accounts = found.values(K.serviceAccounts);
  if (!accounts) return;
  for (let i = 0, count = accounts.length; i < count; i++) {
    // `namespace/name`, the name up to a second slash if any (as split('/') reads it).
    const account = accounts[i]!;
    const slash = account.indexOf('/');
    if (slash === -1) continue;
    const next = account.indexOf('/', slash + 1);
    const name = account.slice(slash + 1, next === -1 ? account.length : next);
    if (name === 'karpenter' || name === 'karpenter-controller')
      found.add(K.karpenterNamespaces, account.slice(0, slash));
  }
}

/**
 * The records of one delivery share their log stream, and those of one writer its pod: the last
 * answer for each is kept, so a delivery asks once, not once per record.
 */
let lastStream: { stream: string; namespace: string | undefined } | undefined;
function karpenterStreamNamespace(stream: string): string | undefined {
  if (lastStream?.stream !== stream) lastStream = { stream, namespace: KARPENTER_STREAM.exec(stream)?.[1] };
  return lastStream.namespace;
}
let lastSource: { namespace: string; name: string; karpenter: boolean } | undefined;
function isKarpenterSource(namespace: string, name: string): boolean {
  if (lastSource?.namespace !== namespace || lastSource.name !== name) {
    lastSource = { namespace, name, karpenter: isKarpenterPod(`${namespace}/${name}`) };
  }
  return lastSource.karpenter;
}

const KARPENTER_STREAM = /(?:^|[./])karpenter(?:-controller)?-[a-z0-9]{6,10}-[a-z0-9]{5}_([a-z0-9][a-z0-9-]{0,62})_/;

/** The patterns above that are not text patterns, for the linear-time check in the tests. */
export const NAME_PATTERNS: readonly RegExp[] = [NODE_HOST, KARPENTER_STREAM, STORAGE_DRIVER];

/** A pod of the Karpenter controller deployment (`karpenter-<rs hash>-<id>`). */
export const isKarpenterPod = (pod: string): boolean =>
  /^(?:[a-z0-9-]{1,63}\/)?karpenter(?:-controller)?-[a-z0-9]{6,10}-[a-z0-9]{5}$/.test(pod);

/**
 * The entities of one record as they are found: one array per kind (by its index), each value once,
 * at most MAX_PER_KIND, and the kinds in the order they were first found; handed out sorted, in an
 * object with the kinds in that order. One collector serves every record (extraction is synchronous
 * and not reentrant): `clear` forgets the last record's arrays (handed out, never touched again), so a
 * record pays only for the kinds it has.
 */
class EntityCollector {
  private readonly lists: Array<string[] | undefined> = ENTITY_KINDS.map(() => undefined);
  /** The kinds found, in the order found (the first `count`). */
  private readonly order: number[] = [];
  private count = 0;

  clear(): void {
    for (let i = 0; i < this.count; i++) this.lists[this.order[i]!] = undefined;
    this.count = 0;
  }

  add(kind: number, value: string | undefined): void {
    if (!value) return;
    if (kind === K.nodepools && !isNodePoolName(value)) return;
    const values = this.lists[kind];
    if (values === undefined) {
      this.lists[kind] = [value];
      this.order[this.count++] = kind;
    } else if (values.length < MAX_PER_KIND && !values.includes(value)) values.push(value);
  }

  /** The values of a kind found so far, in the order found (not a copy: read before adding to it). */
  values(kind: number): readonly string[] | undefined {
    return this.lists[kind];
  }

  toEntities(): Entities {
    const entities: Entities = {};
    for (let i = 0; i < this.count; i++) {
      const kind = this.order[i]!;
      const values = this.lists[kind]!;
      if (values.length > 1) sortStrings(values);
      entities[ENTITY_KINDS[kind]!] = values;
    }
    return entities;
  }
}

/**
 * `values.sort()` for the few strings of one kind (at most MAX_PER_KIND): an insertion sort by `<`, which
 * orders strings by their UTF-16 code units as the default sort does, without its setup.
 */
function sortStrings(values: string[]): void {
  for (let i = 1, count = values.length; i < count; i++) {
    const value = values[i]!;
    let j = i - 1;
    for (; j >= 0 && values[j]! > value; j--) values[j + 1] = values[j]!;
    values[j + 1] = value;
  }
}

/** The collector of extractEntities. */
const COLLECTOR = new EntityCollector();
