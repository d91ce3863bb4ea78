import { isV1, karpenterApiOf, type KarpenterApi } from '../common/karpenter-api';
import type { FindingContext } from '../findings/context';
import type { Entities } from '../model';
import { controllerLocation, type ControllerLocation } from './controller';
import { shellArg } from './shell';
import type { DiagnoseInput } from './types';
import { resolveWorkload, type Workload } from './workload-kind';

/** Entity accessors with placeholders, so every command is complete and clearly marked where unknown. */
export class Facts {
  constructor(readonly input: DiagnoseInput) {}

  get cluster(): string {
    return shellArg(this.input.cluster);
  }

  all(kind: keyof Entities): string[] {
    return this.input.entities[kind] ?? [];
  }

  first(kind: keyof Entities, placeholder: string): string {
    const value = this.all(kind)[0];
    return value ? shellArg(value) : placeholder;
  }

  list(kind: keyof Entities, max = 5): string {
    const values = this.all(kind);
    if (values.length === 0) return '';
    const shown = values.slice(0, max).join(', ');
    return values.length > max ? `${shown} and ${values.length - max} more` : shown;
  }

  /** `namespace`, `kind`, `name` of the first workload, with placeholders. */
  workload(): { namespace: string; kind: string; name: string; known: boolean } {
    const workload = this.all('workloads')[0];
    if (!workload) return { namespace: '<namespace>', kind: 'deployment', name: '<workload-name>', known: false };
    const [namespace, kind, name] = workload.split('/') as [string, string, string];
    return {
      namespace: shellArg(namespace),
      kind: kind === 'workload' ? 'deployment' : kind,
      name: shellArg(name),
      known: true,
    };
  }

  /** The first workload, its kind resolved from the owner (a Job's CronJob; unknown for a DaemonSet-or-Job pod); raw names. */
  workloadRef(): Workload | undefined {
    const entity = this.all('workloads')[0];
    if (!entity) return undefined;
    const namespace = entity.slice(0, entity.indexOf('/'));
    const pod = this.all('pods').find((p) => p.startsWith(`${namespace}/`));
    return resolveWorkload(entity, pod ? { pod: pod.slice(namespace.length + 1) } : {});
  }

  /** Where the Karpenter controller runs: from the record, or kube-system flagged unknown. */
  controller(): ControllerLocation {
    return controllerLocation({ namespaces: this.all('karpenterNamespaces'), pods: this.all('pods') });
  }

  /** The Karpenter API generation the records show; undefined when they show none (advice is for v1). */
  get karpenterApi(): KarpenterApi | undefined {
    return karpenterApiOf(this.input.entities);
  }

  /** True when the advice stands as written for v1: the records show v1, or no generation. */
  get forV1(): boolean {
    return isV1(this.karpenterApi);
  }

  /** The evidence lines of the finding. */
  get evidence(): readonly string[] {
    return this.input.evidence ?? [];
  }

  pod(): { namespace: string; name: string } {
    const pod = this.all('pods')[0];
    if (!pod) return { namespace: '<namespace>', name: '<pod-name>' };
    const slash = pod.indexOf('/');
    return slash > 0
      ? { namespace: shellArg(pod.slice(0, slash)), name: shellArg(pod.slice(slash + 1)) }
      : { namespace: 'default', name: shellArg(pod) };
  }

  get region(): string {
    return this.input.region ? ` --region ${shellArg(this.input.region)}` : '';
  }

  get occurrences(): number {
    return this.input.occurrences;
  }

  get context(): FindingContext {
    return this.input.context;
  }

  /** ` label a, b` when the entity is known, '' otherwise; a label of punctuation attaches to the word before. */
  where(kind: keyof Entities, label: string): string {
    const list = this.list(kind);
    if (!list) return '';
    return /^[:;,]/.test(label) ? `${label} ${list}` : ` ${label} ${list}`.replace(/ {2,}/g, ' ');
  }

  /** ` (a, b)` when the entity is known. */
  paren(kind: keyof Entities, label = ''): string {
    const list = this.list(kind);
    return list ? ` (${label ? `${label} ` : ''}${list})` : '';
  }
}
