/**
 * The zones an EC2 capacity error names: the one it failed in ("the Availability Zone you requested
 * (eu-west-1a)") and the ones it recommends ("You can currently get p4d.24xlarge capacity by … choosing
 * eu-west-1b"). A recommended zone has capacity: it must never be reported as failing.
 */
export interface CapacityZones {
  failing: string[];
  recommended: string[];
}

const ZONE = /[a-z]{2}(?:-[a-z]+)+-\d[a-z](?:-[a-z0-9]+)?/g;
const REQUESTED = /availability zone you requested \(([^)]{1,200})\)/gi;
// EC2: "… by not specifying an Availability Zone in your request or choosing us-east-1b, us-east-1c."
const RECOMMENDED = /you can currently get [^\n]{0,200}? capacity by [^\n]{0,200}?choosing ([a-z0-9, -]{1,200})/gi;

export function capacityZones(lines: readonly string[], zones: readonly string[]): CapacityZones {
  const requested = new Set<string>();
  const recommended = new Set<string>();
  for (const line of lines) {
    for (const match of line.matchAll(REQUESTED)) for (const zone of match[1]!.match(ZONE) ?? []) requested.add(zone);
    for (const match of line.matchAll(RECOMMENDED))
      for (const zone of match[1]!.match(ZONE) ?? []) recommended.add(zone);
  }
  const named = requested.size > 0 ? [...requested] : [...zones];
  return { failing: named.filter((zone) => !recommended.has(zone)), recommended: [...recommended] };
}
