import type { SubnetFacts } from '../findings/context';

/** Names the other Karpenter subnets that still have room, so the reader knows which zones can still launch. */
export function roomElsewhere(facts: SubnetFacts[], failing: string[]): string {
  if (failing.length === 0) return '';
  const roomy = facts
    .filter((s) => !failing.includes(s.subnetId) && (s.availableIps ?? 0) >= ROOMY_SUBNET_IPS)
    .sort((a, b) => (b.availableIps ?? 0) - (a.availableIps ?? 0));
  if (roomy.length === 0) {
    return facts.length > failing.length ? ' None of the other known Karpenter subnets has room either.' : '';
  }
  const list = roomy
    .slice(0, 3)
    .map((s) => `${s.subnetId}${s.availabilityZone ? ` (${s.availabilityZone})` : ''}: ${s.availableIps} free`)
    .join('; ');
  return ` Other Karpenter subnets still have room (${list}): Karpenter keeps launching there unless zone or topology constraints pin pods to the full zones.`;
}

/** Free IPs below which a subnet is not worth pointing at: one node with a handful of pods takes more. */
const ROOMY_SUBNET_IPS = 32;

/**
 * ` (subnet: free of total free, trend; …)` from the live facts; a named subnet without facts is said
 * to be unknown rather than left out, so the reader knows to read it first.
 */
export function describeSubnetFacts(facts: SubnetFacts[], named: readonly string[] = []): string {
  const known = facts.filter((s) => s.availableIps !== undefined);
  const unknown = named.filter((id) => !known.some((s) => s.subnetId === id));
  const unknownPart = unknown.length ? [`${unknown.join(', ')}: free addresses unknown, no live subnet facts`] : [];
  if (known.length === 0) return unknownPart.length ? ` (${unknownPart[0]})` : '';
  const parts = known
    .slice(0, 6)
    .map(
      (s) =>
        `${s.subnetId}${s.availabilityZone ? ` (${s.availabilityZone})` : ''}: ${s.availableIps}${s.totalIps ? ` of ${s.totalIps}` : ''} free` +
        (s.hoursToExhaustion !== undefined && s.ipsPerHour !== undefined
          ? `, about ${s.hoursToExhaustion} h left at ${Math.abs(s.ipsPerHour)} fewer an hour`
          : ''),
    );
  return ` (${[...parts, ...unknownPart].join('; ')})`;
}
