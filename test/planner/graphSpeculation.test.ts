/** Direct bases and speculation along the build graph (issue 28): the planner on hand-built line-ups. */
import { describe, expect, test } from 'vitest';
import { dependencies } from '../../engine/planner/graph.js';
import { newBisection } from '../../engine/planner/bisectionMemory.js';
import { failureChance } from '../../engine/planner/lineSpeculation.js';
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
    expect(dependencies(targets, true, undefined, true)).toEqual([
      [],
      [],
      [0, 1],
      [2],
      [],
      [0, 2],
      [0, 1, 2, 3, 5],
      [2, 6],
    ]);
  });

  test('each PR is tested on the PRs ahead it overlaps', () => {
    // Each passed alone already (lineSpeculation.ts): no outcome ahead is open.
    const lineup = [
      pr(1, { targets: ['//x'] }),
      pr(2, { targets: ['//x', '//y'] }),
      pr(3, { targets: ['//y'] }),
      pr(4, { targets: 'ALL' }),
      pr(5, { targets: ['//y'] }),
    ].map((p) => ({
      ...p,
      speculated: true,
    }));
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
    expect(plan(input(lineup, direct)).decisions).toEqual([
      { kind: 'cancelRun', runId: 'r2', reason: 'the pull requests ahead of it changed' },
    ]);
    // With transitive bases 3 was tested on 1 and 2: both reset.
    const transitive = lineup.map((p) => (p.number === 3 ? { ...p, testedBase: [1, 2] } : p));
    expect(
      plan(input(transitive, { ...direct, parallelBases: 'transitive' })).decisions.map((d) =>
        d.kind === 'cancelRun' ? d.runId : d.kind,
      ),
    ).toEqual(['r2', 'r3']);
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
      pr(3, { targets: ['//x'], likelihood: 0.05, speculated: true }),
    ];
    // 3 passed alone. The base (30%) is likelier the cause than 2 itself (5%): 3 is tested on 1 and 2, the likely outcome.
    expect(starts(plan(input(lineup, direct)).decisions)).toEqual([[[3], [1, 2]]]);
    // 2 likelier the cause: it is doomed at once, and 3 is tested without it.
    const suspect = lineup.map((p) => (p.number === 2 ? { ...p, likelihood: 0.5 } : p));
    expect(starts(plan(input(suspect, direct)).decisions)).toEqual([[[3], [1]]]);
  });

  test('a run starts only on a base likely to hold: the head of each chain first, deep runs once their base passed', () => {
    // Fifteen PRs on one hot target that passed alone, each with a likelihood of 1/2: a pass alone leaves odds of
    // 1 · PASS_ALONE_MISS = 0.1, a chance of 1/11 of failing in its line. The k-th holds with (10/11)^(k − 1).
    const hot = Array.from({ length: 15 }, (_, i) =>
      pr(i + 1, { targets: ['//hot'], likelihood: 0.5, speculated: true }),
    );
    expect(failureChance(hot[1]!)).toBeCloseTo(1 / 11, 12);
    const cold = pr(16, { targets: ['//cold'], likelihood: 0.1 });
    const started = starts(plan(input([...hot, cold], direct)).decisions).map(([prs]) => (prs as number[])[0]);
    // (10/11)^7 = 0.51 ≥ 1/2 > (10/11)^8: eight runs of the hot chain, and the cold PR.
    expect(started).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 16]);
    // Once the first ten passed (the first being merged), the rest start on them.
    const passed = hot.map((p, i) =>
      i < 10
        ? {
            ...p,
            state: 'TESTS_PASSED' as const,
            runId: `r${i + 1}`,
            testedBase: hot.slice(0, i).map((q) => q.number),
            mergeRequested: i === 0,
          }
        : p,
    );
    const later = starts(plan(input([...passed, cold], direct)).decisions).map(([prs]) => (prs as number[])[0]);
    expect(later).toEqual([11, 12, 13, 14, 15, 16]);
  });

  test('a run held back takes no slot: the PRs behind it start in its place', () => {
    // 1 heads the line untested (likelihood 1/2); 2 and 3 passed alone.
    const lineup = [1, 2, 3].map((n) => pr(n, { targets: ['//hot'], likelihood: 0.5, speculated: n > 1 }));
    // 3 holds with 1/2 · 10/11: held back, and the cold PR behind it takes its slot.
    expect(
      starts(plan(input([...lineup, pr(4, { targets: ['//cold'] })], { ...direct, concurrency: 3 })).decisions),
    ).toEqual([
      [[1], []],
      [[2], [1]],
      [[4], []],
    ]);
  });

  test('a failed PR waiting for a run behind it to vouch does not hold that run back', () => {
    const lineup = [
      pr(1, { state: 'PENDING_FAILURE', runId: 'r1', testedBase: [], targets: ['//x'] }),
      pr(2, { targets: ['//x'], speculated: true }),
    ];
    const settings = { ...direct, pendingFailureDepth: 1, canOptimisticallyMerge: true };
    expect(starts(plan(input(lineup, settings)).decisions)).toEqual([[[2], [1]]]);
    // Untested, 2 is tested without 1 first: 1's outcome is open (it failed once).
    const untested = lineup.map((p) => ({ ...p, speculated: false }));
    expect(plan(input(untested, settings)).decisions).toEqual([
      { kind: 'isolate', pr: 2, likelihood: 0.05, behind: 1, line: true },
    ]);
  });

  test('transitive bases (the default) start every run the concurrency allows', () => {
    const hot = Array.from({ length: 15 }, (_, i) => pr(i + 1, { targets: ['//hot'], likelihood: 0.1 }));
    expect(starts(plan(input(hot, { ...direct, parallelBases: undefined })).decisions)).toHaveLength(15);
  });
});

