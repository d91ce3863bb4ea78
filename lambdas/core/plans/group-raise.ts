import { shellArg } from '../advice/shell';

/**
 * The raise of the node group that runs the Karpenter controller: what the remediator applies and
 * what the advice prints, decided in one place. It depends on nothing but shell quoting, so the rule
 * modules' advice can use it without importing the remediation (which imports the rule registry).
 */

/** Live scaling state of the group that runs the Karpenter controller. */
export interface GroupState {
  kind: 'managed' | 'self-managed';
  name: string;
  /** For managed groups: the cluster. */
  cluster?: string;
  minSize: number;
  desiredSize: number;
  maxSize: number;
  optIn: boolean;
  /** The Cluster Autoscaler manages the group (its auto-discovery tag is set): desired is left to it. */
  clusterAutoscaler: boolean;
}

export interface RaisePlan {
  /** Undefined when nothing can be raised (the reason says why). */
  minSize?: number;
  /** The recorded target is already in place: nothing left to do, and that is success. */
  done?: boolean;
  /** Undefined when desired is left alone (the Cluster Autoscaler, or already high enough). */
  desiredSize?: number;
  reason?: string;
}

/** Two replicas of the controller need room on two nodes (the chart's default since v0.16). */
const CONTROLLER_REPLICAS = 2;

/**
 * The new minimum: one more node, and at least two, but never above the configured cap nor the
 * group's maximum, and never lower than today. Desired follows the minimum up, unless the Cluster
 * Autoscaler owns it.
 */
export function planRaise(group: GroupState, cap: number): RaisePlan {
  const ceiling = Math.min(cap, group.maxSize);
  const wanted = Math.max(group.minSize + 1, CONTROLLER_REPLICAS);
  const minSize = Math.min(wanted, ceiling);
  if (minSize <= group.minSize) {
    return {
      reason:
        group.minSize >= group.maxSize
          ? `the group's minimum (${group.minSize}) is already its maximum (${group.maxSize})`
          : `the group's minimum (${group.minSize}) is already at the configured cap (${cap})`,
    };
  }
  if (group.clusterAutoscaler) return { minSize };
  return { minSize, desiredSize: group.desiredSize < minSize ? minSize : undefined };
}

/** The target a raise decided, kept before the change is made. */
export interface RaiseTarget {
  minSize: number;
  desiredSize?: number;
}

export function isRaiseTarget(value: unknown): value is RaiseTarget {
  return typeof value === 'object' && value !== null && Number.isInteger((value as RaiseTarget).minSize);
}

/**
 * The rest of a raise whose target was recorded by an earlier attempt: nothing when live state has
 * reached it (the change applied), else the same target again. Never more than recorded.
 */
export function resumeRaise(group: GroupState, recorded: RaiseTarget): RaisePlan {
  if (group.minSize >= recorded.minSize) return { done: true, reason: 'the recorded target is in place' };
  if (recorded.minSize > group.maxSize)
    return { reason: `the group's maximum (${group.maxSize}) is now below the recorded target (${recorded.minSize})` };
  const desiredSize =
    recorded.desiredSize !== undefined && group.desiredSize < recorded.desiredSize ? recorded.desiredSize : undefined;
  return { minSize: recorded.minSize, desiredSize };
}

/** The commands that make the raise, filled in. */
export function raiseCommands(group: GroupState, plan: RaisePlan, region: string | null): string[] {
  if (plan.minSize === undefined) return [];
  const regionArg = region ? ` --region ${shellArg(region)}` : '';
  if (group.kind === 'managed') {
    const desired = plan.desiredSize !== undefined ? `,desiredSize=${plan.desiredSize}` : '';
    return [
      `aws eks update-nodegroup-config --cluster-name ${shellArg(group.cluster ?? '<cluster>')} --nodegroup-name ${shellArg(group.name)} --scaling-config minSize=${plan.minSize},maxSize=${group.maxSize}${desired}${regionArg}`,
    ];
  }
  const desired = plan.desiredSize !== undefined ? ` --desired-capacity ${plan.desiredSize}` : '';
  return [
    `aws autoscaling update-auto-scaling-group --auto-scaling-group-name ${shellArg(group.name)} --min-size ${plan.minSize}${desired}${regionArg}`,
  ];
}
