import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  CONDITIONS,
  EC2_BENIGN_REASONS,
  EC2_ERROR_CODES,
  EVENT_REASONS,
  NODE_MESSAGES,
  vocabularyFor,
} from '../../../lambdas/core/recognise/vocabulary';
import { loadSamples, rulesOf } from '../../helpers';
import { fill, ruleExists } from '../../support/vocabulary';

const samples = new Set(loadSamples().samples.map((sample) => sample.raw));
/** A generalisation line: never one of the shared labelled samples. */
const unseen = (line: string): string => {
  expect(samples.has(line)).toBe(false);
  return line;
};

/** A line of the vocabulary yields its rule (every rule the data names is in the catalog: checked below). */
function expectFires(line: string, rule: string): void {
  expect({ line, rules: rulesOf(unseen(line)) }).toEqual({ line, rules: expect.arrayContaining([rule]) });
}

function expectSilent(line: string): void {
  expect({ line, rules: rulesOf(unseen(line)) }).toEqual({ line, rules: [] });
}

describe('EC2 error-code vocabulary', () => {
  // The reference table of every EC2 API error code with its family, vendored into the fixtures.
  const reference = readFileSync(join(__dirname, '..', '..', 'fixtures', 'ec2-error-codes.md'), 'utf8');

  it('holds every code of the reference table once, with its family', () => {
    const codes = EC2_ERROR_CODES.map((entry) => entry.code);
    expect(new Set(codes).size).toBe(codes.length);
    const rows = [...reference.matchAll(/^\| `([A-Za-z0-9.]+)` \|[^|]*\|[^|]*\| ([a-z-]+) \|/gm)];
    expect(rows.length).toBeGreaterThanOrEqual(417);
    for (const [, code, family] of rows) {
      expect(EC2_ERROR_CODES.find((entry) => entry.code === code)?.family).toBe(family);
    }
  });

  it('maps each code to a catalog rule (or an agreed issue-19 id) or to a benign reason', () => {
    for (const entry of EC2_ERROR_CODES) {
      if (entry.rule === null) expect(EC2_BENIGN_REASONS[entry.benign!]).toBeDefined();
      else expect({ code: entry.code, rule: entry.rule, known: ruleExists(entry.rule) }).toMatchObject({ known: true });
    }
  });

  const shapes = (code: string): string[] => [
    // AWS SDK for Go v2 (Karpenter v0.3x+), as Karpenter logs it in the error field of its zap JSON
    JSON.stringify({
      level: 'ERROR',
      logger: 'controller',
      message: 'failed launching nodeclaim',
      error: `creating instance, operation error EC2: CreateFleet, https response error StatusCode: 400, RequestID: 4e1b2c3d, api error ${code}: The request could not be completed.`,
    }),
    // CreateFleet per-override errors, joined by Karpenter (pkg/providers/instance/instance.go combineFleetErrors)
    `2023-05-01T10:00:00.000Z\tERROR\tcontroller.provisioner\tCould not launch node, launching instances, with fleet error(s), ${code}: The request could not be completed.; InsufficientInstanceCapacity: We currently do not have sufficient m5.large capacity in the Availability Zone you requested (us-west-2a).\t{"commit": "1ad0d78"}`,
    // AWS SDK for Go v1 (Karpenter v0.5–v0.2x), with the Client. prefix some logs show
    `{"level":"ERROR","message":"Reconciler error","error":"launching instances, Client.${code}: The request could not be completed.\\n\\tstatus code: 400, request id: 4e1b2c3d"}`,
  ];

  it.each(EC2_ERROR_CODES.filter((entry) => entry.rule !== null).map((entry) => [entry.code, entry.rule!]))(
    '%s fires %s',
    (code, rule) => {
      for (const line of shapes(code).slice(0, 1)) expectFires(line, rule);
      // In a fleet error list next to an ICE code, the code's own rule still fires.
      expectFires(shapes(code)[1]!, rule);
      expectFires(shapes(code)[2]!, rule);
    },
  );

  it.each(EC2_ERROR_CODES.filter((entry) => entry.rule === null).map((entry) => [entry.code]))(
    'benign %s fires nothing on its own',
    (code) => {
      expectSilent(
        JSON.stringify({
          level: 'ERROR',
          message: 'Reconciler error',
          error: `describing instances, operation error EC2: DescribeInstances, https response error StatusCode: 400, RequestID: 4e1b2c3d, api error ${code}: The request could not be completed.`,
        }),
      );
    },
  );

  it('does not read a code inside a longer code, nor a plain-word code in prose', () => {
    expectSilent(
      '{"level":"ERROR","message":"Reconciler error","error":"assigning addresses, api error PrivateIpAddressLimitExceeded: Number of private addresses will exceed limit."}',
    );
    expectSilent('{"level":"ERROR","message":"Reconciler error","error":"the operation is unsupported: use v2"}');
    expectSilent('{"level":"INFO","message":"webhook blocked: waiting for certificate"}');
  });
});

