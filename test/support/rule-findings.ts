import { CATALOG, diagnose, RULE_IDS, type RuleId } from '../../lambdas/core/recognise/rules';
import { emptyContext } from '../../lambdas/core/findings/context';
import type { Finding } from '../../lambdas/core/findings/finding';
import { ENTITY_KINDS, type Entities } from '../../lambdas/core/model';
import { MAX_EVIDENCE, MAX_EVIDENCE_CHARS } from '../../lambdas/core/incidents/aggregate';
import { adviceCasesOf, type AdviceCase } from './advice-cases';

/** The finding of one rule for one case of its own examples (test/support/advice-cases.ts), with its first live context. */
export function findingOfCase(
  rule: RuleId,
  c: AdviceCase | undefined,
  entities: Entities = c?.entities ?? {},
): Finding {
  const live = c?.live[0];
  const context = live ? { ...live, enrichmentErrors: [] } : emptyContext();
  const evidence = c?.evidence ?? [];
  const advice = diagnose({ rule, cluster: 'prod', region: 'us-west-2', entities, occurrences: 3, context, evidence });
  return {
    schemaVersion: '1',
    findingId: '0123456789abcdef01234567',
    status: 'open',
    rule,
    title: CATALOG[rule].title,
    severity: CATALOG[rule].severity,
    cluster: 'prod',
    account: '123456789012',
    region: 'us-west-2',
    firstSeen: '2026-12-01T03:00:00.000Z',
    lastSeen: '2026-12-01T03:10:00.000Z',
    occurrences: 3,
    entities,
    evidence: evidence.map((message) => ({ message })),
    context,
    ...advice,
  };
}

/** Every rule with each of its cases (or none): `[label, finding]`. */
export const ruleFindings = (): Array<readonly [string, Finding]> =>
  RULE_IDS.flatMap((rule) => {
    const list: Array<AdviceCase | undefined> = adviceCasesOf(rule);
    return (list.length ? list : [undefined]).map(
      (c, i) => [c?.label ?? `${rule}#${i}`, findingOfCase(rule, c)] as const,
    );
  });

/**
 * A rule's finding at the bounds the aggregator keeps: 50 values of every entity kind, each of a
 * Kubernetes name's full length, and three evidence lines of the longest kept.
 */
export function crowdedFinding(rule: RuleId): Finding {
  const long = (i: number) => `${String(i).padStart(3, '0')}-${'a'.repeat(249)}`;
  const entities = Object.fromEntries(
    ENTITY_KINDS.map((kind) => [kind, Array.from({ length: 50 }, (_, i) => long(i))]),
  ) as Entities;
  const finding = findingOfCase(rule, undefined, entities);
  const message = 'x'.repeat(MAX_EVIDENCE_CHARS);
  return { ...finding, evidence: Array.from({ length: MAX_EVIDENCE }, () => ({ message })) };
}
