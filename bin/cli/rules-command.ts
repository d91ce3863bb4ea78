import { emptyContext } from '../../lambdas/core/findings/context';
import { automaticWhen } from '../../lambdas/core/findings/render-text';
import { CATALOG, RULES, RULE_IDS, diagnose, type RuleId } from '../../lambdas/core/recognise/rules';
import { InputError } from './text-input';

export type RulesFormat = 'text' | 'json';

/** `rules`: the catalog from the rule registry, one rule a line. */
export function renderRules(format: RulesFormat): string {
  const rules = RULE_IDS.map((id) => CATALOG[id]);
  if (format === 'json') {
    return `${JSON.stringify(
      rules.map(({ id, title, severity, source, family, emittedBy, recognises }) => ({
        id,
        title,
        severity,
        source,
        family,
        emittedBy,
        recognises,
      })),
      null,
      2,
    )}\n`;
  }
  const width = Math.max(...rules.map((r) => r.id.length));
  const familyWidth = Math.max(...rules.map((r) => r.family.length));
  const lines = rules.map((r) => {
    const emitted = r.emittedBy === 'headroom' ? '  (emitted by the headroom check, not from logs)' : '';
    return `${r.id.padEnd(width)}  ${r.family.padEnd(familyWidth)}  ${r.severity.padEnd(8)}  ${sourceOf(r.source).padEnd(13)}  ${r.title}${emitted}`;
  });
  return `${'id'.padEnd(width)}  ${'family'.padEnd(familyWidth)}  ${'severity'.padEnd(8)}  ${'source'.padEnd(13)}  title\n${lines.join('\n')}\n`;
}

/**
 * `rules <id>`: what one rule recognises, where it comes from, an example line it fires on (from
 * its module, with where that line was seen), and the remediation it gives, with `<placeholders>`
 * where a finding fills in the real names.
 */
export function renderRule(id: string, format: RulesFormat): string {
  if (!(RULE_IDS as readonly string[]).includes(id)) {
    const near = RULE_IDS.filter((rule) => rule.includes(id) || id.includes(rule.split('-')[0]!));
    throw new InputError(
      `no rule ${JSON.stringify(id)}${near.length ? `; did you mean ${near.slice(0, 3).join(', ')}?` : ''} (karpenter-doctor rules lists them)`,
    );
  }
  const rule = RULES[id as RuleId];
  const info = rule.info;
  const example = rule.examples?.fires[0];
  const advice = diagnose({
    rule: info.id,
    cluster: '<cluster>',
    entities: {},
    occurrences: 1,
    context: emptyContext(),
  });
  if (format === 'json') {
    return `${JSON.stringify({ ...info, example: example ?? null, ...advice }, null, 2)}\n`;
  }
  const lines = [
    `${info.id}  ${info.severity.toUpperCase()}  ${sourceOf(info.source)}  ${info.family}`,
    info.title,
    '',
    `recognises  ${info.recognises}`,
    `emitted by  ${info.emittedBy === 'headroom' ? 'the scheduled headroom check (not from logs)' : 'the log classifier'}`,
    ...(info.keyEntity ? [`findings    one per distinct value of ${info.keyEntity}`] : []),
    ...(example ? [`example     ${example.line}`, `            (${sourceOf(example.source)})`] : []),
    '',
    `why         ${advice.diagnosis}`,
    '',
    'fix',
    ...advice.remediation.flatMap((step, index) => [
      `  ${index + 1}. ${step.title}${step.action ? ` (${automaticWhen(step.action)})` : ''}`,
      ...step.detail.split('\n').map((detail) => `     ${detail}`),
      ...step.commands.map((command) => `     $ ${command}`),
    ]),
    ...(advice.docs.length ? ['', `docs        ${advice.docs.join('  ')}`] : []),
  ];
  return `${lines.join('\n')}\n`;
}

/** A section of the AWS Knowledge Center article on Karpenter scaling, in the user's words, not the team's "seed". */
const sourceOf = (source: number | string): string =>
  typeof source === 'number' ? `AWS guide §${source}` : source.replace(/^seed §(\d+).*$/s, 'AWS guide §$1');
