import type { Facts } from './facts';
import { shellArg } from './shell';
import type { RemediationStep } from './types';
import { editTemplate, setResourcesCommand, type Workload } from './workload-kind';

/** Where the pod spec sits in each kind of workload, for jsonpath reads. */
const POD_SPEC: Record<NonNullable<Workload['kind']>, string> = {
  deployment: '.spec.template.spec',
  statefulset: '.spec.template.spec',
  daemonset: '.spec.template.spec',
  job: '.spec.template.spec',
  cronjob: '.spec.jobTemplate.spec.template.spec',
};

/**
 * A read of pod-spec fields (`affinity`, `nodeSelector`, …) from the workload, or from the pod
 * itself when the owner is unknown: the pod carries the same spec.
 */
export function readPodSpec(f: Facts, fields: readonly string[]): string {
  const workload = f.workloadRef();
  const pod = f.pod();
  const target =
    workload?.kind !== undefined
      ? {
          ns: shellArg(workload.namespace),
          what: `${workload.kind} ${shellArg(workload.name)}`,
          spec: POD_SPEC[workload.kind],
        }
      : { ns: pod.namespace, what: `pod ${pod.name}`, spec: '.spec' };
  const paths = fields.map((field) => `{${target.spec}.${field}}`).join('{"\\n"}');
  return `kubectl -n ${target.ns} get ${target.what} -o jsonpath='${paths}'`;
}

/**
 * The step that changes the pod template of the workload: `kubectl edit` of the right kind (the
 * CronJob of a scheduled Job, a replace for a bare Job, the owner looked up first when unknown),
 * with what saving it does to running pods.
 */
export function changeTemplateStep(f: Facts, title: string, what: string): RemediationStep {
  const workload = f.workloadRef();
  if (!workload) {
    return {
      title,
      detail: `${what}\nFind the workload that owns the pods first (Deployment, StatefulSet, DaemonSet, or the CronJob of a Job); saving the change rolls out new pods. If Helm, Argo CD or Flux manages it, change it there.`,
      commands: ['kubectl -n <namespace> edit <owner-kind> <workload-name>'],
    };
  }
  const change = editTemplate(workload);
  return { title, detail: `${what}\n${change.sideEffect}`, commands: change.commands };
}

/**
 * The step that sets requests (and limits) of one container: `kubectl set resources -c` where the
 * kind allows it, the template change otherwise.
 */
export function setResourcesStep(f: Facts, title: string, what: string, resources: string): RemediationStep {
  const workload = f.workloadRef();
  const command = workload ? setResourcesCommand(workload, resources) : undefined;
  if (!workload || !command) {
    return changeTemplateStep(
      f,
      title,
      `${what} Set ${resources.replace(/--/g, '').replace(/=/g, ' ')} on the container that needs it.`,
    );
  }
  return {
    title,
    detail:
      `${what} -c names the container: without it every container of the pod, sidecars too, gets the same values. ` +
      editTemplate(workload).sideEffect,
    commands: [command],
  };
}
