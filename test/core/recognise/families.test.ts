import { classify } from '../../../lambdas/core/recognise/classify';
import { parseMessage } from '../../../lambdas/core/parse/parse-message';
import type { RuleId } from '../../../lambdas/core/recognise/rules';
import { CONDITIONS, VALIDATION_REASONS } from '../../../lambdas/core/recognise/vocabulary';
import { rulesOf } from '../../helpers';

/**
 * The failure families of issue 19, each in every shape it reaches CloudWatch in: Karpenter's JSON and
 * console lines (and both wrapped by Fluent Bit), Kubernetes Events as JSON, `kubectl get events` and
 * `kubectl describe` rows, kubelet klog lines alone, behind a syslog or journal prefix, and as the
 * Container Insights dataplane and host records. Lines are written from the emitters' message
 * templates (cited in the rule modules), none copied from the shared samples.
 */
const zapJson = (error: string, message = 'Reconciler error') =>
  JSON.stringify({ level: 'ERROR', time: '2025-05-06T07:08:09.101Z', logger: 'controller', message, error });
const zapConsole = (error: string, message = 'Reconciler error') =>
  `2024-03-04T05:06:07.890Z\tERROR\tcontroller\t${message}\t${JSON.stringify({ commit: 'a1b2c3d', error })}`;
const fluentBit = (line: string) =>
  JSON.stringify({
    log: `2025-05-06T07:08:09.101234567Z stderr F ${line}`,
    stream: 'stderr',
    kubernetes: { pod_name: 'karpenter-6c9f8d7b5d-x7k2p', namespace_name: 'karpenter', container_name: 'controller' },
  });
const event = (kind: string, name: string, reason: string, message: string, type = 'Warning') =>
  JSON.stringify({ involvedObject: { kind, name }, reason, message, type, source: { component: 'karpenter' } });
const describeRow = (reason: string, message: string, type = 'Warning') =>
  `  ${type}  ${reason}  4m (x3 over 9m)  karpenter  ${message}`;
const getEventsRow = (object: string, reason: string, message: string, type = 'Warning') =>
  `kube-system   7m   ${type}   ${reason}   ${object}   ${message}`;
const klog = (file: string, message: string) => `E0506 07:08:09.101234    2471 ${file}] ${message}`;
const syslog = (ident: string, line: string) => `May  6 07:08:09 ip-10-1-2-3 ${ident}[2471]: ${line}`;
const journalIso = (ident: string, line: string) =>
  `2025-05-06T07:08:09+0000 ip-10-1-2-3.us-east-2.compute.internal ${ident}[2471]: ${line}`;
const dataplane = (line: string) =>
  JSON.stringify({
    hostname: 'ip-10-1-2-3.us-east-2.compute.internal',
    systemd_unit: 'kubelet.service',
    message: line,
  });
const hostRecord = (ident: string, line: string) =>
  JSON.stringify({ host: 'ip-10-1-2-3', ident, pid: '2471', message: line });
const condition = (type: string, from: string, reason: string, message = '') =>
  `Status condition transitioned, Type: ${type}, Status: ${from} -> False, Reason: ${reason}${message ? `, Message: ${message}` : ''}`;

