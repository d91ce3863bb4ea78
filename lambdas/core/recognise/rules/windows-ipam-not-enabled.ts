import { DOCS } from '../../advice/docs-links';
import { anyOf, defineRule } from './types';

export default defineRule({
  info: {
    id: 'windows-ipam-not-enabled',
    title: 'Windows IPAM is not enabled in the VPC CNI',
    shortTitle: 'Windows IPAM off',
    severity: 'high',
    source: 'beyond',
    family: 'network',
    emittedBy: 'logs',
    recognises: 'vpc-bridge sandbox failures on Windows nodes',
  },
  recognition: {
    clauses: anyOf('vpc-bridge', 'vpc.amazonaws.com/privateipv4address', 'enable-windows-ipam'),
  },
  diagnose: () => ({
    diagnosis:
      'Pods on Windows nodes cannot get an IP address: the vpc-bridge CNI finds no address because Windows IPAM is not ' +
      'enabled in the VPC CNI configuration.',
    remediation: [
      {
        title: 'Enable Windows IPAM',
        detail: 'Set enable-windows-ipam in the amazon-vpc-cni ConfigMap, then recreate the failing pods.',
        commands: [
          `kubectl -n kube-system patch configmap amazon-vpc-cni --type merge -p '{"data":{"enable-windows-ipam":"true"}}'`,
        ],
      },
    ],
    docs: [DOCS.windows],
  }),
  examples: {
    fires: [
      {
        line: 'Warning  FailedCreatePodSandBox  pod/win-1  kubelet  Failed to create pod sandbox: rpc error: code = Unknown desc = failed to setup network for sandbox "0a1b": plugin type="vpc-bridge" name="vpc" failed (add): failed to parse Kubernetes args: pod does not have label vpc.amazonaws.com/PrivateIPv4Address',
        source:
          "constructed from the vpc-bridge CNI failure on Windows nodes without Windows IPAM ('pod does not have label vpc.amazonaws.com/PrivateIPv4Address', EKS Windows support docs)",
      },
    ],
    silent: [
      {
        line: 'Normal  Pulled  pod/win-1  kubelet  Successfully pulled image "mcr.microsoft.com/windows/servercore:ltsc2022" in 2m1s',
        source: "constructed from kubelet's 'Successfully pulled image %q in %v'",
      },
    ],
  },
});
