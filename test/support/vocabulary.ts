import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { RULE_IDS } from '../../lambdas/core/recognise/rules';
import { rulesOf } from '../helpers';
import type { MessageRow } from '../../scripts/mine-vocabulary';

export type { MessageRow };

export function loadMessages(): MessageRow[] {
  return readFileSync(join(__dirname, '..', 'fixtures', 'vocabulary', 'karpenter-messages.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as MessageRow);
}

const KNOWN: ReadonlySet<string> = new Set(RULE_IDS);
/** True when the rule id exists in the catalog. */
export const ruleExists = (rule: string): boolean => KNOWN.has(rule);

/**
 * Realistic values for a format verb, chosen from the word before it: Karpenter names the thing it
 * formats ("nodepool %q", "instance %s", "zone %s"). `%w` is a neutral Kubernetes cause, so a template
 * is recognised on its own words, never on the filler.
 */
function valueFor(verb: string, before: string): string {
  const word = /([a-z-]+)\W*$/i.exec(before)?.[1]?.toLowerCase() ?? '';
  if (verb.endsWith('d')) return '3';
  if (verb.endsWith('t')) return 'true';
  if (verb.endsWith('T')) return '*v1.Pod';
  if (verb.endsWith('f') || verb.endsWith('g')) return '0.5';
  if (verb.endsWith('w'))
    return 'Operation cannot be fulfilled on nodes "ip-10-0-1-23.ec2.internal": the object has been modified';
  const plain = (() => {
    if (/nodepool|provisioner|pool/.test(word)) return 'default';
    if (/nodeclass|template/.test(word)) return 'default';
    if (/node|machine|nodeclaim/.test(word)) return 'ip-10-0-1-23.us-west-2.compute.internal';
    if (/instance|id/.test(word)) return 'i-0123456789abcdef0';
    if (/zone|zones/.test(word)) return 'us-west-2a';
    if (/type|types/.test(word)) return 'm5.large';
    if (/pod|pods/.test(word)) return 'default/web-5d8f7c9b6-x2x4q';
    if (/key|label/.test(word)) return 'topology.kubernetes.io/zone';
    if (/ami|amis|images/.test(word)) return 'ami-0123456789abcdef0';
    if (/subnet|subnets/.test(word)) return 'subnet-0123456789abcdef0';
    if (/group|groups/.test(word)) return 'sg-0123456789abcdef0';
    return 'default';
  })();
  return verb.endsWith('q') ? `"${plain}"` : plain;
}

/** The template with each Go format verb replaced by a realistic value. */
export function fill(template: string): string {
  let out = '';
  let last = 0;
  for (const match of template.matchAll(/%[-+# 0]*\d*(?:\.\d+)?[a-zA-Z%]/g)) {
    out += template.slice(last, match.index);
    out += match[0] === '%%' ? '%' : valueFor(match[0], out);
    last = match.index + match[0].length;
  }
  return out + template.slice(last);
}

const zapJson = (fields: Record<string, string>): string =>
  JSON.stringify({
    level: 'ERROR',
    time: '2025-06-01T10:00:00.000Z',
    logger: 'controller',
    ...fields,
    commit: '1ad0d78',
  });

/**
 * The line shapes Karpenter writes a template in: v1 zap JSON and v0.x zap console (as the message
 * or in the `error` field), and a Kubernetes event (JSON object and `kubectl get events` row).
 */
export function envelopes(row: MessageRow): Array<[string, string]> {
  const text = fill(row.template);
  if (row.kind === 'condition' && row.status) {
    const type = row.condition_type!;
    const object = /NodeRegistrationHealthy|NodeClassReady/.test(type)
      ? 'nodepool/default'
      : /Initialized|Registered|Drained|VolumesDetached|ConsistentStateFound/.test(type)
        ? 'nodeclaim/default-abcde'
        : 'ec2nodeclass/default';
    const describe: [string, string] = ['kubectl describe', `    Message:               ${text}`];
    // v1 announces each change as an event; before v1 the message was only in the status (describe).
    if (row.status === 'False' && row.silent) return [describe];
    return [
      describe,
      [
        'transition event',
        `default   10s   Warning   ${row.reason}   ${object}   Status condition transitioned, Type: ${type}, Status: True -> ${row.status}, Reason: ${row.reason}, Message: ${text}`,
      ],
    ];
  }
  if (row.kind === 'event') {
    const reason = /^[A-Za-z]+$/.test(row.template) ? row.template : 'Unknown';
    const message = reason === row.template ? 'See the NodeClaim status for details' : text;
    const event = {
      metadata: { name: 'default-abcde.17f0', namespace: 'default' },
      involvedObject: { kind: 'NodeClaim', name: 'default-abcde', apiVersion: 'karpenter.sh/v1' },
      reason,
      message,
      source: { component: 'karpenter' },
      type: 'Warning',
      count: 1,
    };
    return [
      ['event json', JSON.stringify(event)],
      ['kubectl row', `default   2m   Warning   ${reason}   nodeclaim/default-abcde   ${message}`],
    ];
  }
  const level = (row.level ?? 'error').toUpperCase();
  if (row.kind === 'log') {
    return [
      ['zap json', zapJson({ level, message: text })],
      ['zap console', `2023-05-01T10:00:00.000Z\t${level}\tcontroller.provisioner\t${text}\t{"commit": "1ad0d78"}`],
    ];
  }
  return [
    ['zap json error', zapJson({ message: 'Reconciler error', controller: 'nodeclaim.lifecycle', error: text })],
    [
      'zap console error',
      `2023-05-01T10:00:00.000Z\tERROR\tcontroller\tReconciler error\t${JSON.stringify({ commit: '1ad0d78', error: text })}`,
    ],
  ];
}

export type Outcome = 'recognised' | 'benign' | 'pending' | 'missed' | 'fired';

/**
 * What the classifier makes of a row: recognised (every envelope yields its rule), missed (some
 * envelope does not), pending (its rule id is not in the catalog yet), benign (mapped benign; a
 * silent one that fires in some envelope is `fired`, a false positive).
 */
export function outcome(row: MessageRow): { outcome: Outcome; detail?: string } {
  if (row.kind === 'condition' && !row.status) return { outcome: 'benign' };
  const results = envelopes(row).map(([shape, line]) => [shape, rulesOf(line)] as const);
  if (row.rule === null) {
    const fired = results.find(([, rules]) => rules.length > 0);
    if (row.silent && fired) return { outcome: 'fired', detail: `${fired[0]} → ${fired[1].join(', ')}` };
    return { outcome: 'benign' };
  }
  if (!ruleExists(row.rule)) return { outcome: 'pending' };
  const miss = results.find(([, rules]) => !rules.includes(row.rule as never));
  return miss ? { outcome: 'missed', detail: `${miss[0]} → [${miss[1].join(', ')}]` } : { outcome: 'recognised' };
}
