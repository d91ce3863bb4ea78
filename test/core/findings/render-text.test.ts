import { ACTION_IDS } from '../../../contracts/remediation';
import { renderFindingText } from '../../../lambdas/core/findings/render-text';
import { RULE_IDS } from '../../../lambdas/core/recognise/rules';
import { ruleFindings } from '../../support/rule-findings';

const RULE_ID = new RegExp(`\\b(?:${RULE_IDS.join('|')})\\b`);

describe.each(ruleFindings())('the CLI text of %s', (_label, finding) => {
  const lines = renderFindingText(finding).split('\n');

  it('opens with the severity and the title, no rule id', () => {
    expect(lines[0]).toBe(`${finding.severity.toUpperCase().padEnd(8)} ${finding.title}`);
  });

  it('names the rule once, on its last line, for whoever configures by rule', () => {
    expect(lines.at(-1)).toBe(`  rule       ${finding.rule}`);
    // Evidence lines are the log's own words, which may name anything: the rest is ours.
    const ours = renderFindingText({ ...finding, evidence: [] })
      .split('\n')
      .slice(0, -1);
    for (const line of ours) expect(line).not.toMatch(RULE_ID);
  });

  it('says how to turn an automatic step on, in the configuration’s words, never "(action: …)"', () => {
    const text = lines.join('\n');
    expect(text).not.toContain('(action:');
    finding.remediation.forEach((step, index) => {
      if (!step.action) return;
      const key = Object.entries(ACTION_IDS).find(([, id]) => id === step.action)![0];
      expect(text).toContain(`${index + 1}. ${step.title} (automatic when remediation.${key} is on)`);
    });
  });
});
