import type { NodegroupFacts } from '../findings/context';
import { shellArg } from './shell';
import { planRaise, raiseCommands, type GroupState } from '../plans/group-raise';

/** How a node group should be raised so the Karpenter controller fits, from its live sizes. */
export interface SizingAdvice {
  /** The live sizes were read; false when the advice has to read them first. */
  known: boolean;
  title: string;
  detail: string;
  commands: string[];
  before?: { minSize: number; desiredSize: number; maxSize: number };
  after?: { minSize: number; desiredSize: number; maxSize: number };
}

/** Nodes the controller needs: its two replicas spread over two nodes (the chart's default since v0.16). */
const CONTROLLER_NODES = 2;

/**
 * The raise of the group that runs the controller, computed by the remediator's own `planRaise`:
 * never lowers the minimum or the desired size, raises the maximum only when the new minimum needs
 * it, and says so. Without the live sizes it shows how to read them and the rule to apply, never a
 * number that could shrink the group.
 */
export function adviseGroupRaise(
  group: NodegroupFacts | undefined,
  cluster: string,
  region: string | undefined,
): SizingAdvice {
  const regionArg = region ? ` --region ${shellArg(region)}` : '';
  if (!group) return unknownGroup(cluster, regionArg);
  const { minSize, desiredSize, maxSize } = group;
  if (minSize === undefined || desiredSize === undefined || maxSize === undefined) {
    return unknownSizes(group, cluster, regionArg);
  }
  const wanted = Math.max(minSize + 1, CONTROLLER_NODES);
  const raisedMax = Math.max(maxSize, wanted);
  const state: GroupState = {
    kind: group.kind,
    name: group.kind === 'managed' ? group.name : (group.autoScalingGroups[0] ?? group.name),
    cluster,
    minSize,
    desiredSize,
    maxSize: raisedMax,
    optIn: false,
    clusterAutoscaler: false,
  };
  // The cap is the raised maximum: by hand the operator may go past the remediator's own cap.
  const plan = planRaise(state, raisedMax);
  const newMin = plan.minSize ?? minSize;
  const newDesired = plan.desiredSize ?? desiredSize;
  let commands = raiseCommands(state, plan, region ?? null);
  if (group.kind === 'self-managed' && raisedMax > maxSize) {
    commands = commands.map((command) =>
      command.replace(` --min-size ${newMin}`, ` --min-size ${newMin} --max-size ${raisedMax}`),
    );
  }
  const what = group.kind === 'managed' ? `managed node group ${group.name}` : `Auto Scaling group ${state.name}`;
  const changes = [
    `minimum ${minSize} → ${newMin}`,
    newDesired === desiredSize ? `desired stays ${desiredSize}` : `desired ${desiredSize} → ${newDesired}`,
    raisedMax === maxSize
      ? `maximum stays ${maxSize} (the cap)`
      : `maximum ${maxSize} → ${raisedMax}, since the minimum may not pass it`,
  ];
  return {
    known: true,
    title: `Raise the minimum of ${what} to ${newMin}`,
    detail:
      `Live sizes: min ${minSize}, desired ${desiredSize}, max ${maxSize}. ${changes.join('; ')}. ` +
      `Nothing is lowered: the new minimum is one node more than today (at least ${CONTROLLER_NODES}, one per controller replica), ` +
      `and desired only follows it up.`,
    commands,
    before: { minSize, desiredSize, maxSize },
    after: { minSize: newMin, desiredSize: newDesired, maxSize: raisedMax },
  };
}

const RULE_TEXT =
  'new minimum = current minimum + 1 (at least 2, one node per controller replica); desired = the larger of the current desired and the new minimum; maximum = the larger of the current maximum and the new minimum. Never set a value below the current one: that would remove nodes mid-outage.';

function unknownSizes(group: NodegroupFacts, cluster: string, regionArg: string): SizingAdvice {
  if (group.kind === 'managed') {
    const name = shellArg(group.name);
    return {
      known: false,
      title: `Read the sizes of node group ${group.name}, then raise its minimum`,
      detail: `The live sizes of the group could not be read, so no number is filled in. Read them first, then: ${RULE_TEXT}`,
      commands: [
        `aws eks describe-nodegroup --cluster-name ${shellArg(cluster)} --nodegroup-name ${name} --query 'nodegroup.scalingConfig'${regionArg}`,
        `aws eks update-nodegroup-config --cluster-name ${shellArg(cluster)} --nodegroup-name ${name} --scaling-config minSize=<new-min>,maxSize=<new-max>,desiredSize=<new-desired>${regionArg}`,
      ],
    };
  }
  const asg = shellArg(group.autoScalingGroups[0] ?? group.name);
  return {
    known: false,
    title: `Read the sizes of Auto Scaling group ${group.autoScalingGroups[0] ?? group.name}, then raise its minimum`,
    detail: `The live sizes of the group could not be read, so no number is filled in. Read them first, then: ${RULE_TEXT}`,
    commands: [
      `aws autoscaling describe-auto-scaling-groups --auto-scaling-group-names ${asg} --query 'AutoScalingGroups[].{Min:MinSize,Desired:DesiredCapacity,Max:MaxSize}' --output table${regionArg}`,
      `aws autoscaling update-auto-scaling-group --auto-scaling-group-name ${asg} --min-size <new-min> --max-size <new-max> --desired-capacity <new-desired>${regionArg}`,
    ],
  };
}

function unknownGroup(cluster: string, regionArg: string): SizingAdvice {
  return {
    known: false,
    title: 'Find the node group that runs Karpenter, read its sizes, then raise its minimum',
    detail: `The node groups of the cluster could not be read, so no group and no number is filled in. List them and read the sizes of the one the controller runs on (a managed node group, or the Auto Scaling group of a self-managed one), then: ${RULE_TEXT}`,
    commands: [
      `aws eks list-nodegroups --cluster-name ${shellArg(cluster)}${regionArg}`,
      `aws eks describe-nodegroup --cluster-name ${shellArg(cluster)} --nodegroup-name <nodegroup-name> --query 'nodegroup.scalingConfig'${regionArg}`,
      `aws eks update-nodegroup-config --cluster-name ${shellArg(cluster)} --nodegroup-name <nodegroup-name> --scaling-config minSize=<new-min>,maxSize=<new-max>,desiredSize=<new-desired>${regionArg}`,
    ],
  };
}
