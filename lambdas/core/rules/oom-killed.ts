import { DOCS } from '../advice/docs-links';
import { limitRangeStep } from '../advice/requests';
import { anyOf, defineRule } from './types';

export default defineRule({
  info: {
    id: 'oom-killed',
    title: 'Containers are killed for running out of memory',
    severity: 'medium',
    source: 4,
    family: 'workload',
    emittedBy: 'logs',
    recognises: 'OOMKilled, OOMKilling, "killed due to OOM", kernel OOM killer lines',
    keyEntity: 'workloads',
  },
  recognition: {
    clauses: anyOf(
      'oomkill',
      'killed due to oom',
      'out of memory: kill',
      'memory cgroup out of memory',
      'invoked oom-killer',
      'oom-kill:',
      'systemoom',
    ),
  },
  diagnose: (f) => {
    const w = f.workload();
    const pod = f.pod();
    return {
      diagnosis:
        `Containers${f.where('workloads', 'of')} were killed for running out of memory (${f.occurrences} times). Their ` +
        `memory requests are below what they use, so Karpenter packed them onto nodes that cannot hold them; with limits ` +
        `set, the kernel kills them at the limit.`,
      remediation: [
        {
          title: 'See the memory the containers use against their requests and limits',
          detail: 'Compare the last termination reason and the usage with the requests.',
          commands: [`kubectl -n ${pod.namespace} describe pod ${pod.name}`, `kubectl -n ${w.namespace} top pod`],
        },
        {
          title: 'Set memory requests to real usage',
          detail: "Requests drive Karpenter's packing; set them to observed peak usage and the limit above it.",
          commands: [
            `kubectl -n ${w.namespace} set resources ${w.kind} ${w.name} --requests=memory=<observed-peak> --limits=memory=<limit>`,
          ],
        },
        limitRangeStep(w.namespace),
      ],
      docs: [DOCS.limitRange, DOCS.karpenterScheduling],
    };
  },
  examples: {
    fires: [
      {
        line: 'Warning OOMKilled pod/your-pod-name Container "container-name" was killed due to OOM (Out of Memory). Memory limit: 512Mi, Memory usage: 513Mi',
        source: 'seed §4 (shared/seed/karpenter-scaling-troubleshooting.es.txt)',
      },
      {
        line: '[18026.221140] Memory cgroup out of memory: Killed process 140339 (python3) total-vm:120832kB, anon-rss:15596kB, file-rss:8924kB, shmem-rss:0kB, UID:0 pgtables:276kB oom_score_adj:-997',
        source: 'https://github.com/kubernetes-sigs/aws-efs-csi-driver/issues/1218 (shared samples ref-023)',
      },
    ],
    silent: [
      {
        line: 'Normal  Started  pod/web-1  kubelet  Started container web',
        source: "constructed from kubelet's 'Started container %v'",
      },
    ],
  },
});
