import type { Finding } from '../findings/finding';
import { CATALOG } from '../recognise/rules';
import type { RuleFamily } from '../recognise/rules/types';

const BY_FAMILY: Record<RuleFamily, string> = {
  scheduling: 'pods stay Pending',
  capacity: 'Karpenter cannot add nodes',
  network: 'new nodes and pods get no IP address',
  storage: 'pods wait for their volumes',
  node: 'new nodes do not become usable',
  workload: 'containers fail or are throttled',
  'aws-access': 'Karpenter cannot call AWS: nothing scales',
  configuration: 'Karpenter cannot launch nodes for the NodePools concerned',
  disruption: 'nodes are not consolidated or replaced',
  'control-plane': 'the Karpenter controller is not working normally',
};

/** What is blocked and how much: `Karpenter cannot add nodes (3 NodeClaims) · 12 times since 03:02 UTC`. */
export function impactOf(finding: Finding): string {
  const e = finding.entities;
  const base =
    finding.rule === 'karpenter-controller-unschedulable'
      ? 'Karpenter is not running: nothing scales'
      : finding.rule === 'subnet-ip-headroom-low'
        ? 'new nodes and pods will get no IP address once the subnets run out'
        : BY_FAMILY[CATALOG[finding.rule].family];
  const counted = [count(e.nodeclaims?.length, 'NodeClaim'), count(e.pods?.length, 'pod')].filter(Boolean);
  const since = finding.firstSeen ? ` since ${finding.firstSeen.replace('T', ' ').replace(/\.\d+Z$|Z$/, '')} UTC` : '';
  const times = `${finding.occurrences} occurrence${finding.occurrences === 1 ? '' : 's'}${since}`;
  return `${base}${counted.length ? ` (${counted.join(', ')})` : ''} · ${times}`;
}

const count = (n: number | undefined, noun: string): string => (n ? `${n} ${noun}${n === 1 ? '' : 's'}` : '');
