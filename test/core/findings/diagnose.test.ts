import { emptyContext } from '../../../lambdas/core/findings/context';
import { diagnose, RULE_IDS } from '../../../lambdas/core/recognise/rules';
import { shellArg } from '../../../lambdas/core/advice/shell';
import type { Entities } from '../../../lambdas/core/model';

const commandsOf = (rule: (typeof RULE_IDS)[number], entities: Entities, context = emptyContext()) =>
  diagnose({ rule, cluster: 'prod', region: 'us-west-2', entities, occurrences: 3, context }).remediation.flatMap(
    (s) => s.commands,
  );

describe('diagnose', () => {
  it.each(RULE_IDS)('%s explains the cause and gives at least one step and a doc link', (rule) => {
    const result = diagnose({ rule, cluster: 'prod', entities: {}, occurrences: 1, context: emptyContext() });
    expect(result.diagnosis.length).toBeGreaterThan(60);
    expect(result.remediation.length).toBeGreaterThan(0);
    expect(result.docs.every((doc) => doc.startsWith('https://'))).toBe(true);
  });

  it('fills the taint removal command with the node and taint found (seed §9)', () => {
    const commands = commandsOf('scheduling-untolerated-taint', {
      taints: ['dedicated=gpu:NoSchedule'],
      nodes: ['ip-10-0-1-7.ec2.internal'],
      workloads: ['ml/deployment/infer'],
    });
    expect(commands).toContain('kubectl taint nodes ip-10-0-1-7.ec2.internal dedicated:NoSchedule-');
    expect(commands).toContain('kubectl -n ml edit deployment infer');
  });

  it('never suggests removing system taints', () => {
    const result = diagnose({
      rule: 'scheduling-untolerated-taint',
      cluster: 'prod',
      entities: { taints: ['karpenter.sh/disrupted'] },
      occurrences: 1,
      context: emptyContext(),
    });
    expect(result.remediation.flatMap((s) => s.commands).some((c) => c.startsWith('kubectl taint'))).toBe(false);
    expect(result.remediation.map((s) => s.detail).join(' ')).toMatch(/Do not remove them/);
  });

  it('names the subnets, and the VPC once it is known (seed §11)', () => {
    expect(commandsOf('subnet-ip-exhaustion', { subnets: ['subnet-0783288fba3453a60'] })[0]).toMatch(
      /^aws ec2 describe-subnets --subnet-ids subnet-0783288fba3453a60 .* --region us-west-2$/,
    );
    const context = {
      ...emptyContext(),
      subnets: [
        {
          subnetId: 'subnet-0783288fba3453a60',
          vpcId: 'vpc-0abc',
          availableIps: 0,
          totalIps: 251,
          availabilityZone: 'us-west-2a',
        },
      ],
    };
    const result = diagnose({
      rule: 'subnet-ip-exhaustion',
      cluster: 'prod',
      entities: { subnets: ['subnet-0783288fba3453a60'] },
      occurrences: 1,
      context,
    });
    expect(result.remediation.flatMap((s) => s.commands)).toContain(
      'aws ec2 associate-vpc-cidr-block --vpc-id vpc-0abc --cidr-block <new-cidr>',
    );
    expect(result.diagnosis).toContain('subnet-0783288fba3453a60 (us-west-2a): 0 of 251 free');
    expect(result.remediation.find((s) => s.action)?.action).toBe('plan-subnet-capacity');
  });

  it('names the real node group and a command within its max for the controller rule (seed §1)', () => {
    const context = {
      ...emptyContext(),
      nodegroups: [
        {
          name: 'system',
          kind: 'managed' as const,
          autoScalingGroups: ['eks-system-1'],
          minSize: 1,
          desiredSize: 1,
          maxSize: 3,
        },
      ],
    };
    expect(
      commandsOf('karpenter-controller-unschedulable', { pods: ['karpenter/karpenter-6d8f7b9c54-q2w4x'] }, context),
    ).toEqual(
      expect.arrayContaining([
        'aws eks update-nodegroup-config --cluster-name prod --nodegroup-name system --scaling-config minSize=2,maxSize=3,desiredSize=2 --region us-west-2',
        'helm -n karpenter upgrade karpenter oci://public.ecr.aws/karpenter/karpenter --version <installed-chart-version> --reuse-values --set replicas=1',
      ]),
    );
    const selfManaged = {
      ...emptyContext(),
      nodegroups: [
        {
          name: 'sys',
          kind: 'self-managed' as const,
          autoScalingGroups: ['sys-asg'],
          minSize: 3,
          desiredSize: 5,
          maxSize: 6,
        },
      ],
    };
    // Issue 18: min 3 / desired 5 / max 6 must never become 2 / 2.
    expect(commandsOf('karpenter-controller-unschedulable', {}, selfManaged)).toContain(
      'aws autoscaling update-auto-scaling-group --auto-scaling-group-name sys-asg --min-size 4 --region us-west-2',
    );
    const unknownSizes = {
      ...emptyContext(),
      nodegroups: [
        { name: 'sys', kind: 'self-managed' as const, autoScalingGroups: ['sys-asg'], minSize: 1, maxSize: 4 },
      ],
    };
    expect(commandsOf('karpenter-controller-unschedulable', {}, unknownSizes)).toContain(
      'aws autoscaling update-auto-scaling-group --auto-scaling-group-name sys-asg --min-size <new-min> --max-size <new-max> --desired-capacity <new-desired> --region us-west-2',
    );
  });

  it('picks the vCPU quota of the instance family', () => {
    expect(
      commandsOf('ec2-quota-exceeded', { quotas: ['VcpuLimitExceeded'], instanceTypes: ['g5.xlarge'] })[0],
    ).toContain('--quota-code L-DB2E81BA');
    expect(
      commandsOf('ec2-quota-exceeded', { quotas: ['MaxSpotInstanceCountExceeded'], instanceTypes: ['m5.large'] })[0],
    ).toContain('--quota-code L-34B43A08');
  });

  it('quotes hostile names from logs so a pasted command cannot run anything else', () => {
    const commands = commandsOf('node-not-ready', { nodes: ["x'; rm -rf / #"] });
    expect(commands[0]).toBe(`kubectl describe node 'x'\\''; rm -rf / #'`);
  });
});

describe('shellArg', () => {
  it.each([
    ['subnet-0783288fba3453a60', 'subnet-0783288fba3453a60'],
    ['a b', "'a b'"],
    ['$(id)', "'$(id)'"],
    ["it's", "'it'\\''s'"],
  ])('%s → %s', (value, quoted) => expect(shellArg(value)).toBe(quoted));
});