const cases: ReadonlyArray<readonly [RuleId, string, string]> = [
  // node-bootstrap-failed
  [
    'node-bootstrap-failed',
    'kubelet klog',
    klog(
      'kubelet_node_status.go:99',
      '"Unable to register node with API server" err="Post \\"https://A1B2.yl4.us-east-2.eks.amazonaws.com/api/v1/nodes\\": context deadline exceeded" node="ip-10-1-2-3.us-east-2.compute.internal"',
    ),
  ],
  [
    'node-bootstrap-failed',
    'kubelet behind syslog',
    syslog(
      'kubelet',
      klog('kubelet.go:2916', '"Error getting node" err="node \\"ip-10-1-2-3.us-east-2.compute.internal\\" not found"'),
    ),
  ],
  [
    'node-bootstrap-failed',
    'kubelet in the dataplane group',
    dataplane(
      klog(
        'controller.go:145',
        '"Failed to ensure lease exists, will retry" err="leases.coordination.k8s.io \\"ip-10-1-2-3\\" is forbidden: the server rejected" interval="7s"',
      ),
    ),
  ],
  [
    'node-bootstrap-failed',
    'nodeadm in the journal',
    journalIso(
      'nodeadm',
      'fatal cli/main.go:35 Command failed {"error": "failed to decode node config: yaml: line 4: mapping values are not allowed in this context"}',
    ),
  ],
  [
    'node-bootstrap-failed',
    'nodeadm in the host group',
    hostRecord(
      'nodeadm',
      'fatal cli/main.go:35 Command failed {"error": "validating NodeConfig: CIDR is missing in cluster configuration"}',
    ),
  ],
  [
    'node-bootstrap-failed',
    'AL2 bootstrap in /var/log/messages',
    syslog('cloud-init', 'Exited with error on line 381'),
  ],
  [
    'node-bootstrap-failed',
    'Bottlerocket early-boot-config',
    journalIso('early-boot-config', "Provider 'aws' failed: TOML data did not contain 'settings' section"),
  ],
  [
    'node-bootstrap-failed',
    'Karpenter JSON, user data it cannot merge',
    zapJson(
      'creating instance, getting launch template configs, invalid UserData unmarshalling toml user data',
      'failed launching nodeclaim',
    ),
  ],
  [
    'node-bootstrap-failed',
    'Karpenter console, user data without a MIME header',
    zapConsole('parsing custom user data input user data does not define a content-type header no header'),
  ],
  [
    'node-bootstrap-failed',
    'NodePool condition event',
    event(
      'NodePool',
      'gpu',
      'NodeRegistrationHealthy',
      condition('NodeRegistrationHealthy', 'True', 'RegistrationFailed', 'Failed to register node'),
      'Normal',
    ),
  ],
  [
    'node-bootstrap-failed',
    'kubectl describe nodepool row',
    describeRow(
      'NodeRegistrationHealthy',
      condition('NodeRegistrationHealthy', 'Unknown', 'RegistrationFailed'),
      'Normal',
    ),
  ],

  // node-join-unauthorized
  [
    'node-join-unauthorized',
    'kubelet klog',
    klog(
      'kubelet_node_status.go:99',
      '"Unable to register node with API server" err="Unauthorized" node="ip-10-1-2-3.us-east-2.compute.internal"',
    ),
  ],
  [
    'node-join-unauthorized',
    'kubelet in the dataplane group',
    dataplane(
      klog('controller.go:145', '"Failed to ensure lease exists, will retry" err="Unauthorized" interval="7s"'),
    ),
  ],
  [
    'node-join-unauthorized',
    'kubelet reflector in /var/log/messages',
    hostRecord(
      'kubelet',
      klog(
        'reflector.go:158',
        '"Unhandled Error" err="k8s.io/client-go/informers/factory.go:160: Failed to watch *v1.Node: failed to list *v1.Node: Unauthorized"',
      ),
    ),
  ],
  [
    'node-join-unauthorized',
    'IAM authenticator in the control plane log group',
    'time="2025-05-06T07:08:09Z" level=warning msg="access denied" arn="arn:aws:iam::123456789012:role/eks-node-role" client="127.0.0.1:40122" error="ARN is not mapped" method=POST path=/authenticate',
  ],
  [
    'node-join-unauthorized',
    'node authorizer, hostname mismatch',
    klog(
      'kubelet_node_status.go:99',
      '"Unable to register node with API server" err="nodes \\"ip-10-1-2-3\\" is forbidden: node \\"i-0a1b2c3d4e5f60718\\" is not allowed to modify node \\"ip-10-1-2-3\\"" node="ip-10-1-2-3"',
    ),
  ],

  // karpenter-rbac-forbidden
  [
    'karpenter-rbac-forbidden',
    'Karpenter JSON',
    zapJson(
      'nodepools.karpenter.sh "default" is forbidden: User "system:serviceaccount:karpenter:karpenter" cannot patch resource "nodepools/status" in API group "karpenter.sh" at the cluster scope',
    ),
  ],
  [
    'karpenter-rbac-forbidden',
    'Karpenter console',
    zapConsole(
      'pods "web-5d8f7b9c54-q2w4x" is forbidden: User "system:serviceaccount:kube-system:karpenter" cannot create resource "pods/eviction" in API group "" in the namespace "shop"',
    ),
  ],
  [
    'karpenter-rbac-forbidden',
    'Karpenter JSON inside a Fluent Bit record',
    fluentBit(
      zapJson(
        'ec2nodeclasses.karpenter.k8s.aws is forbidden: User "system:serviceaccount:ops:karpenter-ops" cannot watch resource "ec2nodeclasses" in API group "karpenter.k8s.aws" at the cluster scope',
      ),
    ),
  ],
  [
    'karpenter-rbac-forbidden',
    'client-go klog in the controller',
    klog(
      'reflector.go:561',
      'k8s.io/client-go/informers/factory.go:160: failed to list *v1.CSINode: csinodes.storage.k8s.io is forbidden: User "system:serviceaccount:karpenter:karpenter" cannot list resource "csinodes" in API group "storage.k8s.io" at the cluster scope',
    ),
  ],

  // crd-conversion-failed
  [
    'crd-conversion-failed',
    'Karpenter JSON',
    zapJson(
      'conversion webhook for karpenter.k8s.aws/v1beta1, Kind=EC2NodeClass failed: Post "https://karpenter.kube-system.svc:8443/conversion/karpenter.k8s.aws?timeout=30s": no endpoints available for service "karpenter"',
    ),
  ],
  [
    'crd-conversion-failed',
    'Karpenter console',
    zapConsole('no matches for kind "NodeClaim" in version "karpenter.sh/v1"', 'failed to wait for caches to sync'),
  ],
  [
    'crd-conversion-failed',
    'Warning event row',
    getEventsRow(
      'nodepool/default',
      'FailedList',
      'the server could not find the requested resource (get nodepools.karpenter.sh)',
    ),
  ],

  // aws-credentials-unavailable
  [
    'aws-credentials-unavailable',
    'Karpenter JSON (SDK v2)',
    zapJson(
      'operation error EC2: DescribeSubnets, get identity: get credentials: failed to refresh cached credentials, failed to retrieve credentials, operation error STS: AssumeRoleWithWebIdentity, exceeded maximum number of attempts, 3',
    ),
  ],
  [
    'aws-credentials-unavailable',
    'Karpenter console (SDK v1)',
    zapConsole(
      'getting subnets, EC2RoleRequestError: no EC2 instance role found\ncaused by: EC2MetadataError: failed to make EC2Metadata request',
    ),
  ],
  [
    'aws-credentials-unavailable',
    'Karpenter JSON in a Fluent Bit record',
    fluentBit(
      zapJson(
        'operation error SQS: ReceiveMessage, https response error StatusCode: 403, RequestID: 9c1d, api error InvalidClientTokenId: The security token included in the request is invalid.',
      ),
    ),
  ],
  [
    'aws-credentials-unavailable',
    'Karpenter console, unknown client',
    zapConsole(
      'UnrecognizedClientException: The security token included in the request is invalid.\n\tstatus code: 400, request id: 77aa',
    ),
  ],

  // aws-api-throttled
  [
    'aws-api-throttled',
    'Karpenter JSON',
    zapJson(
      'operation error EC2: DescribeInstances, exceeded maximum number of attempts, 3, https response error StatusCode: 400, RequestID: 1a2b, api error Throttling: Rate exceeded',
    ),
  ],
  [
    'aws-api-throttled',
    'Karpenter console (SDK v1)',
    zapConsole(
      'creating instance, RequestLimitExceeded: Request limit exceeded.\n\tstatus code: 503, request id: 3c4d',
      'launching nodeclaim',
    ),
  ],
  [
    'aws-api-throttled',
    'event on a NodeClaim',
    event(
      'NodeClaim',
      'default-8xk2q',
      'FailedLaunch',
      'creating instance, operation error EC2: CreateFleet, api error RequestLimitExceeded: Request limit exceeded.',
    ),
  ],

  // kubernetes-version-unsupported
  [
    'kubernetes-version-unsupported',
    'Karpenter JSON',
    zapJson(
      'validating kubernetes version, karpenter is not compatible with kubernetes version (version=1.35)',
      'failed to start',
    ),
  ],
  [
    'kubernetes-version-unsupported',
    'Karpenter console',
    zapConsole('karpenter version is not compatible with K8s version 1.29', 'failed validating kubernetes version'),
  ],

  // resource-validation-failed
  [
    'resource-validation-failed',
    'kubectl apply output',
    'The EC2NodeClass "default" is invalid: spec.amiSelectorTerms[0]: Invalid value: "object": \'alias\' is improperly formatted, must match the format \'family@version\'',
  ],
  [
    'resource-validation-failed',
    'Karpenter JSON',
    zapJson(
      'NodeClaim.karpenter.sh "gpu-9xk2q" is invalid: spec.requirements: Too many: 101: must have at most 100 items',
      'failed creating nodeclaim',
    ),
  ],
  [
    'resource-validation-failed',
    'EC2NodeClass condition event',
    event(
      'EC2NodeClass',
      'default',
      'ValidationSucceeded',
      condition(
        'ValidationSucceeded',
        'Unknown',
        'TagValidationFailed',
        'tag contains a restricted tag matching eks:eks-cluster-name',
      ),
      'Normal',
    ),
  ],
  [
    'resource-validation-failed',
    'kubectl describe ec2nodeclass row',
    describeRow(
      'ValidationSucceeded',
      condition('ValidationSucceeded', 'True', 'ClusterCIDRResolutionFailed', 'Failed to detect the cluster CIDR'),
      'Normal',
    ),
  ],

  // ami-discovery-failed
  [
    'ami-discovery-failed',
    'Karpenter JSON',
    zapJson(
      'getting amis, getting AMI queries, resolving ssm parameter, operation error SSM: GetParameter, https response error StatusCode: 400, RequestID: 5e6f, ParameterNotFound: ',
    ),
  ],
  [
    'ami-discovery-failed',
    'Karpenter console',
    zapConsole('failed to discover any AMIs for alias {"alias": "bottlerocket@v1.99.0"}'),
  ],
  [
    'ami-discovery-failed',
    'EC2NodeClass condition event',
    event(
      'EC2NodeClass',
      'windows',
      'AMIsReady',
      condition(
        'AMIsReady',
        'Unknown',
        'UnsupportedAlias',
        'Windows Server 2025 requires EKS version 1.35 or higher, current version: 1.33',
      ),
      'Normal',
    ),
  ],
  [
    'ami-discovery-failed',
    'kubectl get events row',
    getEventsRow(
      'ec2nodeclass/default',
      'AMIsReady',
      condition('AMIsReady', 'True', 'AMINotFound', 'AMISelector did not match any AMIs'),
      'Normal',
    ),
  ],
];

