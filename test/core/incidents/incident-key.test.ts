import { incidentKeyOf } from '../../../lambdas/core/incidents/incident-key';

describe('incidentKeyOf', () => {
  it.each([
    ['scheduling-untolerated-taint', { taints: ['b=1', 'a=1'], workloads: ['shop/web'] }, 'a=1,b=1'],
    ['scheduling-insufficient-resources', { resources: ['cpu'], workloads: ['shop/web'] }, 'cpu'],
    ['oom-killed', { workloads: ['shop/web'] }, undefined],
    ['scheduling-untolerated-taint', { workloads: ['shop/web'] }, undefined],
    ['insufficient-instance-capacity', { nodepools: ['gpu', 'web'] }, 'gpu'],
    ['subnet-ip-exhaustion', { subnets: ['subnet-a'] }, undefined],
  ] as const)('keys %s with %j on %s', (rule, entities, key) => {
    expect(incidentKeyOf(rule, { ...entities } as never)).toBe(key);
  });

  it('keys per-workload failures on their cause, never on the workload', () => {
    const a = incidentKeyOf('scheduling-untolerated-taint', { taints: ['x=1'], workloads: ['shop/a'] });
    const b = incidentKeyOf('scheduling-untolerated-taint', { taints: ['x=1'], workloads: ['shop/b'] });
    expect(a).toBe(b);
  });
});
