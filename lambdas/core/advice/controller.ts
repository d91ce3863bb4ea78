/**
 * Where the Karpenter controller runs. Current installs use `kube-system` (the getting-started
 * guide), older ones `karpenter`: when the record does not name it, the advice says so and shows
 * how to find it.
 */
export interface ControllerLocation {
  namespace: string;
  deployment: string;
  /** True when the namespace was read from the evidence; false for the documented default. */
  known: boolean;
}

/** The getting-started guide's namespace since Karpenter v0.33 (KARPENTER_NAMESPACE=kube-system). */
export const DEFAULT_CONTROLLER_NAMESPACE = 'kube-system';

const CONTROLLER_POD = /^((?:[a-z0-9-]{0,60}-)?karpenter(?:-controller)?)-[a-z0-9]{6,10}-[a-z0-9]{5}$/;

/**
 * The controller's namespace (the `karpenterNamespaces` entity: writing pod, log stream or service
 * account) and deployment (from a controller pod the record names); the default namespace, flagged
 * unknown, otherwise.
 */
export function controllerLocation(evidence: {
  namespaces?: readonly string[];
  pods?: readonly string[];
}): ControllerLocation {
  const controllerPod = (evidence.pods ?? [])
    .map((pod) => ({
      namespace: pod.includes('/') ? pod.slice(0, pod.indexOf('/')) : undefined,
      name: pod.slice(pod.indexOf('/') + 1),
    }))
    .map((pod) => ({ ...pod, deployment: CONTROLLER_POD.exec(pod.name)?.[1] }))
    .find((pod) => pod.deployment);
  const namespace = evidence.namespaces?.[0] ?? controllerPod?.namespace;
  const deployment = controllerPod?.deployment ?? 'karpenter';
  return namespace
    ? { namespace, deployment, known: true }
    : { namespace: DEFAULT_CONTROLLER_NAMESPACE, deployment, known: false };
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