describe('failure families of issue 19, in every format they arrive in', () => {
  it.each(cases)('%s: %s', (rule, _format, line) => {
    expect({ line, rules: rulesOf(line) }).toEqual({ line, rules: expect.arrayContaining([rule]) });
  });
});

describe('healthy lines of the same emitters stay silent', () => {
  it.each([
    [
      'kubelet registering',
      klog(
        'kubelet_node_status.go:75',
        '"Attempting to register node" node="ip-10-1-2-3.us-east-2.compute.internal"',
      ).replace(/^E/, 'I'),
    ],
    [
      'kubelet in the dataplane group',
      dataplane(
        'I0506 07:08:09.101234    2471 kubelet_node_status.go:78] "Successfully registered node" node="ip-10-1-2-3"',
      ),
    ],
    ['nodeadm in the journal', journalIso('nodeadm', 'info init/init.go:111 Configuration is valid')],
    ['Bottlerocket early boot', syslog('early-boot-config', "Successfully ran provider 'aws'")],
    [
      'authenticator granting a node',
      'time="2025-05-06T07:08:09Z" level=info msg="access granted" arn="arn:aws:iam::123456789012:role/eks-node-role" method=POST path=/authenticate username="system:node:ip-10-1-2-3"',
    ],
    [
      'Karpenter acquiring its lease',
      zapJson('', 'successfully acquired lease karpenter/karpenter-leader-election').replace(
        '"level":"ERROR"',
        '"level":"INFO"',
      ),
    ],
    [
      'Karpenter discovering its version',
      '{"level":"DEBUG","message":"discovered kubernetes version","version":"1.32"}',
    ],
    [
      'Karpenter resolving AMIs',
      '{"level":"DEBUG","message":"discovered amis","ids":["ami-0123456789abcdef0"],"ssmParameter":"/aws/service/eks/optimized-ami/1.32/amazon-linux-2023/x86_64/standard/recommended/image_id"}',
    ],
    [
      'a condition turning True',
      event(
        'EC2NodeClass',
        'default',
        'ValidationSucceeded',
        'Status condition transitioned, Type: ValidationSucceeded, Status: False -> True, Reason: ValidationSucceeded',
        'Normal',
      ),
    ],
    [
      'a condition becoming Unknown',
      describeRow(
        'AMIsReady',
        'Status condition transitioned, Type: AMIsReady, Status: True -> Unknown, Reason: AwaitingReconciliation',
        'Normal',
      ),
    ],
    [
      'another component forbidden',
      zapJson(
        'configmaps is forbidden: User "system:serviceaccount:monitoring:prometheus" cannot list resource "configmaps" in API group "" at the cluster scope',
      ),
    ],
  ])('%s', (_name, line) => {
    expect({ line, rules: rulesOf(line) }).toEqual({ line, rules: [] });
  });
});

