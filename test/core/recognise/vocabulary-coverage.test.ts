import { loadMessages, outcome, ruleExists, type MessageRow, type Outcome } from '../../support/vocabulary';

/**
 * Every error, event and log template mined from each Karpenter minor release (v0.5 → newest, both
 * repositories; scripts/mine-vocabulary.ts) is either recognised by the rule it maps to, in every line
 * shape Karpenter writes it in, or mapped benign with a one-line reason. Healthy templates must not
 * fire. Templates mapped to a rule id that is not in the catalog yet are `pending`, never passing
 * silently. `VOCABULARY_REPORT=1` prints the per-release table.
 */
const rows = loadMessages();
const results = new Map<MessageRow, { outcome: Outcome; detail?: string }>(rows.map((row) => [row, outcome(row)]));

describe('Karpenter message vocabulary coverage', () => {
  it('was mined from every minor release of both repositories', () => {
    const tags = (repo: string): Set<string> =>
      new Set(rows.filter((row) => row.repo === repo).flatMap((row) => row.tags));
    expect(tags('aws/karpenter-provider-aws').size).toBeGreaterThanOrEqual(45);
    expect(tags('kubernetes-sigs/karpenter').size).toBeGreaterThanOrEqual(30);
  });

  it('maps every template to a rule or to a one-line benign reason', () => {
    const unmapped = rows.filter((row) => row.rule === null && !row.benign_reason);
    expect(unmapped).toEqual([]);
  });

  it('recognises every template mapped to a catalog rule, in every line shape', () => {
    const missed = [...results]
      .filter(([, result]) => result.outcome === 'missed')
      .map(([row, result]) => `${row.rule} ← ${row.template} (${result.detail})`);
    expect(missed).toEqual([]);
  });

  it('keeps healthy templates silent', () => {
    const fired = [...results]
      .filter(([, result]) => result.outcome === 'fired')
      .map(([row, result]) => `${row.template} (${result.detail})`);
    expect(fired).toEqual([]);
  });

  it('maps every template to a rule of the catalog or to benign: none is left pending', () => {
    const pending = rows.filter((row) => row.rule !== null && !ruleExists(row.rule));
    expect(pending.map((row) => `${row.rule}: ${row.template}`)).toEqual([]);
    for (const row of rows) expect(results.get(row)!.outcome).not.toBe('pending');
  });

  if (process.env.VOCABULARY_REPORT) {
    it('reports coverage per release', () => {
      const table = new Map<string, Record<Outcome, number>>();
      for (const [row, result] of results) {
        for (const tag of row.tags) {
          const key = `${row.repo}@${tag}`;
          const counts = table.get(key) ?? { recognised: 0, benign: 0, pending: 0, missed: 0, fired: 0 };
          counts[result.outcome]++;
          table.set(key, counts);
        }
      }
      const lines = [
        '| release | templates | recognised | benign | pending | missed | healthy fired |',
        '| --- | --- | --- | --- | --- | --- | --- |',
      ];
      for (const [key, c] of table) {
        const total = c.recognised + c.benign + c.pending + c.missed + c.fired;
        lines.push(`| ${key} | ${total} | ${c.recognised} | ${c.benign} | ${c.pending} | ${c.missed} | ${c.fired} |`);
      }
      console.log(lines.join('\n'));
    });
  }
});
