import { capacityZones } from '../../../lambdas/core/advice/capacity-zones';
import { analyzeMessages } from '../../../lambdas/core/analyze';
import { buildFinding } from '../../../lambdas/core/findings/finding';

// EC2's InsufficientInstanceCapacity message, as Karpenter wraps it from CreateFleet.
const ICE =
  '{"level":"ERROR","time":"2026-12-01T03:04:00.000Z","logger":"controller","message":"failed launching nodeclaim","NodeClaim":{"name":"gpu-x7k2p"},"nodepool":"gpu","error":"creating instance, insufficient capacity, with fleet error(s), InsufficientInstanceCapacity: We currently do not have sufficient p4d.24xlarge capacity in the Availability Zone you requested (eu-west-1a). Our system will be working on provisioning additional capacity. You can currently get p4d.24xlarge capacity by not specifying an Availability Zone in your request or choosing eu-west-1b."}';

describe('capacityZones', () => {
  it.each([
    ['the requested zone fails, the recommended one has room', [ICE], [], ['eu-west-1a'], ['eu-west-1b']],
    [
      'several recommended zones',
      [
        'We currently do not have sufficient g5.xlarge capacity in the Availability Zone you requested (us-east-1a). You can currently get g5.xlarge capacity by not specifying an Availability Zone in your request or choosing us-east-1b, us-east-1c.',
      ],
      [],
      ['us-east-1a'],
      ['us-east-1b', 'us-east-1c'],
    ],
    [
      'no zone in the message: the record entities, all failing',
      ['InsufficientInstanceCapacity'],
      ['us-west-2a'],
      ['us-west-2a'],
      [],
    ],
    [
      'an entity zone that EC2 recommends is not failing',
      ['You can currently get p4d.24xlarge capacity by choosing eu-west-1b.'],
      ['eu-west-1a', 'eu-west-1b'],
      ['eu-west-1a'],
      ['eu-west-1b'],
    ],
  ])('%s', (_name, lines, zones, failing, recommended) => {
    expect(capacityZones(lines, zones)).toEqual({ failing, recommended });
  });
});

describe('insufficient-instance-capacity notice', () => {
  it('names the zone EC2 recommends as where capacity is, never as failing', () => {
    const [incident] = analyzeMessages([{ message: ICE, origin: { line: 1 } }], 'prod').incidents;
    const finding = buildFinding(incident!, { region: 'eu-west-1' });
    expect(finding.rule).toBe('insufficient-instance-capacity');
    expect(finding.diagnosis).toContain('no capacity for p4d.24xlarge in eu-west-1a.');
    expect(finding.diagnosis).toContain('capacity is available now in eu-west-1b');
    expect(finding.diagnosis).not.toMatch(/no capacity[^.]*eu-west-1b/);
  });
});
