/**
 * Writes the bundled example logs under examples/. Deterministic (seeded), so re-running it gives
 * the same files. Healthy lines follow the shapes of real Karpenter v1 output
 * (test/fixtures/karpenter-samples.jsonl); the incidents use real error texts.
 *
 *   npx tsx scripts/generate-examples.ts
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { encodeSubscriptionData } from '../lambdas/core/decode/subscription-payload';

const out = join(__dirname, '..', 'examples');
let seed = 20261129;
const random = (): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
const suffix = (n = 5): string => Array.from({ length: n }, () => pick([...'bcdfghjklmnpqrstvwxz2456789'])).join('');

const start = Date.parse('2026-11-28T02:00:00.000Z');
let clock = start;
const tick = (ms: number): string => new Date((clock += Math.floor(ms * (0.5 + random())))).toISOString();

const zones = ['us-west-2a', 'us-west-2b', 'us-west-2c'];
const subnets = {
  'us-west-2a': 'subnet-0a1b2c3d4e5f60718',
  'us-west-2b': 'subnet-0b2c3d4e5f6071829',
  'us-west-2c': 'subnet-0c3d4e5f607182930',
};
const types = ['m5.large', 'm5.xlarge', 'c6i.2xlarge', 'r6i.xlarge', 'm6g.large', 'c7g.xlarge'];
const commit = '0871602';

const json = (fields: Record<string, unknown>): string => JSON.stringify(fields);
const line = (level: string, message: string, fields: Record<string, unknown> = {}): string =>
  json({ level, time: tick(900), logger: 'controller', message, commit, ...fields });

function healthyCycle(lines: string[]): void {
  const pool = pick(['default', 'default', 'batch']);
  const claim = `${pool}-${suffix()}`;
  const zone = pick(zones);
  const type = pick(types);
  const node = `ip-10-0-${Math.floor(random() * 250)}-${Math.floor(random() * 250)}.us-west-2.compute.internal`;
  const instance = `i-0${Array.from({ length: 16 }, () => pick([...'0123456789abcdef'])).join('')}`;
  const reconcile = () => ({ reconcileID: `${suffix(8)}-${suffix(4)}-${suffix(4)}-${suffix(4)}-${suffix(12)}` });
  lines.push(
    line('INFO', 'found provisionable pod(s)', {
      controller: 'provisioner',
      Pods: `default/web-${suffix(9)}-${suffix()}`,
      duration: '22.4ms',
    }),
  );
  lines.push(
    line('INFO', 'computed new nodeclaim(s) to fit pod(s)', {
      controller: 'provisioner',
      nodeclaims: 1,
      pods: 1 + Math.floor(random() * 4),
    }),
  );
  lines.push(
    line('INFO', 'created nodeclaim', {
      controller: 'provisioner',
      NodePool: { name: pool },
      NodeClaim: { name: claim },
      requests: { cpu: '1260m', memory: '1870Mi', pods: '7' },
      'instance-types': `${type}, m5a.large, m6i.large and 42 other(s)`,
    }),
  );
  lines.push(
    line('INFO', 'launched nodeclaim', {
      controller: 'nodeclaim.lifecycle',
      controllerGroup: 'karpenter.sh',
      controllerKind: 'NodeClaim',
      NodeClaim: { name: claim },
      ...reconcile(),
      'provider-id': `aws:///${zone}/${instance}`,
      'instance-type': type,
      zone,
      'capacity-type': pick(['spot', 'on-demand']),
      allocatable: { cpu: '1930m', memory: '7075Mi', pods: '29' },
    }),
  );
  lines.push(
    line('INFO', 'registered nodeclaim', {
      controller: 'nodeclaim.lifecycle',
      NodeClaim: { name: claim },
      Node: { name: node },
      ...reconcile(),
    }),
  );
  lines.push(
    line('INFO', 'initialized nodeclaim', {
      controller: 'nodeclaim.lifecycle',
      NodeClaim: { name: claim },
      Node: { name: node },
      ...reconcile(),
      allocatable: { cpu: '1930m', memory: '7075Mi', pods: '29' },
    }),
  );
  if (random() < 0.3) {
    lines.push(
      line('INFO', 'disrupting node(s)', {
        controller: 'disruption',
        command: `Underutilized/Delete, terminating 1 nodes (1 pods) ${node}/${type}/on-demand`,
        decision: 'delete',
        'disrupted-node-count': 1,
      }),
    );
    lines.push(
      line('INFO', 'tainted node', {
        controller: 'node.termination',
        Node: { name: node },
        'taint.Key': 'karpenter.sh/disrupted',
        'taint.Value': '',
        'taint.Effect': 'NoSchedule',
      }),
    );
    lines.push(line('INFO', 'deleted node', { controller: 'node.termination', Node: { name: node } }));
    lines.push(
      line('INFO', 'deleted nodeclaim', {
        controller: 'nodeclaim.lifecycle',
        NodeClaim: { name: claim },
        Node: { name: node },
        'provider-id': `aws:///${zone}/${instance}`,
      }),
    );
  }
  if (random() < 0.1) {
    lines.push(
      line('INFO', 'initiating delete from interruption message', {
        controller: 'interruption',
        queue: 'karpenter-demo',
        messageKind: 'SpotInterruptionKind',
        NodeClaim: { name: claim },
        action: 'CordonAndDrain',
        Node: { name: node },
      }),
    );
  }
  if (random() < 0.15)
    lines.push(
      line('DEBUG', 'discovered subnets', { subnets: Object.entries(subnets).map(([z, s]) => `${s} (${z})`) }),
    );
}

// 1. Controller log: a healthy Karpenter in which a subnet runs dry and a GPU type hits ICE.
const controller: string[] = [];
while (controller.length < 1400) healthyCycle(controller);
for (let i = 0; i < 14; i++) {
  const claim = `default-${suffix()}`;
  const subnet = i < 9 ? subnets['us-west-2a'] : subnets['us-west-2b'];
  controller.push(
    line('ERROR', 'failed launching nodeclaim', {
      controller: 'nodeclaim.lifecycle',
      controllerGroup: 'karpenter.sh',
      controllerKind: 'NodeClaim',
      NodeClaim: { name: claim },
      error: `creating instance, insufficient capacity, with fleet error(s), InsufficientFreeAddressesInSubnet: There are not enough free addresses in subnet '${subnet}' to satisfy the requested number of instances.`,
    }),
  );
  healthyCycle(controller);
}
for (let i = 0; i < 8; i++) {
  const claim = `gpu-${suffix()}`;
  controller.push(
    line('ERROR', 'failed launching nodeclaim', {
      controller: 'nodeclaim.lifecycle',
      NodeClaim: { name: claim },
      error:
        'creating instance, insufficient capacity, with fleet error(s), InsufficientInstanceCapacity: We currently do not have sufficient g5.xlarge capacity in the Availability Zone you requested (us-west-2c). Our system will be working on provisioning additional capacity.',
    }),
  );
  controller.push(line('INFO', 'deleted nodeclaim', { controller: 'nodeclaim.lifecycle', NodeClaim: { name: claim } }));
  healthyCycle(controller);
}
while (controller.length < 2000) healthyCycle(controller);
writeFileSync(join(out, 'karpenter-controller.log'), `${controller.join('\n')}\n`);

// 2. Kubernetes events, as the Fluent Bit kubernetes_events input ships them.
const event = (
  reason: string,
  type: string,
  kind: string,
  namespace: string,
  name: string,
  message: string,
  component: string,
): string => {
  const when = tick(20000);
  return json({
    metadata: { name: `${name}.${suffix(16)}`, namespace, creationTimestamp: when },
    involvedObject: { kind, namespace, name, apiVersion: kind === 'Pod' ? 'v1' : 'karpenter.sh/v1' },
    reason,
    message,
    source: { component },
    firstTimestamp: when,
    lastTimestamp: when,
    count: 1,
    type,
    reportingComponent: component,
  });
};
const events: string[] = [];
for (let i = 0; i < 12; i++) {
  events.push(
    event(
      'Nominated',
      'Normal',
      'Pod',
      'default',
      `web-${suffix(9)}-${suffix()}`,
      `Pod should schedule on: nodeclaim/default-${suffix()}`,
      'karpenter',
    ),
  );
  events.push(
    event(
      'Launched',
      'Normal',
      'NodeClaim',
      '',
      `default-${suffix()}`,
      'Status condition transitioned, Type: Launched, Status: Unknown -> True, Reason: Launched',
      'karpenter',
    ),
  );
}
for (let i = 0; i < 6; i++) {
  events.push(
    event(
      'Unconsolidatable',
      'Normal',
      'Node',
      '',
      'ip-10-0-31-17.us-west-2.compute.internal',
      'pdb "payments/payments-api" prevents pod evictions',
      'karpenter',
    ),
  );
  events.push(
    event(
      'DisruptionBlocked',
      'Normal',
      'NodeClaim',
      '',
      'default-x7k2p',
      'Cannot disrupt NodeClaim: pdb "payments/payments-api" prevents pod evictions',
      'karpenter',
    ),
  );
}
const pending = `ml-inference-${suffix(10)}-${suffix()}`;
for (let i = 0; i < 5; i++) {
  events.push(
    event(
      'FailedScheduling',
      'Warning',
      'Pod',
      'ml',
      pending,
      "0/7 nodes are available: 3 node(s) had untolerated taint {nvidia.com/gpu: true}, 4 node(s) didn't match Pod's node affinity/selector. preemption: 0/7 nodes are available: 7 Preemption is not helpful for scheduling.",
      'default-scheduler',
    ),
  );
}
events.push(
  event(
    'FailedScheduling',
    'Warning',
    'Pod',
    'karpenter',
    'karpenter-6d8f7b9c54-q2w4x',
    '0/2 nodes are available: 2 Insufficient memory. preemption: 0/2 nodes are available: 2 No preemption victims found for incoming pod.',
    'default-scheduler',
  ),
);
events.push(
  event(
    'Registered',
    'Normal',
    'NodeClaim',
    '',
    `default-${suffix()}`,
    'Status condition transitioned, Type: Registered, Status: Unknown -> True, Reason: Registered',
    'karpenter',
  ),
);
writeFileSync(join(out, 'kubernetes-events.jsonl'), `${events.join('\n')}\n`);

// 3. A Lambda event from the Container Insights application log group, Fluent Bit records inside.
const fluentBit = (log: string) =>
  json({
    time: new Date(clock).toISOString(),
    stream: 'stderr',
    _p: 'F',
    log,
    kubernetes: {
      pod_name: 'karpenter-6d8f7b9c54-8zr7n',
      namespace_name: 'karpenter',
      container_name: 'controller',
      host: 'ip-10-0-12-4.us-west-2.compute.internal',
    },
  });
const awslogEvents = [
  line('INFO', 'found provisionable pod(s)', { controller: 'provisioner', Pods: 'batch/etl-7d9f8c6b5d-k2m4p' }),
  line('ERROR', 'could not schedule pod', {
    controller: 'provisioner',
    Pod: { name: 'etl-7d9f8c6b5d-k2m4p', namespace: 'batch' },
    error: 'all available instance types exceed limits for nodepool: "batch"',
  }),
  line('ERROR', 'Reconciler error', {
    controller: 'nodeclass',
    EC2NodeClass: { name: 'default' },
    error:
      'creating instance profile, AccessDenied: User: arn:aws:sts::111122223333:assumed-role/KarpenterControllerRole-demo/1700000000 is not authorized to perform: iam:CreateInstanceProfile on resource: arn:aws:iam::111122223333:instance-profile/demo_123 because no identity-based policy allows the iam:CreateInstanceProfile action',
  }),
].map((log, index) => ({
  id: `${38000000000000000000000000000000000000000000000000000000n + BigInt(index)}`,
  timestamp: clock + index,
  message: fluentBit(log),
}));
const data = encodeSubscriptionData({
  messageType: 'DATA_MESSAGE',
  owner: '111122223333',
  logGroup: '/aws/containerinsights/demo/application',
  logStream:
    'ip-10-0-12-4.us-west-2.compute.internal-application.var.log.containers.karpenter-6d8f7b9c54-8zr7n_karpenter_controller-3f2a.log',
  subscriptionFilters: ['karpenter-doctor'],
  logEvents: awslogEvents,
});
writeFileSync(join(out, 'awslogs-event.json'), `${JSON.stringify({ awslogs: { data } }, null, 2)}\n`);
console.log(
  `wrote ${controller.length} controller lines, ${events.length} events, ${awslogEvents.length} awslogs events to ${out}`,
);
