/**
 * A failed batch's bisection has a machine of its own (machines/bisection.ts), driven by the engine from the moves of
 * its PRs and stored beside them while it runs: split, halves under test, a group rescued, the culprit found (or,
 * with skip-redundant, known without a run), ended once no group is left (then removed). The dashboard counts it.
 */
import { describe, expect, test } from 'vitest';
import type { BisectionContext } from '../../machines/index.js';
import { QueueHarness } from './queueHarness.js';

function bisections(h: QueueHarness) {
  return h.store.read((tx) =>
    [...tx.scan('actors', { prefix: [h.queueId, 'bisection'] })].map(({ key, value }) => ({
      id: key[2],
      state: value.value,
      context: value.context as BisectionContext,
    })),
  );
}

describe('the bisection machine', () => {
  test.each(['off', 'bisection_skip_redundant_tests'] as const)(
    'follows a failed batch of four to its culprit (%s)',
    async (optimizationMode) => {
      const h = new QueueHarness();
      await h.create({ batch: true, batchingMinSize: 4, bisectionConcurrency: 2, optimizationMode });
      await h.submit(1, 2, 3, 4);
      expect(bisections(h)).toEqual([]);
      await h.fail(1, 2, 3, 4);
      const [split] = bisections(h);
      expect(split?.state).toBe('halvesUnderTest');
      expect(Object.values(split?.context.groups ?? {}).map((group) => [group.prs, group.runId !== null])).toEqual(
        optimizationMode === 'off'
          ? [
              [[1, 2], true],
              [[3, 4], true],
            ]
          : [
              [[1, 2], true],
              [[3, 4], false],
            ],
      );
      expect(h.engine.stateCounts('acme').bisection.get('halvesUnderTest')).toBe(1);
      await h.pass(1, 2);
      const rescued = bisections(h)[0];
      expect(rescued?.context.rescued).toHaveLength(1);
      if (optimizationMode === 'off') await h.fail(3, 4);
      await h.pass(3);
      if (optimizationMode === 'off') await h.fail(4);
      expect(h.states(1, 2, 3, 4)).toEqual(['MERGED', 'MERGED', 'MERGED', 'FAILED']);
      // Ended with its culprit: removed from the store, no longer counted.
      expect(bisections(h)).toEqual([]);
      expect(h.engine.stateCounts('acme').bisection.size).toBe(0);
    },
  );

  test('the culprit is named before the bisection ends', async () => {
    const h = new QueueHarness();
    await h.create({ batch: true, batchingMinSize: 2, bisectionConcurrency: 2 });
    await h.submit(1, 2);
    await h.fail(1, 2);
    await h.fail(1);
    const [bisection] = bisections(h);
    expect(bisection?.context.culprits).toEqual([1]);
    expect(bisection?.state).toBe('halvesUnderTest');
    await h.pass(2);
    expect(bisections(h)).toEqual([]);
  });
});