describe('open outcomes ahead: tested alone first', () => {
  test('a PR resting on a PR ahead that has neither passed nor passed alone is isolated, in line-up order', () => {
    const lineup = [
      pr(1, { targets: ['//x'] }),
      pr(2, { targets: ['//x', '//y'] }),
      pr(3, { targets: ['//y'] }),
      pr(4, { targets: 'ALL' }),
      pr(5, { targets: ['//z'] }),
    ];
    expect(plan(input(lineup, direct)).decisions).toEqual([
      { kind: 'isolate', pr: 2, likelihood: 0.05, behind: 1, line: true },
    ]);
    // One at a time: with 2 isolated (in a group of its own), 3 rests on nothing open; the ALL PR rests on 1 and 3.
    const isolated = lineup.map((p) =>
      p.number === 2 ? { ...p, speculated: true, group: 'g0', bisectionId: 's0' } : p,
    );
    expect(plan(input(isolated, direct)).decisions).toEqual([
      { kind: 'isolate', pr: 4, likelihood: 0.05, behind: 2, line: true },
    ]);
    const both = isolated.map((p) => (p.number === 4 ? { ...p, speculated: true, group: 'g1', bisectionId: 's1' } : p));
    expect(
      starts(plan(input(both, direct, { bisections: { s0: newBisection(), s1: newBisection() } })).decisions),
    ).toEqual([
      [[1], []],
      [[3], []],
      [[5], []],
      [[2], []],
      [[4], []],
    ]);
    // Not with transitive bases, nor for a PR whose PRs ahead passed, or passed alone.
    expect(
      plan(input(lineup, { ...direct, parallelBases: 'transitive' })).decisions.some((d) => d.kind === 'isolate'),
    ).toBe(false);
    const passed = [
      pr(1, { state: 'TESTS_PASSED', runId: 'r1', testedBase: [], targets: ['//x'], mergeRequested: true }),
      pr(2, { targets: ['//x'], speculated: true }),
      pr(3, { targets: ['//x'] }),
    ];
    expect(starts(plan(input(passed, direct)).decisions)).toEqual([
      [[2], [1]],
      [[3], [1, 2]],
    ]);
  });
});
