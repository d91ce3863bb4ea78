/**
 * Where the Karpenter controller runs, from the evidence: Fluent Bit and Container Insights name the
 * pod and namespace in the log stream (`<pod>_<namespace>_<container>-<id>`, optionally behind
 * `…var.log.containers.`), and a Kubernetes event about the controller pod names it too. Current
 * installs use `kube-system` (the getting-started guide), older ones `karpenter`: when nothing names
 * it, the advice says so and shows how to find it.
 */
export interface ControllerLocation {
  namespace: string;
  deployment: string;
  /** True when the namespace was read from the evidence; false for the documented default. */
  known: boolean;
}

/** The getting-started guide's namespace since Karpenter v0.33 (KARPENTER_NAMESPACE=kube-system). */
export const DEFAULT_CONTROLLER_NAMESPACE = 'kube-system';

const CONTAINERS = 'containers.';
const DNS_LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
const CONTROLLER_POD = /^((?:[a-z0-9-]{0,60}-)?karpenter(?:-controller)?)-[a-z0-9]{6,10}-[a-z0-9]{5}$/;

/** Pod and namespace named by a container log stream, or undefined. */
export function podOfLogStream(stream: string): { pod: string; namespace: string } | undefined {
  const marker = stream.lastIndexOf(CONTAINERS);
  const name = marker >= 0 ? stream.slice(marker + CONTAINERS.length) : stream;
  const [pod, namespace, container] = name.split('_');
  if (!pod || !namespace || !container) return undefined;
  const podName = pod.slice(pod.lastIndexOf('.') + 1);
  return DNS_LABEL.test(podName) && DNS_LABEL.test(namespace) ? { pod: podName, namespace } : undefined;
}

/**
 * The controller's namespace and deployment from log streams and `namespace/pod` names of the
 * controller's own pods; the default namespace (flagged unknown) otherwise.
 */
export function controllerLocation(evidence: {
  logStreams?: readonly string[];
  pods?: readonly string[];
}): ControllerLocation {
  const candidates: Array<{ pod: string; namespace: string }> = [];
  for (const stream of evidence.logStreams ?? []) {
    const found = podOfLogStream(stream);
    if (found) candidates.push(found);
  }
  for (const pod of evidence.pods ?? []) {
    const slash = pod.indexOf('/');
    if (slash > 0) candidates.push({ namespace: pod.slice(0, slash), pod: pod.slice(slash + 1) });
  }
  for (const { pod, namespace } of candidates) {
    const deployment = CONTROLLER_POD.exec(pod)?.[1];
    if (deployment) return { namespace, deployment, known: true };
  }
  return { namespace: DEFAULT_CONTROLLER_NAMESPACE, deployment: 'karpenter', known: false };
}

/** The read-only command that finds the controller when the evidence did not name it. */
export const FIND_CONTROLLER = 'kubectl get deployments -A -l app.kubernetes.io/name=karpenter';

/**
 * A chart value changed through Helm, keeping every other value and the installed chart version
 * (a newer `--version` would upgrade Karpenter too). `kubectl scale`/`edit` on a Helm release is
 * undone at the next upgrade or GitOps sync.
 */
export function helmSet(location: ControllerLocation, values: Record<string, string | number>): string[] {
  const sets = Object.entries(values)
    .map(([key, value]) => `--set ${key}=${value}`)
    .join(' ');
  return [
    `helm -n ${location.namespace} list --filter karpenter`,
    `helm -n ${location.namespace} upgrade karpenter oci://public.ecr.aws/karpenter/karpenter --version <installed-chart-version> --reuse-values ${sets}`,
  ];
}
