import { shellArg } from '../advice/shell';
import type { GroupState, RaisePlan } from './group-raise';

/**
 * After a change is applied the report gives what to run next, not the command already run: how to
 * see the change took, and how to put the group back as it was.
 */
export interface Followup {
  verify: string[];
  undo: string[];
}

/** Verify and undo commands for a raised node group minimum; `before` is the group as read. */
export function raiseFollowup(group: GroupState, plan: RaisePlan, region: string | null, updateId?: string): Followup {
  if (plan.minSize === undefined) return { verify: [], undo: [] };
  const r = region ? ` --region ${shellArg(region)}` : '';
  const name = shellArg(group.name);
  if (group.kind === 'managed') {
    const cluster = shellArg(group.cluster ?? '<cluster>');
    return {
      verify: [
        ...(updateId
          ? [`aws eks describe-update --name ${cluster} --nodegroup-name ${name} --update-id ${shellArg(updateId)}${r}`]
          : []),
        `aws eks describe-nodegroup --cluster-name ${cluster} --nodegroup-name ${name} --query nodegroup.scalingConfig${r}`,
      ],
      undo: [
        `aws eks update-nodegroup-config --cluster-name ${cluster} --nodegroup-name ${name} --scaling-config minSize=${group.minSize},maxSize=${group.maxSize}${r}`,
      ],
    };
  }
  return {
    verify: [
      `aws autoscaling describe-auto-scaling-groups --auto-scaling-group-names ${name} --query 'AutoScalingGroups[].{Min:MinSize,Desired:DesiredCapacity,Max:MaxSize}' --output table${r}`,
    ],
    undo: [
      `aws autoscaling update-auto-scaling-group --auto-scaling-group-name ${name} --min-size ${group.minSize}${r}`,
    ],
  };
}

/** A quota request cannot be withdrawn; it can be followed. */
export function quotaFollowup(requestId: string | undefined, quotaCode: string, region: string | null): Followup {
  const r = region ? ` --region ${shellArg(region)}` : '';
  return {
    verify: [
      requestId
        ? `aws service-quotas get-requested-service-quota-change --request-id ${shellArg(requestId)}${r}`
        : `aws service-quotas list-requested-service-quota-change-history-by-quota --service-code ec2 --quota-code ${shellArg(quotaCode)}${r}`,
    ],
    undo: [],
  };
}