describe('the more specific family wins over the general one', () => {
  it('a refused node credential is node-join-unauthorized, not also node-bootstrap-failed', () => {
    expect(
      rulesOf(klog('kubelet_node_status.go:99', '"Unable to register node with API server" err="Unauthorized"')),
    ).toEqual(['node-join-unauthorized']);
  });

  it('credential errors are aws-credentials-unavailable; the network path stays aws-api-unreachable', () => {
    expect(
      rulesOf(
        zapJson(
          'WebIdentityErr: failed to retrieve credentials\ncaused by: InvalidIdentityToken: Incorrect token audience',
        ),
      ),
    ).toEqual(['aws-credentials-unavailable']);
    expect(
      rulesOf(
        zapJson(
          'WebIdentityErr: failed to retrieve credentials\ncaused by: RequestError: send request failed\ncaused by: Post "https://sts.us-east-2.amazonaws.com/": dial tcp: i/o timeout',
        ),
      ),
    ).toEqual(['aws-api-unreachable', 'aws-credentials-unavailable']);
  });

  it('an instance metadata service with no role is a credentials problem, not an unreachable AWS API', () => {
    expect(
      rulesOf(
        zapJson(
          'operation error EC2: DescribeSubnets, get identity: get credentials: failed to refresh cached credentials, no EC2 IMDS role found, operation error ec2imds: GetMetadata, http response error StatusCode: 404, request to EC2 IMDS failed',
        ),
      ),
    ).toEqual(['aws-credentials-unavailable']);
  });

  it('a kubelet that cannot reach the cluster endpoint is a node that never joins, not Karpenter off the network', () => {
    expect(
      rulesOf(
        klog(
          'kubelet_node_status.go:99',
          '"Unable to register node with API server" err="Post \\"https://A1B2.yl4.us-east-2.eks.amazonaws.com/api/v1/nodes\\": dial tcp 10.1.0.10:443: i/o timeout" node="ip-10-1-2-3.us-east-2.compute.internal"',
        ),
      ),
    ).toEqual(['node-bootstrap-failed']);
  });

  it('names the Karpenter namespace of a forbidden service account in its advice', () => {
    const record = parseMessage(
      zapJson(
        'leases.coordination.k8s.io "karpenter-leader-election" is forbidden: User "system:serviceaccount:autoscaling:karpenter" cannot update resource "leases" in API group "coordination.k8s.io" in the namespace "autoscaling"',
      ),
      {},
    )!;
    const [signal] = classify(record).filter((s) => s.rule === 'karpenter-rbac-forbidden');
    expect(signal?.entities).toMatchObject({
      serviceAccounts: ['autoscaling/karpenter'],
      karpenterNamespaces: ['autoscaling'],
    });
  });
});

describe('status conditions agree with the condition vocabulary', () => {
  const transition = (kind: string, type: string, reason: string) =>
    event(kind, 'default', type, condition(type, 'True', reason), 'Normal');

  it.each(Object.entries(VALIDATION_REASONS))(
    'EC2NodeClass ValidationSucceeded False, reason %s: %s',
    (reason, rule) => {
      expect(rulesOf(transition('EC2NodeClass', 'ValidationSucceeded', reason))).toContain(rule);
    },
  );

  // The condition types of these families; NodeRegistrationHealthy only for RegistrationFailed (other reasons are a copied launch error).
  it.each(
    CONDITIONS.filter((entry) =>
      ['ValidationSucceeded', 'AMIsReady', 'NodeRegistrationHealthy'].includes(entry.type),
    ).flatMap((entry) => entry.kinds.map((kind) => [entry.type, kind, entry.rule!] as const)),
  )('%s False on a %s: %s', (type, kind, rule) => {
    const reason = type === 'NodeRegistrationHealthy' ? 'RegistrationFailed' : 'SomethingFailed';
    expect(rulesOf(transition(kind, type, reason))).toContain(rule);
  });
});
