import { analyzeMessages } from '../../../lambdas/core/analyze';
import { buildFinding } from '../../../lambdas/core/findings/finding';

const denied = (action: string) =>
  `{"level":"ERROR","message":"failed launching nodeclaim","error":"creating instance, operation error EC2: ${action.replace('ec2:', '')}, https response error StatusCode: 403, RequestID: 1, api error UnauthorizedOperation: You are not authorized to perform this operation. User: arn:aws:sts::123456789012:assumed-role/KarpenterControllerRole-prod/s is not authorized to perform: ${action} on resource: arn:aws:ec2:eu-west-1:123456789012:instance/*"}`;

const findingOf = (line: string) =>
  buildFinding(analyzeMessages([{ message: line, origin: { line: 1 } }], 'prod').incidents[0]!, {
    region: 'eu-west-1',
  });

describe('aws-permission-denied for the launch actions', () => {
  it.each([
    ['ec2:RunInstances', 'critical'],
    ['ec2:CreateFleet', 'critical'],
    ['ec2:DescribeSpotPriceHistory', 'high'],
  ])('%s denied → %s', (action, severity) => {
    const finding = findingOf(denied(action));
    expect(finding.rule).toBe('aws-permission-denied');
    expect(finding.severity).toBe(severity);
  });

  it('shows the missing statement as valid JSON for the cluster and region', () => {
    const finding = findingOf(denied('ec2:RunInstances'));
    expect(finding.diagnosis).toContain('cannot launch any node');
    const detail = finding.remediation.find((s) => s.title.startsWith('Grant'))!.detail;
    const statements = JSON.parse(detail.slice(detail.indexOf('\n[') + 1)) as Array<Record<string, unknown>>;
    expect(statements.map((s) => s.Action)).toEqual([
      ['ec2:RunInstances', 'ec2:CreateFleet'],
      ['ec2:RunInstances', 'ec2:CreateFleet', 'ec2:CreateLaunchTemplate'],
    ]);
    expect(JSON.stringify(statements[1])).toContain('"aws:RequestTag/kubernetes.io/cluster/prod":"owned"');
    expect(JSON.stringify(statements[0])).toContain('arn:aws:ec2:eu-west-1:*:subnet/*');
  });
});
