import type { NodegroupFacts } from '../context';
import type { Facts } from './facts';
import { shellArg } from './shell';
import type { RemediationStep } from './types';

/** The step that gives the node group running the Karpenter controller room for both replicas. */
export function raiseNodegroupStep(f: Facts, group?: NodegroupFacts): RemediationStep {
  if (group?.kind === 'managed') {
    const max = group.maxSize ?? 2;
    const min = Math.min(Math.max((group.minSize ?? 0) + 1, 2), max);
    return {
      title: `Raise the minimum size of node group ${group.name}`,
      detail: `Managed node group: min ${group.minSize ?? '?'}, desired ${group.desiredSize ?? '?'}, max ${group.maxSize ?? '?'}. Two nodes give room for both replicas.`,
      commands: [
        `aws eks update-nodegroup-config --cluster-name ${f.cluster} --nodegroup-name ${shellArg(group.name)} --scaling-config minSize=${min},maxSize=${Math.max(max, min)},desiredSize=${Math.max(min, group.desiredSize ?? 0)}${f.region}`,
      ],
      action: 'raise-system-nodegroup',
    };
  }
  const asg = group?.autoScalingGroups[0] ? shellArg(group.autoScalingGroups[0]) : '<node-group-asg-name>';
  return {
    title: group
      ? `Raise the minimum size of node group ${group.name}`
      : 'Scale out the node group that runs Karpenter',
    detail: group
      ? `Auto Scaling group ${group.autoScalingGroups.join(', ')}: min ${group.minSize ?? '?'}, desired ${group.desiredSize ?? '?'}, max ${group.maxSize ?? '?'}.`
      : 'Raise the minimum of the Auto Scaling group (or managed node group) that runs the controller, so both replicas fit.',
    commands: [
      `aws autoscaling update-auto-scaling-group --auto-scaling-group-name ${asg} --min-size 2 --desired-capacity 2${f.region}`,
      ...(group ? [] : [`aws eks list-nodegroups --cluster-name ${f.cluster}${f.region}`]),
    ],
    action: 'raise-system-nodegroup',
  };
}
