import { adviseGroupRaise } from '../../../lambdas/core/advice/sizing';
import type { NodegroupFacts } from '../../../lambdas/core/findings/context';

const selfManaged = (minSize?: number, desiredSize?: number, maxSize?: number): NodegroupFacts => ({
  name: 'system',
  kind: 'self-managed',
  autoScalingGroups: ['system-asg'],
  minSize,
  desiredSize,
  maxSize,
});
const managed = (minSize: number, desiredSize: number, maxSize: number): NodegroupFacts => ({
  name: 'system',
  kind: 'managed',
  autoScalingGroups: ['eks-system-1'],
  minSize,
  desiredSize,
  maxSize,
});

describe('adviseGroupRaise', () => {
  it('raises the minimum by one and never lowers desired (min 3, desired 5, max 6)', () => {
    const advice = adviseGroupRaise(selfManaged(3, 5, 6), 'prod', 'us-west-2');
    expect(advice.after).toEqual({ minSize: 4, desiredSize: 5, maxSize: 6 });
    expect(advice.commands).toEqual([
      'aws autoscaling update-auto-scaling-group --auto-scaling-group-name system-asg --min-size 4 --region us-west-2',
    ]);
    expect(advice.detail).toContain('desired stays 5');
  });

  it('raises the maximum when the group is at it (managed 1/1/1)', () => {
    const advice = adviseGroupRaise(managed(1, 1, 1), 'prod', undefined);
    expect(advice.after).toEqual({ minSize: 2, desiredSize: 2, maxSize: 2 });
    expect(advice.commands).toEqual([
      'aws eks update-nodegroup-config --cluster-name prod --nodegroup-name system --scaling-config minSize=2,maxSize=2,desiredSize=2',
    ]);
    expect(advice.detail).toMatch(/maximum 1 → 2/);
  });

  it('raises the maximum of a self-managed group with --max-size', () => {
    const advice = adviseGroupRaise(selfManaged(2, 2, 2), 'prod', undefined);
    expect(advice.commands[0]).toBe(
      'aws autoscaling update-auto-scaling-group --auto-scaling-group-name system-asg --min-size 3 --max-size 3 --desired-capacity 3',
    );
  });

  it('brings an empty group to two nodes, one per controller replica', () => {
    expect(adviseGroupRaise(managed(0, 0, 4), 'prod', undefined).after).toEqual({
      minSize: 2,
      desiredSize: 2,
      maxSize: 4,
    });
  });

  it('fills no number when the sizes are unknown, and reads them first', () => {
    const advice = adviseGroupRaise(selfManaged(1, undefined, 4), 'prod', 'us-west-2');
    expect(advice.known).toBe(false);
    expect(advice.commands[0]).toMatch(
      /^aws autoscaling describe-auto-scaling-groups --auto-scaling-group-names system-asg /,
    );
    expect(advice.commands[1]).toContain('--min-size <new-min>');
    expect(advice.detail).toMatch(/Never set a value below the current one/);
  });

  it('lists the node groups first when none is known', () => {
    const advice = adviseGroupRaise(undefined, 'prod', undefined);
    expect(advice.commands[0]).toBe('aws eks list-nodegroups --cluster-name prod');
    expect(advice.commands.join('\n')).not.toMatch(/=\d/);
  });

  it('never lowers a size, whatever the live sizes', () => {
    for (let min = 0; min <= 6; min++) {
      for (let desired = min; desired <= 7; desired++) {
        for (let max = desired; max <= 8; max++) {
          const { after } = adviseGroupRaise(managed(min, desired, max), 'c', undefined);
          expect(after!.minSize).toBeGreaterThan(min);
          expect(after!.desiredSize).toBeGreaterThanOrEqual(Math.max(desired, after!.minSize));
          expect(after!.maxSize).toBeGreaterThanOrEqual(Math.max(max, after!.minSize));
        }
      }
    }
  });
});
