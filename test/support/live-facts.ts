import type { LiveFact } from '../../lambdas/core/recognise/rules';
import type { Entities } from '../../lambdas/core/model';
import type { FindingContext, NodegroupFacts, SubnetFacts } from '../../lambdas/core/findings/context';

/** What the enrichment adds to a finding: its live facts without the errors. */
export type LiveContext = Omit<FindingContext, 'enrichmentErrors'>;

const VPC = 'vpc-0a1b2c3d4e5f60718';
/** Free addresses of the three subnets, in order: dry, nearly dry, and fragmented (free, but no /28 left). */
const FREE = [0, 3, 180] as const;
const ZONES = ['us-west-2a', 'us-west-2b', 'us-west-2c'] as const;
const FALLBACK_SUBNETS = ['subnet-0783288fba3453a60', 'subnet-0f9e8d7c6b5a40312', 'subnet-0aa11bb22cc33dd44'];

/** The group that runs the controller, mid-outage: min 3, desired 5, max 6 (issue 18). */
export const SELF_MANAGED_SYSTEM: NodegroupFacts = {
  name: 'system',
  kind: 'self-managed',
  autoScalingGroups: ['eks-system-asg-7f3a'],
  minSize: 3,
  desiredSize: 5,
  maxSize: 6,
};
/** A managed group at its maximum: the maximum has to rise (issue 18). */
export const MANAGED_AT_MAX: NodegroupFacts = {
  name: 'system',
  kind: 'managed',
  autoScalingGroups: ['eks-system-12c4a7b0-1b2c'],
  minSize: 1,
  desiredSize: 1,
  maxSize: 1,
};

/**
 * The subnets the enrichment would describe: the ones the finding names (or three discovered ones),
 * each /24 of one VPC in its own zone, with the free counts of FREE in turn.
 */
export function subnetFacts(entities: Entities): SubnetFacts[] {
  const named = entities.subnets?.length ? entities.subnets : FALLBACK_SUBNETS;
  return named.map((subnetId, i) => ({
    subnetId,
    availabilityZone: ZONES[i % ZONES.length],
    vpcId: VPC,
    availableIps: FREE[i % FREE.length],
    totalIps: 251,
  }));
}

/**
 * One small fixture per kind of live fact a rule's `enrichment` names, as the enrichment would fill
 * it for a finding with these entities; a kind with two states to cover has two variants.
 */
export const LIVE_FACTS: Readonly<Record<LiveFact, (entities: Entities) => LiveContext[]>> = {
  subnets: (entities) => [
    { subnets: subnetFacts(entities), vpcs: [{ vpcId: VPC, cidrBlocks: ['10.0.0.0/22'], cidrSlotsLeft: 4 }] },
  ],
  nodegroups: () => [{ nodegroups: [SELF_MANAGED_SYSTEM] }, { nodegroups: [MANAGED_AT_MAX] }],
  quota: () => [
    {
      quotas: [
        {
          quotaCode: 'L-1216C47A',
          quotaName: 'Running On-Demand Standard (A, C, D, H, I, M, R, T, Z) instances',
          value: 64,
        },
        { quotaCode: 'L-DB2E81BA', quotaName: 'Running On-Demand G and VT instances', value: 64 },
        {
          quotaCode: 'L-34B43A08',
          quotaName: 'All Standard (A, C, D, H, I, M, R, T, Z) Spot Instance Requests',
          value: 32,
        },
      ],
    },
  ],
};

/** Every live context the rule's declared enrichment gives a finding with these entities. */
export function liveContextsOf(enrichment: readonly LiveFact[] | undefined, entities: Entities): LiveContext[] {
  return (enrichment ?? [])
    .reduce<LiveContext[]>(
      (contexts, kind) => contexts.flatMap((c) => LIVE_FACTS[kind](entities).map((facts) => ({ ...c, ...facts }))),
      [{}],
    )
    .filter((c) => Object.keys(c).length > 0);
}
