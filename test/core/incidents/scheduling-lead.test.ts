import { analyzeMessages } from '../../../lambdas/core/analyze';
import { buildFinding, type Finding } from '../../../lambdas/core/findings/finding';

/**
 * The placement rules lead with the specific cause their evidence states (issue 18): which constraint
 * turned the nodes down and how many, the domains the pod may use against those the NodePools offer
 * (Karpenter's `unsatisfiable topology constraint` error), whose anti-affinity it is; then one step to
 * take now, then the durable fix.
 */
function finding(line: string): Finding {
  const { incidents } = analyzeMessages([{ message: line, origin: { file: 'events', line: 1 } }], 'prod');
  expect(incidents).toHaveLength(1);
  return buildFinding(incidents[0]!, { region: 'us-west-2' });
}

const event = (message: string) =>
  JSON.stringify({
    kind: 'Event',
    involvedObject: { kind: 'Pod', namespace: 'shop', name: 'checkout-7d9f8c6b5d-x2z4q' },
    reason: 'FailedScheduling',
    type: 'Warning',
    source: { component: 'default-scheduler' },
    message,
  });

const commands = (f: Finding) => f.remediation.flatMap((step) => step.commands);
const titles = (f: Finding) => f.remediation.map((step) => step.title);

describe('scheduling-affinity-topology leads with the constraint that refused the nodes', () => {
  it("Karpenter's topology spread error: the zones the pod may use against those the NodePools offer, and the counts", () => {
    const f = finding(
      JSON.stringify({
        level: 'ERROR',
        logger: 'controller',
        message: 'could not schedule pod',
        controller: 'provisioner',
        Pod: { name: 'checkout-7d9f8c6b5d-x2z4q', namespace: 'shop' },
        error:
          'unsatisfiable topology constraint for topology spread, key=topology.kubernetes.io/zone (counts = us-west-2a: 2, us-west-2b: 0, podDomains = topology.kubernetes.io/zone In [us-west-2b us-west-2c], nodeDomains = topology.kubernetes.io/zone In [us-west-2a]',
      }),
    );
    expect(f.rule).toBe('scheduling-affinity-topology');
    const sentence = f.diagnosis.split('. ')[0]!;
    expect(sentence).toContain('topology.kubernetes.io/zone');
    // The pod's domains before the NodePools' ones, as the evidence states them.
    expect(sentence).toMatch(/us-west-2b, us-west-2c\b.*\bus-west-2a\b/);
    expect(sentence).toContain('us-west-2a: 2, us-west-2b: 0');
    expect(titles(f)[0]).toMatch(/^Do this now/);
    expect(titles(f)[1]).toMatch(/^Durable fix/);
    // The durable fix offers exactly the zones the pod may use.
    expect(f.remediation[1]!.detail).toContain('us-west-2b, us-west-2c');
    expect(commands(f)).toContain('kubectl -n shop edit deployment checkout');
  });

  it("the scheduler's reasons, counted: most telling first", () => {
    const f = finding(
      event(
        "0/5 nodes are available: 2 node(s) didn't match pod topology spread constraints (missing required label), 3 node(s) didn't match pod anti-affinity rules.",
      ),
    );
    const sentence = f.diagnosis.split('. ')[0]!;
    expect(sentence).toMatch(/3 of 5 nodes[^;]*podAntiAffinity.*; 2 of 5 nodes[^;]*topologyKey/);
  });

  it("other pods' anti-affinity: lists the running pods that carry one, and changes their workload, not this one", () => {
    const f = finding(
      event(
        "0/6 nodes are available: 6 node(s) didn't satisfy existing pods anti-affinity rules. preemption: 0/6 nodes are available: 6 No preemption victims found for incoming pod.",
      ),
    );
    expect(f.diagnosis).toMatch(/^Pods of shop\/deployment\/checkout cannot be placed: 6 of 6 nodes/);
    const [now, durable] = f.remediation;
    expect(now!.title).toMatch(/^Do this now/);
    expect(now!.commands.some((c) => /^kubectl get pods -A .*\.spec\.affinity\.podAntiAffinity\./.test(c))).toBe(true);
    expect(durable!.title).toMatch(/^Durable fix/);
    expect(durable!.commands.join('\n')).not.toContain('checkout');
  });
});

describe('scheduling-node-selector-mismatch leads with what the selector turned down', () => {
  it('counts the nodes the selector refused, reads it from the owner, and compares it with the NodePools', () => {
    const f = finding(
      event(
        "0/5 nodes are available: 5 node(s) didn't match Pod's node affinity/selector. preemption: 0/5 nodes are available: 5 Preemption is not helpful for scheduling.",
      ),
    );
    expect(f.rule).toBe('scheduling-node-selector-mismatch');
    expect(f.diagnosis.split('. ')[0]).toMatch(/\b5 of 5 nodes\b/);
    expect(titles(f)[0]).toMatch(/^Do this now/);
    expect(titles(f)[1]).toMatch(/^Durable fix/);
    expect(commands(f)[0]).toBe(
      'kubectl -n shop get deployment checkout -o jsonpath=\'{.spec.template.spec.nodeSelector}{"\\n"}{.spec.template.spec.affinity.nodeAffinity}\'',
    );
    expect(commands(f).some((c) => /^kubectl get nodepools .*\.spec\.template\.spec\.requirements/.test(c))).toBe(true);
    // A template label is drift: the step that suggests one says so.
    expect(f.remediation[1]!.detail).toMatch(/template label[^.]*drift/);
  });
});
