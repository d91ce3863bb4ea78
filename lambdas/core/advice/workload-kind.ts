import { shellArg } from './shell';

/** The kinds of controller a pod can belong to, as kubectl names them. */
export type WorkloadKind = 'deployment' | 'statefulset' | 'daemonset' | 'job' | 'cronjob';

export interface Workload {
  namespace: string;
  /** Undefined when the owner cannot be told from the evidence (a DaemonSet and a Job pod look alike). */
  kind?: WorkloadKind;
  name: string;
  /** A pod of it, when one is known: the owner can be read from it. */
  pod?: string;
}

/** The controller-generated suffix of a CronJob's Job: the scheduled time in minutes since the epoch. */
const CRONJOB_JOB = /^(.{1,200})-(\d{8,10})$/;

const REPLICASET = /^(.{1,200})-[bcdfghjklmnpqrstvwxz2456789]{6,10}$/;

/** Owner kinds as Kubernetes writes them in events and ownerReferences. */
const KINDS: Record<string, WorkloadKind> = {
  deployment: 'deployment',
  replicaset: 'deployment',
  statefulset: 'statefulset',
  daemonset: 'daemonset',
  job: 'job',
  cronjob: 'cronjob',
};

/**
 * The workload of a `namespace/kind/name` entity (kinds from the pod name: `deployment`,
 * `statefulset`, or `workload` for `<name>-<5 chars>`, which is a DaemonSet or a Job; `statefulset`
 * is left unknown, as any pod named `<name>-<n>` looks like one), refined by an
 * owner kind when the record names one (an event on a Job, a ReplicaSet). A Job created by a
 * CronJob (`<cronjob>-<minutes>`) is attributed to the CronJob: changing the Job changes one run.
 */
export function resolveWorkload(entity: string, options: { ownerKind?: string; pod?: string } = {}): Workload {
  const [namespace = 'default', rawKind = 'workload', ...rest] = entity.split('/');
  const owned = rest.join('/');
  // A ReplicaSet owner is named `<deployment>-<pod-template-hash>`.
  const name = options.ownerKind?.toLowerCase() === 'replicaset' ? (REPLICASET.exec(owned)?.[1] ?? owned) : owned;
  const owner = options.ownerKind ? KINDS[options.ownerKind.toLowerCase()] : undefined;
  // `<name>-<ordinal>` is only a guess at a StatefulSet (Spark names executors `spark-exec-1`): a kind
  // read from a pod name is trusted only for a Deployment's pod-template-hash form.
  const kind = owner ?? (rawKind in KINDS && rawKind !== 'statefulset' ? KINDS[rawKind] : undefined);
  const pod = options.pod;
  if (kind === 'job' || kind === undefined) {
    const cron = CRONJOB_JOB.exec(name);
    if (cron) return { namespace, kind: 'cronjob', name: cron[1]!, ...(pod ? { pod } : {}) };
  }
  return { namespace, ...(kind ? { kind } : {}), name, ...(pod ? { pod } : {}) };
}

/** What changing the pod template of a workload means, as steps to print. */
export interface TemplateChange {
  /** Commands, read-only first. */
  commands: string[];
  /** What the change does to running pods, and when it does not stick (Helm, GitOps). */
  sideEffect: string;
}

const MANAGED_NOTE =
  'If Helm, Argo CD or Flux manages the workload, make the change in its chart values or Git instead: a kubectl change is reverted at the next sync.';

/**
 * How to change the pod template of a workload: `kubectl edit` for controllers whose template is
 * mutable, the CronJob for its Jobs, replace for a bare Job (its template is immutable), and a
 * lookup of the owner first when the kind is unknown. `edit` is given here; callers that set
 * resources use `setResourcesCommand`.
 */
export function editTemplate(workload: Workload): TemplateChange {
  const ns = shellArg(workload.namespace);
  const name = shellArg(workload.name);
  switch (workload.kind) {
    case 'deployment':
    case 'statefulset':
    case 'daemonset':
      return {
        commands: [`kubectl -n ${ns} edit ${workload.kind} ${name}`],
        sideEffect: `Saving the change rolls out new pods of the ${workload.kind} (a rolling restart). ${MANAGED_NOTE}`,
      };
    case 'cronjob':
      return {
        commands: [`kubectl -n ${ns} edit cronjob ${name}`],
        sideEffect: `The change applies to the next Jobs the CronJob starts; running Jobs keep their pods. ${MANAGED_NOTE}`,
      };
    case 'job':
      return {
        commands: [`kubectl -n ${ns} get job ${name} -o yaml > job.yaml`, 'kubectl replace --force -f job.yaml'],
        sideEffect: `A Job's pod template cannot be changed in place: edit job.yaml (drop status, spec.selector and the controller-uid labels), then replace, which deletes the Job and its running pods and starts it again. ${MANAGED_NOTE}`,
      };
    default:
      return {
        commands: [ownerLookup(workload)],
        sideEffect: `The pod name does not tell whether a DaemonSet or a Job owns it: read the owner first, then edit that object (a Job's template cannot be edited: change its CronJob or recreate it). ${MANAGED_NOTE}`,
      };
  }
}

/** `kubectl set resources` for one container of the workload (never all of them: sidecars would change too). */
export function setResourcesCommand(workload: Workload, resources: string): string | undefined {
  if (!workload.kind || workload.kind === 'job') return undefined;
  return `kubectl -n ${shellArg(workload.namespace)} set resources ${workload.kind} ${shellArg(workload.name)} -c <container> ${resources}`;
}

/** Reads the owner of a pod of the workload (or of the pods named like it). */
export function ownerLookup(workload: Workload): string {
  const ns = shellArg(workload.namespace);
  const pod = workload.pod ? shellArg(workload.pod) : `<${workload.name}-pod>`;
  return `kubectl -n ${ns} get pod ${pod} -o jsonpath='{range .metadata.ownerReferences[*]}{.kind}/{.name}{"\\n"}{end}'`;
}
