import { setResourcesStep } from '../../advice/workload-steps';
import { shellArg } from '../../advice/shell';
import { DOCS } from '../../advice/docs-links';
import { limitRangeStep } from '../../advice/requests';
import { anyOf, defineRule, seedSection } from './types';

/** The seed's OOM event wording: `Memory limit: 512Mi, Memory usage: 513Mi`. */
const OOM_LIMIT = /Memory limit: ([0-9.]{1,12}[A-Za-z]{0,3}), Memory usage: ([0-9.]{1,12}[A-Za-z]{0,3})/;

export default defineRule({
  info: {
    id: 'oom-killed',
    title: 'Containers are killed for running out of memory',
    shortTitle: 'containers OOMKilled',
    severity: 'medium',
    source: 4,
    family: 'workload',
    emittedBy: 'logs',
    recognises: 'OOMKilled, OOMKilling, "killed due to OOM", kernel OOM killer lines',
    keyEntity: 'workloads',
  },
  perWorkloadCause: null,
  filterTerms: ['OOMKilled', 'OOMKilling', 'Killed', 'OOM'],
  recognition: {
    clauses: anyOf(
      'oomkill',
      'killed due to oom',
      'out of memory: kill',
      'memory cgroup out of memory',
      'invoked oom-killer',
      'oom-kill:',
      'systemoom',
      // kubelet's SystemOOM event message (pkg/kubelet/oom/oom_watcher_linux.go), with and without the victim
      'system oom encountered',
      'cgroupoom',
      // containerd's event for a task the kernel OOM-killed
      'taskoom',
      'oom_reaper: reaped process',
    ),
  },
  diagnose: (f) => {
    const pod = f.pod();
    const w = f.workloadRef();
    const ns = w ? shellArg(w.namespace) : pod.namespace;
    const stated = f.evidence.map((line) => OOM_LIMIT.exec(line)).find(Boolean);
    const cause = stated ? ` The container hit its ${stated[1]} memory limit (usage ${stated[2]}).` : '';
    return {
      diagnosis:
        `Containers${f.where('workloads', 'of')} were killed for running out of memory (${f.occurrences} times).${cause} ` +
        `Their memory requests are below what they use, so Karpenter packed them onto nodes that cannot hold them; with ` +
        `limits set, the kernel kills them at the limit.`,
      remediation: [
        {
          title: 'Do this now: see what the container uses against its request and limit',
          detail:
            'The last state shows OOMKilled and the limit that was hit; top shows the usage per container (metrics-server).',
          commands: [`kubectl -n ${pod.namespace} describe pod ${pod.name}`, `kubectl -n ${ns} top pod --containers`],
        },
        setResourcesStep(
          f,
          'Set the memory request to the observed peak, and the limit above it',
          "Requests drive Karpenter's packing; a limit at or just above the request is what kills the container.",
          '--requests=memory=<observed-peak> --limits=memory=<limit>',
        ),
        limitRangeStep(w ? shellArg(w.namespace) : pod.namespace),
      ],
      docs: [DOCS.limitRange, DOCS.karpenterScheduling],
    };
  },
  examples: {
    fires: [
      {
        line: 'System OOM encountered, victim process: java, pid: 17173',
        source: 'https://github.com/aws/karpenter-provider-aws/issues/1415 (train-066, SystemOOM event message)',
      },
      {
        line: 'default   3m   Warning   SystemOOM   node/ip-10-0-1-2.us-west-2.compute.internal   System OOM encountered, victim process: python3, pid: 41872',
        source:
          'constructed from kubernetes/kubernetes@v1.31.0-alpha.2:pkg/kubelet/oom/oom_watcher_linux.go "System OOM encountered, victim process: %s, pid: %d", as a kubectl get events row',
      },
      {
        line: '{"kind":"Event","involvedObject":{"kind":"Node","name":"ip-10-0-1-2.us-west-2.compute.internal"},"reason":"SystemOOM","type":"Warning","source":{"component":"kubelet"},"message":"System OOM encountered"}',
        source:
          'constructed from kubernetes/kubernetes@v1.31.0-alpha.2:pkg/kubelet/oom/oom_watcher_linux.go (kubelet before the victim was named), as Event JSON',
      },
      {
        line: '[ 8123.551201] Memory cgroup out of memory: Killed process 41872 (python3) total-vm:8123340kB, anon-rss:4012332kB, file-rss:0kB, shmem-rss:0kB, UID:1000 pgtables:8120kB oom_score_adj:985',
        source:
          'constructed from torvalds/linux mm/oom_kill.c "Memory cgroup out of memory" (kernel 5.x wording "Killed process")',
      },
      {
        line: 'Warning OOMKilled pod/your-pod-name Container "container-name" was killed due to OOM (Out of Memory). Memory limit: 512Mi, Memory usage: 513Mi',
        source: seedSection(4),
      },
      {
        line: '[18026.221140] Memory cgroup out of memory: Killed process 140339 (python3) total-vm:120832kB, anon-rss:15596kB, file-rss:8924kB, shmem-rss:0kB, UID:0 pgtables:276kB oom_score_adj:-997',
        source:
          'https://github.com/kubernetes-sigs/aws-efs-csi-driver/issues/1218 (test/fixtures/karpenter-samples.jsonl ref-023)',
      },
    ],
    silent: [
      {
        line: '  Normal   NodeAllocatableEnforced  28m                kubelet                Updated Node Allocatable limit across pods',
        source: 'https://github.com/aws/karpenter-provider-aws/issues/6635 (train-120)',
      },
      {
        line: '  MemoryPressure   False   Fri, 09 Sep 2022 17:27:30 -0700   Fri, 09 Sep 2022 14:46:52 -0700   KubeletHasSufficientMemory   kubelet has sufficient memory available',
        source: 'https://github.com/aws/karpenter-provider-aws/issues/2489 (train-130)',
      },
      {
        line: 'Normal  Started  pod/web-1  kubelet  Started container web',
        source: "constructed from kubelet's 'Started container %v'",
      },
    ],
  },
});
