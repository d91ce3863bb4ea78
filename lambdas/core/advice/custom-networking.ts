import { FIND_CONTROLLER, helmSet } from './controller';
import type { Facts } from './facts';
import { CONTROLLER_RESTART_NOTE, HELM_OWNED_NOTE } from './side-effects';
import type { RemediationStep } from './types';

/**
 * VPC CNI custom networking end to end (EKS user guide, "Deploy pods in alternate subnets with custom
 * networking"; Karpenter settings reservedENIs): one ENIConfig per zone named after it, the CNI told
 * to pick the ENIConfig by zone label, Karpenter told the primary ENI hosts no pods, and the nodes
 * replaced, since only nodes created afterwards use it.
 */
export function customNetworkingStep(f: Facts): RemediationStep {
  const where = f.controller();
  const eniConfig =
    'apiVersion: crd.k8s.amazonaws.com/v1alpha1\nkind: ENIConfig\nmetadata:\n  name: <zone>        # one per zone, named after it\nspec:\n  subnet: <new-subnet-id-in-that-zone>\n  securityGroups:\n    - <node-security-group-id>';
  return {
    title: 'Or give pods their own address space with custom networking (all four parts)',
    detail:
      'With VPC CNI custom networking, pods take IPs from the subnets named in ENIConfig objects instead of the node subnet. ' +
      'It works only with all of: (1) one ENIConfig per zone, named after the zone, pointing at a new routed subnet of that zone; ' +
      '(2) AWS_VPC_K8S_CNI_CUSTOM_NETWORK_CFG=true with ENI_CONFIG_LABEL_DEF=topology.kubernetes.io/zone, so each node picks the ENIConfig of its zone; ' +
      "(3) Karpenter's reservedENIs=1, because the primary ENI no longer hosts pods and each node takes fewer pods than its type's default max-pods; " +
      '(4) new nodes: existing nodes keep their old setup until replaced, so replace them one at a time (kubectl delete nodeclaim drains and replaces that node) or let drift replace them. ' +
      'Side effect: setting the env restarts the aws-node pods on every node (a rolling restart of the CNI; running pods keep their IPs). ' +
      'If the VPC CNI is the EKS add-on (describe-addon finds it), set the env through its configuration values instead: the add-on owns the aws-node DaemonSet, and its next update puts back what kubectl set env changed. ' +
      `For reservedENIs: ${HELM_OWNED_NOTE} ${CONTROLLER_RESTART_NOTE}\nENIConfig (eniconfigs.yaml):\n${eniConfig}`,
    commands: [
      'kubectl apply -f eniconfigs.yaml',
      `aws eks describe-addon --cluster-name ${f.cluster} --addon-name vpc-cni --query 'addon.[addonVersion,configurationValues]'${f.region}`,
      `aws eks update-addon --cluster-name ${f.cluster} --addon-name vpc-cni --configuration-values '{"env":{"AWS_VPC_K8S_CNI_CUSTOM_NETWORK_CFG":"true","ENI_CONFIG_LABEL_DEF":"topology.kubernetes.io/zone"}}'${f.region}`,
      'kubectl set env daemonset aws-node -n kube-system AWS_VPC_K8S_CNI_CUSTOM_NETWORK_CFG=true ENI_CONFIG_LABEL_DEF=topology.kubernetes.io/zone',
      ...(where.known ? [] : [FIND_CONTROLLER]),
      ...helmSet(where, { 'settings.reservedENIs': '1' }).slice(1),
      'kubectl get nodeclaims -L karpenter.sh/nodepool',
      'kubectl delete nodeclaim <nodeclaim-name>',
    ],
  };
}
