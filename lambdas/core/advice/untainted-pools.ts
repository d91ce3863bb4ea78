import { shellArg } from './shell';
import type { Workload } from './workload-kind';

/**
 * Why the NodePools without a taint did not take a pod, as Karpenter states it ("incompatible with
 * nodepool "default", incompatible requirements, …"), for every NodePool but those that set the taint.
 */
export function otherPoolRefusals(lines: readonly string[], taintingPools: readonly string[]): string[] {
  const pattern = /incompatible with nodepool \\?"([a-z0-9][a-z0-9.-]{0,252})\\?", ([^;\n]{1,300})/g;
  const found = new Map<string, string>();
  for (const line of lines) {
    for (const match of line.matchAll(pattern)) {
      const [, pool, reason] = match as unknown as [string, string, string];
      if (taintingPools.includes(pool) || /did not tolerate/.test(reason) || found.has(pool)) continue;
      found.set(pool, reason.replace(/[",]+$/, '').trim());
    }
  }
  return [...found].map(([pool, reason]) => `NodePool ${pool}: ${reason}`);
}

/** The pod template's placement fields: node selector, node affinity, tolerations (read-only). */
export function placementOf(workload: Workload | undefined): string {
  if (!workload?.kind || workload.kind === 'job') {
    const ns = shellArg(workload?.namespace ?? '<namespace>');
    const pod = workload?.pod ? shellArg(workload.pod) : '<pod-name>';
    return `kubectl -n ${ns} get pod ${pod} -o jsonpath='{.spec.nodeSelector}{"\\n"}{.spec.affinity.nodeAffinity}{"\\n"}{.spec.tolerations}{"\\n"}'`;
  }
  const spec = workload.kind === 'cronjob' ? '.spec.jobTemplate.spec.template.spec' : '.spec.template.spec';
  return `kubectl -n ${shellArg(workload.namespace)} get ${workload.kind} ${shellArg(workload.name)} -o jsonpath='{${spec}.nodeSelector}{"\\n"}{${spec}.affinity.nodeAffinity}{"\\n"}{${spec}.tolerations}{"\\n"}'`;
}