describe('event-reason vocabulary', () => {
  const event = (reason: string, type: string, message: string): string =>
    JSON.stringify({
      metadata: { name: 'x.17f0', namespace: 'default' },
      involvedObject: { kind: 'Node', name: 'ip-10-0-1-23.us-west-2.compute.internal' },
      reason,
      message,
      source: { component: 'kubelet' },
      type,
      count: 1,
    });

  it('names a known rule or an agreed id, or a benign reason, with a source, for each reason', () => {
    for (const entry of EVENT_REASONS) {
      expect(entry.source).toMatch(/\//);
      if (entry.rule === null) expect(entry.benign).toBeTruthy();
      else expect(ruleExists(entry.rule)).toBe(true);
    }
  });

  it.each(EVENT_REASONS.filter((entry) => entry.rule !== null).map((entry) => [entry.reason, entry.rule!]))(
    '%s fires %s on its own',
    (reason, rule) => {
      expectFires(event(reason, 'Warning', 'See the object status for details'), rule);
      expectFires(`default   2m   Warning   ${reason}   node/ip-10-0-1-23   See the object status for details`, rule);
    },
  );

  it.each(EVENT_REASONS.filter((entry) => entry.rule === null).map((entry) => [entry.reason]))(
    '%s alone fires nothing',
    (reason) => {
      expectSilent(event(reason, 'Normal', 'See the object status for details'));
    },
  );
});

describe('node agent messages (CNI IP pools, kubelet registration and lease)', () => {
  it.each(NODE_MESSAGES.map((entry) => [entry.emitter, entry.message, entry.rule]))(
    '%s "%s" fires %s',
    (emitter, message, rule) => {
      const text = fill(message).replace('Assigned 3 out of', 'Assigned 0 out of');
      const lines =
        emitter === 'kube-scheduler' || emitter === 'webhook-server'
          ? [text, `default   12s   Warning   FailedScheduling   pod/web-5d8f7c9b6-x2x4q   ${text}`].slice(
              0,
              emitter === 'kube-scheduler' ? 2 : 1,
            )
          : emitter === 'kubelet'
            ? [
                `E0601 10:00:00.000000    2345 kubelet_node_status.go:94] "${text}" err="context deadline exceeded" node="ip-10-0-1-23"`,
              ]
            : [
                JSON.stringify({
                  level: 'error',
                  ts: '2025-06-01T10:00:00.000Z',
                  caller: 'ipamd/ipamd.go:812',
                  msg: text,
                }),
                `Failed to create pod sandbox: rpc error: code = Unknown desc = failed to setup network for sandbox "0f46": plugin type="calico" failed (add): ${text}`,
              ];
      for (const line of lines) expectFires(line, rule);
    },
  );

  it('names the repository, tag and file of each message', () => {
    for (const entry of NODE_MESSAGES) expect(entry.source).toMatch(/^[\w-]+\/[\w-]+/);
  });
});

describe('status condition vocabulary', () => {
  it('gives each condition a failing polarity and a known or agreed rule', () => {
    for (const entry of CONDITIONS) {
      if (entry.rule !== null) expect(ruleExists(entry.rule)).toBe(true);
      expect(entry.failing.every((status) => ['True', 'False', 'Unknown'].includes(status))).toBe(true);
    }
  });
});

describe('vocabulary terms', () => {
  it('keep every plain-word and nested code behind a gated, bounded pattern', () => {
    const terms = vocabularyFor('insufficient-instance-capacity');
    expect(terms.clauses).toContainEqual(['insufficientinstancecapacity']);
    expect(terms.clauses).not.toContainEqual(['unsupported']);
    expect(terms.patterns.map((p) => p.gate)).toContain('unsupported: ');
    expect(vocabularyFor('ec2-quota-exceeded').patterns.map((p) => p.gate)).toContain('addresslimitexceeded');
  });
});

describe('real public lines from the emitters’ documentation (not in the shared samples)', () => {
  it.each([
    [
      'nodeclass-not-ready',
      '    Message:               unable to resolve instance profile for node class',
      'aws/karpenter-provider-aws@v0.37.8:website/content/en/docs/concepts/nodeclasses.md',
    ],
    [
      'aws-api-unreachable',
      'Checking EC2 API connectivity, WebIdentityErr: failed to retrieve credentials\\ncaused by: RequestError: send request failed\\ncaused by: Post \\"https://sts.us-east-1.amazonaws.com/\\": dial tcp: lookup sts.us-east-1.amazonaws.com: i/o timeout',
      'aws/karpenter-provider-aws@v0.37.8:website/content/en/docs/troubleshooting.md',
    ],
    [
      'launch-template-or-ami-error',
      '2022-01-19T18:22:23.366Z ERROR controller.provisioning Could not launch node, launching instances, with fleet error(s), InvalidBlockDeviceMapping: Invalid device name /dev/xvda; ...',
      'aws/karpenter-provider-aws@v1.14.1:website/content/en/docs/troubleshooting.md',
    ],
  ])('%s: %s (%s)', (rule, line) => {
    expectFires(line, rule);
  });

  it('stays silent on the healthy condition the same page shows', () => {
    // aws/karpenter-provider-aws@v0.37.8:website/content/en/docs/concepts/nodeclasses.md
    expectSilent('    Message:               Ready');
  });
});
