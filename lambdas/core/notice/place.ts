import { capacityZones } from '../advice/capacity-zones';
import type { Finding } from '../findings/finding';

/**
 * Where the problem is, in the fewest words: the failing zone and its free IPs, the failing zone of a
 * capacity error, the workload, the NodePool or the node. Log-derived names are shortened, not trusted.
 */
export function placeOf(finding: Finding): string {
  const e = finding.entities;
  const subnets = finding.context.subnets ?? [];
  if (e.subnets?.length) {
    const named = subnets.filter((s) => e.subnets!.includes(s.subnetId) && s.availableIps !== undefined);
    const zones = [...new Set(named.map((s) => s.availabilityZone).filter((z): z is string => !!z))];
    if (named.length && zones.length) {
      const free = named.reduce((n, s) => n + (s.availableIps ?? 0), 0);
      const total = named.every((s) => s.totalIps !== undefined)
        ? `/${named.reduce((n, s) => n + (s.totalIps ?? 0), 0)}`
        : '';
      return `${zones.join(',')} ${free}${total} IPs free`;
    }
    return e.subnets.length === 1 ? e.subnets[0]! : `${e.subnets.length} subnets`;
  }
  if (finding.rule === 'insufficient-instance-capacity') {
    const failing = capacityZones(
      finding.evidence.map((x) => x.message),
      e.zones ?? [],
    ).failing;
    const type = e.instanceTypes?.[0];
    return [type, failing.length ? `in ${failing.join(',')}` : ''].filter(Boolean).join(' ');
  }
  const workload = e.workloads?.[0];
  if (workload) {
    const [ns, , name] = workload.split('/');
    return `${ns}/${name}`;
  }
  if (e.nodepools?.[0]) return `nodepool ${e.nodepools[0]}`;
  if (e.nodeclasses?.[0]) return `nodeclass ${e.nodeclasses[0]}`;
  if (e.nodes?.[0]) return e.nodes[0].split('.')[0]!;
  if (e.pods?.[0]) return e.pods[0];
  if (e.iamActions?.[0]) return e.iamActions[0];
  if (e.zones?.[0]) return e.zones[0];
  return '';
}
