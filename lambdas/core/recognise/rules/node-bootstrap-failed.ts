import { DOCS } from '../../advice/docs-links';
import type { RemediationStep } from '../../advice/types';
import { anyOf, defineRule } from './types';

const EKS_AMI = 'awslabs/amazon-eks-ami@v20260724';
const AL2_BOOTSTRAP = 'awslabs/amazon-eks-ami@v20240202:files/bootstrap.sh';
const BOTTLEROCKET = 'bottlerocket-os/bottlerocket@v1.20.0';
const KARPENTER_AWS = 'aws/karpenter-provider-aws@v1.14.1';

export default defineRule({
  info: {
    id: 'node-bootstrap-failed',
    title: 'Instances launch but never join: node bootstrap or user data failed',
    shortTitle: 'nodes never join',
    severity: 'high',
    source: 'beyond',
    family: 'node',
    emittedBy: 'logs',
    recognises:
      'kubelet "Unable to register node" / "Error getting node", nodeadm, bootstrap.sh and Bottlerocket user data errors, NodeRegistrationHealthy False',
  },
  recognition: {
    clauses: [
      ...anyOf(
        // kubelet (kubernetes pkg/kubelet/kubelet_node_status.go, kubelet_getters.go, nodelease)
        'unable to register node',
        'error getting node',
        'failed to ensure lease exists',
        // nodeadm (AL2023): configuration sources and the NodeConfig they must hold
        'could not find nodeconfig within userdata',
        'failed to decode node config',
        'validating nodeconfig',
        'is missing in cluster configuration',
        'failed to decode user data',
        'failed to decompress user data',
        'mime type is not multipart',
        'no valid configuration found in directory',
        // AL2 bootstrap.sh, and its AL2023 stub that says it was removed
        'bootstrap.sh has been removed',
        'exited with error on line',
        'cluster name is not defined',
        'exhausted retries while describing cluster',
        // Bottlerocket early-boot-config and settings
        'error parsing toml user data',
        "toml data did not contain 'settings' section",
        'data is not a toml table',
        'error deserializing hashmap to settings',
        'unknown user data encoding',
        // Karpenter merging the EC2NodeClass user data with its own
        'invalid userdata',
        'constructing toml userdata',
        'parsing custom user data input',
        'parsing custom userdata',
        'unreadable user data',
        'user data does not define a content-type header',
        'user data is not in multipart mime format',
        "archive doesn't have content-type header",
        'archive is not in multipart format',
        'unknown parameter in userdata k8s settings',
      ),
      ['config provider at index', 'failed'],
      // nodeadm (AL2023): its own errors, and its systemd units failing (systemd shortens unit names on the
      // console: `nodeadm-co.service`), or its binary refused (`(nodeadm)[pid]: … Failed to locate executable`)
      ...anyOf(
        'failed to start nodeadm',
        'dependency failed for nodeadm',
        'dependency failed for eks nodeadm',
        'failed to locate executable /usr/bin/nodeadm',
        'failed to decode node config',
        'no config in chain',
        'cluster id must be provided for outposts',
        'reservation or instance not found',
        'no instance found for type:',
      ),
      ['nodeadm', 'command failed'],
      ['nodeadm', 'must run as root'],
      ['nodeadm-config.service', 'status=1/failure'],
      ['nodeadm-run.service', 'status=1/failure'],
      ['nodeadm-config.service', 'failed with result'],
      ['nodeadm-run.service', 'failed with result'],
      // nodeadm's AWS SDK retrying EC2/DescribeInstances: the instance cannot reach EC2 while it bootstraps
      // (the journal's `nodeadm[pid]:` ident is parsed off, so the request names it, not the ident)
      ...anyOf('retrying request ec2/describeinstances'),
      ['nodeadm', 'retrying request ec2/'],
      ['failed to decode', '(wrong kind)'],
      // the kubelet unit: systemd's start failure and a kubelet that exits on its flags (removed in a newer
      // Kubernetes: --container-runtime in 1.27, --cloud-provider=aws in 1.30)
      ...anyOf(
        'failed to start kubelet',
        'dependency failed for kubelet',
        'failed to parse kubelet flag',
        'unable to reconcile node with api server',
        'unable to construct v1.node object for kubelet',
        'failed to get instances from cloud provider',
        'failed to get zone from cloud provider',
        'error getting the current node from lister',
        "not found in the host's network interfaces",
        'failed to validate nodeip',
        'built-in cloud providers are disabled',
        'kubelet cannot get node info',
        // NodeRestriction refusing the labels or taints the user data gives the kubelet (plugin/pkg/admission/noderestriction)
        'is not allowed to set the following labels',
        'is not allowed to modify labels',
        'is not allowed to modify taints',
      ),
      ['kubelet', 'unknown flag: --'],
      ['failed to get node', 'owner ref to the node lease'],
      // the kubelet's client certificate (certificate_manager.go); refused credentials are node-join-unauthorized
      ['failed while requesting a signed certificate'],
      // the container runtime's unit at boot (systemd Description "containerd container runtime")
      ['failed to start containerd container runtime'],
      ['failed to start', 'bottlerocket'],
      ['kubelet.service', 'status=1/failure'],
      ['kubelet.service', 'failed with result'],
      // the node lease the kubelet never created (`kubectl describe node`: "Lease: Failed to get lease")
      ['failed to get lease', 'leases.coordination.k8s.io'],
      // AL2 user data on an AMI without /etc/eks/bootstrap.sh (AL2023, Ubuntu, Bottlerocket), in bash and dash wording
      ['/etc/eks/bootstrap.sh', 'no such file'],
      ['/etc/eks/bootstrap.sh', 'not found'],
      ['/etc/eks/bootstrap.sh', 'permission denied'],
      // AL2 bootstrap.sh's own errors (`log "ERROR: …"` under the [eks-bootstrap] tag)
      ['[eks-bootstrap]', 'error:'],
      ...anyOf(
        'containerd is the only supported container runtime',
        'invalid --ip-family',
        'cluster id is required when local outpost support is enabled',
      ),
      // cloud-init: the user-data script exited non-zero (util.py), or the scripts_user module failed
      ...anyOf(
        'failed running /var/lib/cloud/instance/scripts',
        'failed to run module scripts-user',
        'failed to run module scripts_user',
      ),
      ['cc_scripts_user', ') failed'],
      // Bottlerocket: early-boot-config and its providers, the settings API refusing user data, pluto
      // (settings generated from EKS and EC2), sundog, and the units of the boot chain failing
      ['error patching', '/settings'],
      ['when patching /settings', 'status 4'],
      ...anyOf(
        "failed to start provider '",
        'unable to serialize settings from instance user data',
        'found multiple user data files in',
        'error describing cluster:',
        'timed-out waiting for eks describe cluster api response',
        'timed out retrieving private dns name from ec2',
        'failed to set generated settings',
        'unable to deserialize input json into model',
        'failed to start bottlerocket userdata configuration system',
        'failed to start user-specified setting generators',
        'failed to start applies settings to create config files',
        'failed to start bottlerocket api server',
        'failed to start datastore creator',
        'dependency failed for bottlerocket',
        'dependency failed for user-specified setting generators',
        'dependency failed for applies settings',
      ),
      ["provider '", "' failed:"],
      ['missing field', 'in eks response'],
      ['early-boot-config', 'provider error'],
      ['early-boot-config', 'error deserializing'],
    ],
    // A NodePool whose nodes launched but never registered (Karpenter v1.1+); other reasons carry a launch error.
    conditions: [{ type: 'noderegistrationhealthy', reasons: ['registrationfailed'] }],
    // A kubelet that cannot reach the cluster endpoint while registering is a node that never joins, not
    // Karpenter failing to reach AWS: one finding, about the node.
    supersedes: ['aws-api-unreachable'],
  },
  diagnose: (f) => {
    const nodeclass = f.first('nodeclasses', '<ec2nodeclass-name>');
    const instance = f.first('instances', '<instance-id>');
    const steps: RemediationStep[] = [
      {
        title: 'Read the user data the EC2NodeClass renders, and the console output of an instance',
        detail:
          'AL2023 reads a NodeConfig (nodeadm), Bottlerocket a TOML settings document, AL2 a shell script calling /etc/eks/bootstrap.sh; user data written for one AMI family fails on another. The console output shows the bootstrap error. Both commands only read.',
        commands: [
          `kubectl get ec2nodeclass ${nodeclass} -o jsonpath='{.spec.amiFamily}{" "}{.spec.amiSelectorTerms}{"\\n"}{.spec.userData}'`,
          `aws ec2 get-console-output --instance-id ${instance} --latest --output text${f.region}`,
        ],
      },
      {
        title: 'Read the kubelet and bootstrap journal on the instance',
        detail:
          'Session Manager needs the SSM agent and the AmazonSSMManagedInstanceCore policy on the node role. On AL2023, nodeadm-config and nodeadm-run say which configuration was read; on Bottlerocket use the admin container.',
        commands: [
          `aws ssm start-session --target ${instance}${f.region}`,
          'journalctl -u nodeadm-config -u nodeadm-run -u kubelet --no-pager --since "1 hour ago"',
        ],
      },
      {
        title: 'Fix the user data or the AMI family in the EC2NodeClass',
        detail:
          'Karpenter adds the cluster name, endpoint and CA itself: custom user data only adds to them (a MIME part for AL2/AL2023, a partial TOML for Bottlerocket). Editing the EC2NodeClass drifts its nodes, so Karpenter replaces them within your disruption budgets.',
        commands: [`kubectl edit ec2nodeclass ${nodeclass}`],
      },
    ];
    if (f.all('nodes').length > 0) {
      steps.splice(1, 0, {
        title: 'Check that the node object the kubelet looks for can exist',
        detail:
          'The kubelet registers under the hostname it was given; a name the API server refuses (hostname type, DHCP options) or a Node object it cannot create leaves "Error getting node" in its log.',
        commands: [`kubectl get node ${f.first('nodes', '<node-name>')} -o wide`, 'kubectl get nodeclaims -o wide'],
      });
    }
    return {
      diagnosis:
        `Instances${f.paren('instances')}${f.where('nodes', 'for nodes')} were launched but their bootstrap failed, so ` +
        `they never registered as nodes${f.where('nodeclasses', 'of EC2NodeClass')}${f.where('nodepools', 'in nodepool')}. ` +
        `Karpenter waits for registration, then deletes the NodeClaim and tries again, paying for instances that never ` +
        `take pods. The user data does not fit the AMI family, or the kubelet cannot find or create its Node object.`,
      remediation: steps,
      docs: [DOCS.nodesJoin, DOCS.nodeadm, DOCS.bottlerocket, DOCS.karpenterNodeClasses],
    };
  },
  examples: {
    fires: [
      {
        line: 'FAILED Failed to start nodeadm-co.service - EKS Nodeadm Config.',
        source:
          'https://github.com/awslabs/amazon-eks-ami/issues/2426 (train-261, console status line, unit name truncated by systemd)',
      },
      {
        line: 'Feb 02 03:47:49 localhost systemd[1]: Failed to start nodeadm-config.service - EKS Nodeadm Config.',
        source: 'https://github.com/awslabs/amazon-eks-ami/issues/2123 (train-262)',
      },
      {
        line: 'Feb 02 03:47:49 localhost (nodeadm)[1748]: nodeadm-config.service: Failed to locate executable /usr/bin/nodeadm: Permission denied',
        source: 'https://github.com/awslabs/amazon-eks-ami/issues/2123 (train-263)',
      },
      {
        line: 'Apr 16 03:23:28 host-name-eks-1111 cloud-init[4607]: Apr 16 03:23:28 cloud-init[4607]: util.py[WARNING]: Failed running /var/lib/cloud/instance/scripts/runcmd [1]',
        source: 'https://github.com/awslabs/amazon-eks-ami/issues/442 (train-264)',
      },
      {
        line: '"command failed" err="failed to parse kubelet flag: unknown flag: --container-runtime"',
        source: 'https://github.com/awslabs/amazon-eks-ami/issues/1398 (train-260)',
      },
      {
        line: '[FAILED] Failed to start Kubelet.',
        source: 'https://github.com/bottlerocket-os/bottlerocket/issues/3630 (train-268)',
      },
      {
        line: "[    8.684272] early-boot-config[1650]: Error PATCHing '/settings?tx=bottlerocket-launch': Status 400 when PATCHing /settings?tx=bottlerocket-launch: Json deserialize error: invalid type: integer `1048576`, expected a string at line 1 column 81",
        source: 'https://github.com/aws/karpenter-provider-aws/issues/2423 (train-187)',
      },
      {
        line: 'Lease:              Failed to get lease: leases.coordination.k8s.io "ip-10-0-168-134.ec2.internal" not found',
        source: 'https://github.com/spack/spack-infrastructure/issues/416 (train-267, kubectl describe node)',
      },
      {
        line: 'Lease: Failed to get lease: leases.coordination.k8s.io "ip-xx-xx-xx-xx.ap-south-1.compute.internal" not found',
        source: 'https://github.com/aws/karpenter-provider-aws/issues/1634 (train-188)',
      },
      {
        line: 'Failed to get lease: leases.coordination.k8s.io "ip-xx-xx-xx-xx.region.compute.internal" not found',
        source: 'https://github.com/aws/karpenter-provider-aws/issues/4365 (train-105)',
      },
      {
        line: "Feb 02 03:47:51 ip-10-0-1-2 systemd[1]: nodeadm-run.service: Failed with result 'exit-code'.",
        source:
          "constructed from awslabs/amazon-eks-ami@v20260724:templates/al2023/runtime/rootfs/etc/systemd/system/nodeadm-run.service, in systemd's exit wording",
      },
      {
        line: '[FAILED] Failed to start nodeadm-run.service - EKS Nodeadm Run.',
        source:
          'constructed from awslabs/amazon-eks-ami@v20260724:templates/al2023/runtime/rootfs/etc/systemd/system/nodeadm-run.service (Description), on the boot console',
      },
      {
        line: 'Feb 02 03:48:02 ip-10-0-1-2 systemd[1]: Dependency failed for kubelet.service - Kubernetes Kubelet.',
        source: 'constructed from systemd "Dependency failed for %s." with the AL2023 kubelet unit Description',
      },
      {
        line: '{"hostname": "ip-10-0-1-2.us-west-2.compute.internal", "systemd_unit": "kubelet.service", "message": "E0202 03:48:01.120311    2101 run.go:74] \\"command failed\\" err=\\"failed to parse kubelet flag: unknown flag: --network-plugin\\""}',
        source:
          'constructed from kubernetes/kubernetes@v1.31.0-alpha.2:cmd/kubelet/app/server.go "failed to parse kubelet flag: %w" (--network-plugin removed in 1.24), as a /dataplane record',
      },
      {
        line: 'Feb 02 03:47:40 ip-10-0-1-2 cloud-init[1590]: 2025-02-02 03:47:40,118 - cc_scripts_user.py[WARNING]: Failed to run module scripts_user (scripts in /var/lib/cloud/instance/scripts)',
        source:
          'constructed from canonical/cloud-init cloudinit/config/cc_scripts_user.py "Failed to run module %s (%s in %s)"',
      },
      {
        line: 'Feb 02 03:47:40 ip-10-0-1-2 cloud-init[1590]: 2025-02-02 03:47:40,117 - util.py[WARNING]: Failed running /var/lib/cloud/instance/scripts/part-001 [127]',
        source: 'constructed from canonical/cloud-init cloudinit/util.py "Failed running %s [%s]"',
      },
      {
        line: "[    6.912044] early-boot-config[1432]: Error PATCHing '/settings?tx=bottlerocket-launch': Status 422 when PATCHing /settings?tx=bottlerocket-launch: Unable to deserialize input JSON into model: unknown field `max-pod`",
        source:
          'constructed from bottlerocket-os/bottlerocket-core-kit@a10182f9:sources/api/apiclient "Error %sing \'%s\': Status %d when %sing %s: %s" and sources/api/apiserver "Unable to deserialize input JSON into model"',
      },
      {
        line: '[FAILED] Failed to start Bottlerocket userdata configuration system.',
        source:
          'constructed from bottlerocket-os/bottlerocket-core-kit@a10182f9:packages/os/early-boot-config.service Description, in systemd\'s "Failed to start %s." wording',
      },
      {
        line: '2025-02-02T03:47:41+0000 [eks-bootstrap] ERROR: containerd is the only supported container runtime as of Kubernetes version 1.24',
        source:
          'constructed from awslabs/amazon-eks-ami@v20251217:templates/al2/runtime/bootstrap.sh \'log "ERROR: containerd is the only supported container runtime as of Kubernetes version 1.24"\'',
      },
      {
        line: 'Feb 02 03:48:05 ip-10-0-1-2 kubelet[2101]: E0202 03:48:05.301122    2101 kubelet_node_status.go:96] "Error getting the current node from lister" err="node \\"ip-10-0-1-2.us-west-2.compute.internal\\" not found"',
        source:
          'constructed from kubernetes/kubernetes@v1.31.0-alpha.2:pkg/kubelet/kubelet_node_status.go "Error getting the current node from lister" (v1.27+)',
      },
      {
        line: 'Feb 02 03:47:50 ip-10-0-1-2 nodeadm[1748]: fatal cli/main.go:35 Command failed {"error": "no config in chain"}',
        source:
          'constructed from awslabs/amazon-eks-ami@v20260724:nodeadm/internal/configprovider/chain.go "no config in chain"',
      },
      {
        line: 'Warning  InvalidNodeInfo  2m  kubelet  Kubelet cannot get node info.',
        source:
          'constructed from kubernetes/kubernetes@v1.31.0-alpha.2:pkg/kubelet/events InvalidNodeInfo "Kubelet cannot get node info.", as a kubectl describe row',
      },
      {
        line: 'E0412 09:14:52.611027    3012 kubelet_node_status.go:99] "Unable to register node with API server" err="Post \\"https://4F1C.gr7.eu-central-1.eks.amazonaws.com/api/v1/nodes\\": dial tcp 10.40.12.7:443: i/o timeout" node="ip-10-40-33-201.eu-central-1.compute.internal"',
        source:
          'constructed from kubernetes/kubernetes@v1.31.0:pkg/kubelet/kubelet_node_status.go \'klog.ErrorS(err, "Unable to register node with API server", "node", …)\'',
      },
      {
        line: JSON.stringify({
          hostname: 'ip-10-40-33-201.eu-central-1.compute.internal',
          systemd_unit: 'kubelet.service',
          message:
            'E0412 09:15:03.002281    3012 kubelet.go:2916] "Error getting node" err="node \\"ip-10-40-33-201.eu-central-1.compute.internal\\" not found"',
        }),
        source:
          'constructed from kubernetes/kubernetes@v1.31.0:pkg/kubelet \'klog.ErrorS(err, "Error getting node")\', as Container Insights ships it to /aws/containerinsights/<cluster>/dataplane',
      },
      {
        line: 'Apr 12 09:13:40 ip-10-40-33-201 nodeadm[1877]: fatal cli/main.go:35 Command failed {"error": "could not find NodeConfig within UserData"}',
        source: `constructed from ${EKS_AMI}:nodeadm/internal/configprovider/userdata.go 'could not find NodeConfig within UserData' and nodeadm/internal/cli/main.go 'Command failed'`,
      },
      {
        line: '2025-04-12T09:13:40+0000 ip-10-40-33-201 nodeadm[1877]: fatal cli/main.go:35 Command failed {"error": "validating NodeConfig: Apiserver endpoint is missing in cluster configuration"}',
        source: `constructed from ${EKS_AMI}:nodeadm/internal/api/validation.go 'Apiserver endpoint is missing in cluster configuration'`,
      },
      {
        line: 'Apr 12 09:13:41 ip-10-40-33-201 cloud-init[1603]: !!!!!!!!!! ERROR: bootstrap.sh has been removed from AL2023-based EKS AMIs.',
        source: `constructed from ${EKS_AMI}:templates/al2023/runtime/rootfs/etc/eks/bootstrap.sh`,
      },
      {
        line: 'Apr 12 09:13:41 ip-10-40-33-201 cloud-init[1603]: 2025-04-12T09:13:41+0000 [eks-bootstrap] ERROR: cluster name is not defined!',
        source: `constructed from ${AL2_BOOTSTRAP} 'log "ERROR: cluster name is not defined!"'`,
      },
      {
        line: 'Apr 12 09:13:38 localhost early-boot-config[1420]: Error parsing TOML user data: TOML parse error at line 3, column 12',
        source: `constructed from ${BOTTLEROCKET}:sources/early-boot-config/early-boot-config-provider/src/settings.rs 'Error parsing TOML user data: {}'`,
      },
      {
        line: '{"level":"ERROR","time":"2025-04-12T09:10:02.117Z","logger":"controller","message":"failed launching nodeclaim","controller":"nodeclaim.lifecycle","NodeClaim":{"name":"general-8vq2d"},"error":"creating instance, getting launch template configs, getting launch templates, parsing custom user data input user data is not in multipart MIME format"}',
        source: `constructed from ${KARPENTER_AWS}:pkg/providers/amifamily/bootstrap/eksbootstrap.go 'parsing custom user data input %w', 'user data is not in multipart MIME format'`,
      },
      {
        line: '  Normal   NodeRegistrationHealthy  2m   karpenter  Status condition transitioned, Type: NodeRegistrationHealthy, Status: True -> False, Reason: RegistrationFailed, Message: Failed to register node',
        source:
          'constructed from kubernetes-sigs/karpenter@v1.14.1:pkg/controllers/nodeclaim/lifecycle/liveness.go \'SetFalse(ConditionTypeNodeRegistrationHealthy, "RegistrationFailed", "Failed to register node")\'',
      },
    ],
    silent: [
      {
        line: 'Feb 19 07:56:59 localhost nodeadm[2015]: info init/init.go:171 Fetching instance details..',
        source: 'https://github.com/awslabs/amazon-eks-ami/issues/2632 (train-299)',
      },
      {
        line: 'Dec 19 06:39:31 localhost early-boot-config[1492]: 06:39:31 [INFO] Sending user data to API',
        source: 'https://github.com/aws/karpenter-provider-aws/issues/3033 (train-283)',
      },
      {
        line: 'Dec 19 06:39:31 localhost early-boot-config[1492]: 06:39:31 [WARN] No user data found via local file: /var/lib/bottlerocket/user-data.toml',
        source: 'https://github.com/aws/karpenter-provider-aws/issues/3033 (train-292)',
      },
      {
        line: 'Dec 19 06:39:31 localhost early-boot-config[1492]: 06:39:31 [INFO] early-boot-config started',
        source: 'https://github.com/aws/karpenter-provider-aws/issues/3033 (train-294)',
      },
      {
        line: '[  OK  ] Finished Wait for the instance to be in service.',
        source: 'https://github.com/bottlerocket-os/bottlerocket/issues/3630 (train-312)',
      },
      {
        line: '[  OK  ] Started nodeadm-config.service - EKS Nodeadm Config.',
        source: 'constructed from awslabs/amazon-eks-ami@v20260724 nodeadm-config.service started, on the boot console',
      },
      {
        line: 'Feb 02 03:47:49 ip-10-0-1-2 systemd[1]: nodeadm-config.service: Deactivated successfully.',
        source: "constructed from systemd's wording for a oneshot unit that exited 0",
      },
      {
        line: "Feb 02 03:47:40 ip-10-0-1-2 cloud-init[1590]: 2025-02-02 03:47:40,101 - util.py[DEBUG]: Running command ['/var/lib/cloud/instance/scripts/part-001'] with allowed return codes [0] (shell=False, capture=False)",
        source:
          'constructed from canonical/cloud-init cloudinit/subp.py "Running command %s with allowed return codes %s"',
      },
      {
        line: '[  OK  ] Started Kubelet.',
        source: 'constructed from systemd "Started %s." with the Bottlerocket kubelet unit Description',
      },
      {
        line: 'I0412 09:14:58.106301    3012 kubelet_node_status.go:75] "Attempting to register node" node="ip-10-40-33-201.eu-central-1.compute.internal"',
        source:
          'constructed from kubernetes/kubernetes@v1.31.0:pkg/kubelet/kubelet_node_status.go "Attempting to register node"',
      },
      {
        line: 'I0412 09:14:58.412871    3012 kubelet_node_status.go:78] "Successfully registered node" node="ip-10-40-33-201.eu-central-1.compute.internal"',
        source:
          'constructed from kubernetes/kubernetes@v1.31.0:pkg/kubelet/kubelet_node_status.go "Successfully registered node"',
      },
      {
        line: 'Apr 12 09:13:40 ip-10-40-33-201 nodeadm[1877]: info init/init.go:62 Loaded configuration {"config": {"metadata":{"creationTimestamp":null}}}',
        source: `constructed from ${EKS_AMI}:nodeadm/cmd/nodeadm/init/init.go 'Loaded configuration'`,
      },
      {
        line: '  Normal   NodeRegistrationHealthy  1m   karpenter  Status condition transitioned, Type: NodeRegistrationHealthy, Status: False -> True, Reason: NodeRegistrationHealthy',
        source:
          'constructed from kubernetes-sigs/karpenter@v1.14.1:pkg/controllers/nodepool/registrationhealth/controller.go',
      },
      {
        line: '  Normal   NodeRegistrationHealthy  9m   karpenter  Status condition transitioned, Type: NodeRegistrationHealthy, Status: Unknown -> False, Reason: InsufficientCapacityError, Message: all requested instance types were unavailable during launch',
        source:
          "constructed from kubernetes-sigs/karpenter@v1.14.1:pkg/controllers/nodeclaim/lifecycle/liveness.go (a launch failure's reason is copied)",
      },
    ],
  },
});
