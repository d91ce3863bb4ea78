/** Taints set by Kubernetes, Karpenter or EKS themselves: not for the user to remove. */
const SYSTEM_TAINT_PREFIXES = [
  'node.kubernetes.io/',
  'node.cloudprovider.kubernetes.io/',
  'karpenter.sh/',
  'eks.amazonaws.com/compute-type',
  'ebs.csi.aws.com/',
];
export const isSystemTaint = (taint: string): boolean =>
  SYSTEM_TAINT_PREFIXES.some((prefix) => taint.startsWith(prefix));

export const taintKey = (taint: string): string => taint.split(/[=:]/)[0]!;

/** `key=value:Effect` → `key:Effect-`; without an effect, `key-` removes the key whatever its effect. */
export function taintRemoval(taint: string): string {
  const effect = /:(NoSchedule|PreferNoSchedule|NoExecute)$/.exec(taint)?.[1];
  return effect ? `${taintKey(taint)}:${effect}-` : `${taintKey(taint)}-`;
}

export function tolerationYaml(taint: string | undefined): string {
  if (!taint) return 'tolerations:\n  - key: "<taint-key>"\n    operator: "Exists"';
  const effect = /:(NoSchedule|PreferNoSchedule|NoExecute)$/.exec(taint)?.[1];
  const withoutEffect = effect ? taint.slice(0, -(effect.length + 1)) : taint;
  const [key, value] = withoutEffect.includes('=') ? withoutEffect.split('=', 2) : [withoutEffect, undefined];
  return [
    'tolerations:',
    `  - key: ${JSON.stringify(key)}`,
    value ? `    operator: "Equal"\n    value: ${JSON.stringify(value)}` : '    operator: "Exists"',
    ...(effect ? [`    effect: "${effect}"`] : []),
  ].join('\n');
}
