/**
 * What the merge estimate learns from a queue's history (engine/estimate/history.ts): its failure rate counts the PRs a
 * bisection kicked. With batching nearly every failed PR concludes in a bisection, and a rate of the main line's alone
 * said such a queue almost never fails.
 */
import { expect, test } from 'vitest';
import { readQueueHistory } from '../../engine/estimate/history.js';
import { emptyTotals } from '../../engine/metrics/records.js';
import { createMemoryStore } from '../../engine/store/index.js';

test('the failure rate counts PRs concluded in a bisection as well as on the main line', () => {
  const store = createMemoryStore();
  const totals = emptyTotals();
  totals.conclusions.main.merged = 20;
  totals.conclusions.bisection.merged = 10;
  totals.conclusions.bisection.failed = 5;
  store.write((tx) => tx.put('metricsTotals', ['q_1'], totals));
  const history = store.read((tx) => readQueueHistory(tx, 'q_1', Date.parse('2026-01-05T12:00:00Z')));
  // 5 failed of 35 concluded, with the prior of 5 PRs at 10 %: (5 + 0.5) / (35 + 5).
  expect(history.failureRate).toBeCloseTo(5.5 / 40, 10);
});
