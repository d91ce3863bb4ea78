import {
  enrichBudgetMs,
  MIN_ENRICH_BUDGET_MS,
  PUBLISH_RESERVE_MS,
} from '../../../lambdas/core/incidents/delivery-limits';

describe('enrichBudgetMs', () => {
  it.each([
    ['plenty of time left: the configured budget', 8_000, 60_000, 8_000],
    ['the budget would eat into publishing: cut to keep the reserve', 8_000, 15_000, 15_000 - PUBLISH_RESERVE_MS],
    ['exactly the budget and the reserve left', 8_000, 8_000 + PUBLISH_RESERVE_MS, 8_000],
    ['less left than the reserve: the least budget', 8_000, 4_000, MIN_ENRICH_BUDGET_MS],
    ['a configured budget under the least: the least', 0, 60_000, MIN_ENRICH_BUDGET_MS],
  ])('%s', (_, configured, remaining, budget) => {
    expect(enrichBudgetMs(configured, remaining)).toBe(budget);
  });
});
