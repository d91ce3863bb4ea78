import { DOCS } from '../advice/docs-links';
import type { RemediationStep } from '../advice/types';
import { anyOf, defineRule } from './types';

const EKS_AMI = 'awslabs/amazon-eks-ami@v20260724';
const AL2_BOOTSTRAP = 'awslabs/amazon-eks-ami@v20240202:files/bootstrap.sh';
const BOTTLEROCKET = 'bottlerocket-os/bottlerocket@v1.20.0';
const KARPENTER_AWS = 'aws/karpenter-provider-aws@v1.14.1';

export default defineRule({
  info: {
    id: 'node-bootstrap-failed',
    title: 'Instances launch but never join: node bootstrap or user data failed',
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
      ),
      ['kubelet', 'unknown flag: --'],
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
