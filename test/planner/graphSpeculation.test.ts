/** Direct bases and speculation along the build graph (issue 28): the planner on hand-built line-ups. */
import { describe, expect, test } from 'vitest';
import { dependencies } from '../../engine/planner/graph.js';
import { plan, type Decision } from '../../engine/planner/planner.js';
import { input, pr } from './inputs.js';

const starts = (decisions: Decision[]) => decisions.flatMap((d) => (d.kind === 'startRun' ? [[d.prs, d.basePrs]] : []));
const direct = { mode: 'parallel' as const, parallelBases: 'direct' as const, concurrency: 50 };

describe('direct bases', () => {
  test('a PR depends on the PRs ahead it overlaps, not on what those depend on', () => {
    const targets = [['//x'], ['//x', '//y'], ['//y'], ['//z']];
    expect(dependencies(targets, true)).toEqual([[], [0], [0, 1], []]);
    expect(dependencies(targets, true, undefined, true)).toEqual([[], [0], [1], []]);
  });

  test('ALL overlaps every PR with targets, ahead and behind, and each of them directly; [] overlaps nothing', () => {
    const targets = [['//a'], ['//b'], 'ALL' as const, ['//c'], [], ['//a'], 'ALL' as const, ['//d']];
    expect(dependencies(targets, true, undefined, true)).toEqual([[], [], [0, 1], [2], [], [0, 2], [0, 1, 2, 3, 5], [2, 6]]);
  });

  test('each PR is tested on the PRs ahead it overlaps', () => {
    const lineup = [pr(1, { targets: ['//x'] }), pr(2, { targets: ['//x', '//y'] }), pr(3, { targets: ['//y'] }), pr(4, { targets: 'ALL' }), pr(5, { targets: ['//y'] })];
    expect(starts(plan(input(lineup, direct)).decisions)).toEqual([
      [[1], []],
      [[2], [1]],
      [[3], [2]],
      [[4], [1, 2, 3]],
      [[5], [2, 3, 4]],
    ]);
  });

  test('a failure resets only the runs that had the failed PR in their base: a run that built without it stands', () => {
    // 1 failed on a settled base; 2 overlaps it; 3 overlaps 2 only (its run holds); 4 overlaps nothing.
    const lineup = [
      pr(1, { state: 'PENDING_FAILURE', runId: 'r1', testedBase: [], targets: ['//x'] }),
      pr(2, { state: 'TESTING', runId: 'r2', testedBase: [1], targets: ['//x', '//y'] }),
      pr(3, { state: 'TESTING', runId: 'r3', testedBase: [2], targets: ['//y'] }),
      pr(4, { state: 'TESTING', runId: 'r4', testedBase: [], targets: ['//z'] }),
    ];
    expect(plan(input(lineup, direct)).decisions).toEqual([{ kind: 'cancelRun', runId: 'r2', reason: 'the pull requests ahead of it changed' }]);
    // With transitive bases 3 was tested on 1 and 2: both reset.
    const transitive = lineup.map((p) => (p.number === 3 ? { ...p, testedBase: [1, 2] } : p));
    expect(plan(input(transitive, { ...direct, parallelBases: 'transitive' })).decisions.map((d) => (d.kind === 'cancelRun' ? d.runId : d.kind))).toEqual(['r2', 'r3']);
  });

  test('a PR merges once the PRs ahead it overlaps merged, whatever those wait for', () => {
    const lineup = [
      pr(1, { state: 'TESTING', runId: 'r1', testedBase: [], targets: ['//x'] }),
      pr(2, { state: 'TESTS_PASSED', runId: 'r2', testedBase: [1], targets: ['//x', '//y'] }),
      pr(3, { state: 'TESTS_PASSED', runId: 'r3', testedBase: [], targets: ['//z'] }),
    ];
    expect(plan(input(lineup, direct)).decisions).toEqual([{ kind: 'merge', pr: 3 }]);
  });
});

describe('speculation along the build graph', () => {
  test('a failure on a base still testing keeps the failed PR in the bases behind it while the base is the likelier cause', () => {
    const lineup = [
      pr(1, { state: 'TESTING', runId: 'r1', testedBase: [], targets: ['//x'], likelihood: 0.3 }),
      pr(2, { state: 'PENDING_FAILURE', runId: 'r2', testedBase: [1], targets: ['//x'], likelihood: 0.05 }),
      pr(3, { targets: ['//x'], likelihood: 0.05 }),
    ];
    // The base (30%) is likelier the cause than 2 itself (5%): 3 is tested on 1 and 2, the likely outcome.
    expect(starts(plan(input(lineup, direct)).decisions)).toEqual([[[3], [1, 2]]]);
    // 2 likelier the cause: it is doomed at once, and 3 is tested without it.
    const suspect = lineup.map((p) => (p.number === 2 ? { ...p, likelihood: 0.5 } : p));
    expect(starts(plan(input(suspect, direct)).decisions)).toEqual([[[3], [1]]]);
  });

  test('a run starts only on a base likely to hold: the head of each chain first, deep runs once their base passed', () => {
    // Fifteen PRs on one hot target, each with a 10% chance of failing: the k-th holds with 0.9^(k − 1).
    const hot = Array.from({ length: 15 }, (_, i) => pr(i + 1, { targets: ['//hot'], likelihood: 0.1 }));
    const cold = pr(16, { targets: ['//cold'], likelihood: 0.1 });
    const started = starts(plan(input([...hot, cold], direct)).decisions).map(([prs]) => (prs as number[])[0]);
    // 0.9^6 = 0.53 ≥ 1/2 > 0.9^7: seven runs of the hot chain, and the cold PR.
    expect(started).toEqual([1, 2, 3, 4, 5, 6, 7, 16]);
    // Once the first ten passed (the first being merged), the rest start on them.
    const passed = hot.map((p, i) =>
      i < 10 ? { ...p, state: 'TESTS_PASSED' as const, runId: `r${i + 1}`, testedBase: hot.slice(0, i).map((q) => q.number), mergeRequested: i === 0 } : p,
    );
    const later = starts(plan(input([...passed, cold], direct)).decisions).map(([prs]) => (prs as number[])[0]);
    expect(later).toEqual([11, 12, 13, 14, 15, 16]);
  });

  test('a run held back takes no slot: the PRs behind it start in its place', () => {
    const lineup = [1, 2, 3].map((n) => pr(n, { targets: ['//hot'], likelihood: 0.5 }));
    // 3 holds with 0.25: held back, and the cold PR behind it takes its slot.
    expect(starts(plan(input([...lineup, pr(4, { targets: ['//cold'] })], { ...direct, concurrency: 3 })).decisions)).toEqual([
      [[1], []],
      [[2], [1]],
      [[4], []],
    ]);
  });

  test('a failed PR waiting for a run behind it to vouch does not hold that run back', () => {
    const lineup = [pr(1, { state: 'PENDING_FAILURE', runId: 'r1', testedBase: [], targets: ['//x'] }), pr(2, { targets: ['//x'] })];
    const settings = { ...direct, pendingFailureDepth: 1, canOptimisticallyMerge: true };
    expect(starts(plan(input(lineup, settings)).decisions)).toEqual([[[2], [1]]]);
  });

  test('transitive bases (the default) start every run the concurrency allows', () => {
    const hot = Array.from({ length: 15 }, (_, i) => pr(i + 1, { targets: ['//hot'], likelihood: 0.1 }));
    expect(starts(plan(input(hot, { ...direct, parallelBases: undefined })).decisions)).toHaveLength(15);
  });
});
