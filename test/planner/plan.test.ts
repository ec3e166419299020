/** The planner as a pure function: hand-built line-ups, the decisions it makes, one rule each. */
import { describe, expect, test } from 'vitest';
import { plan, type Decision } from '../../engine/planner/planner.js';
import { input, pr } from './inputs.js';
import { newBisection } from '../../engine/planner/bisectionMemory.js';

const starts = (decisions: Decision[]) =>
  decisions.flatMap((d) => (d.kind === 'startRun' ? [[d.runKind, d.prs, d.basePrs]] : []));

describe('plan', () => {
  test('predictive: each PR on top of the ones ahead, up to concurrency', () => {
    expect(starts(plan(input([pr(1), pr(2), pr(3), pr(4)], { concurrency: 3 })).decisions)).toEqual([
      ['main', [1], []],
      ['main', [2], [1]],
      ['main', [3], [1, 2]],
    ]);
  });

  test('a run whose base changed is cancelled', () => {
    const lineup = [pr(2, { state: 'TESTING', runId: 'r2', testedBase: [1] })];
    expect(plan(input(lineup)).decisions).toEqual([
      { kind: 'cancelRun', runId: 'r2', reason: 'the pull requests ahead of it changed' },
    ]);
  });

  test('a PR that failed alone on a settled base with nothing ahead is kicked', () => {
    expect(plan(input([pr(1, { state: 'PENDING_FAILURE', runId: 'r1', testedBase: [] })])).decisions).toEqual([
      { kind: 'kick', pr: 1 },
    ]);
  });

  test('a failure behind a PR still testing waits, and the PRs behind it are predicted without it', () => {
    const lineup = [
      pr(1, { state: 'TESTING', runId: 'r1', testedBase: [] }),
      pr(2, { state: 'PENDING_FAILURE', runId: 'r2', testedBase: [1] }),
      pr(3),
    ];
    const { decisions } = plan(input(lineup, { concurrency: 4 }));
    expect(decisions.some((d) => d.kind === 'kick')).toBe(false);
    expect(starts(decisions)).toEqual([['main', [3], [1]]]);
  });

  test('a failed batch on a settled base is bisected; on an unsettled one it waits', () => {
    const failed = (n: number) =>
      pr(n, { state: 'PENDING_FAILURE', runId: 'r9', testedBase: [10, ...[1, 2, 3].filter((k) => k < n)] });
    const settledAhead = pr(10, { state: 'TESTS_PASSED', runId: 'r0', testedBase: [] });
    const unsettledAhead = pr(10, { state: 'TESTING', runId: 'r0', testedBase: [] });
    expect(plan(input([settledAhead, failed(1), failed(2), failed(3)])).decisions).toEqual([
      { kind: 'bisect', prs: [1, 2, 3], basePrs: [10], bisectionId: null },
    ]);
    expect(
      plan(input([unsettledAhead, failed(1), failed(2), failed(3)])).decisions.filter((d) => d.kind === 'bisect'),
    ).toEqual([]);
  });

  test('with pendingFailureDepth, a failed PR nothing behind can vouch for is retested', () => {
    expect(
      plan(input([pr(1, { state: 'PENDING_FAILURE', runId: 'r1', testedBase: [] })], { pendingFailureDepth: 1 }))
        .decisions,
    ).toEqual([{ kind: 'retest', pr: 1 }]);
  });

  test('bisection halves are tested on the same known-good base, never on each other', () => {
    const group = (n: number, name: string) => pr(n, { group: name, bisectionId: 'b0' });
    const lineup = [group(1, 'g0'), group(2, 'g0'), group(3, 'g1'), group(4, 'g1'), pr(5)];
    // The batch [1, 2, 3, 4] failed on the target (the bisection remembers it): at most one half passes.
    const bisections = { b0: { ...newBisection(), failed: [{ prs: [1, 2, 3, 4], base: [] }] } };
    expect(starts(plan(input(lineup, { concurrency: 1 }, { bisections })).decisions)).toEqual([
      ['main', [5], []],
      ['bisection', [1, 2], []],
      ['bisection', [3, 4], []],
    ]);
  });

  test('with skip-redundant, the second half waits for the first', () => {
    const group = (n: number, name: string) => pr(n, { group: name, bisectionId: 'b0' });
    const bisections = { b0: { ...newBisection(), waits: { g1: { after: 'g0', parent: [1, 2, 3, 4] } } } };
    const lineup = [group(1, 'g0'), group(2, 'g0'), group(3, 'g1'), group(4, 'g1')];
    expect(
      starts(plan(input(lineup, { optimizationMode: 'bisection_skip_redundant_tests' }, { bisections })).decisions),
    ).toEqual([['bisection', [1, 2], []]]);
  });

  test('a PR in a bisection does not hold back the merge of a passed PR behind it', () => {
    const lineup = [
      pr(1, { group: 'g0', bisectionId: 'b0' }),
      pr(2, { state: 'TESTS_PASSED', runId: 'r2', testedBase: [] }),
    ];
    expect(plan(input(lineup, {}, { bisections: { b0: newBisection() } })).decisions).toEqual([
      { kind: 'merge', pr: 2 },
    ]);
  });

  test('parallel mode: PRs that share no target are tested and merged independently', () => {
    const lineup = [pr(1, { targets: ['//a'] }), pr(2, { targets: ['//b'] }), pr(3, { targets: ['//a', '//c'] })];
    expect(starts(plan(input(lineup, { mode: 'parallel', concurrency: 4 })).decisions)).toEqual([
      ['main', [1], []],
      ['main', [2], []],
      ['main', [3], [1]],
    ]);
    const passed = [
      pr(1, { state: 'TESTING', runId: 'r1', testedBase: [], targets: ['//a'] }),
      pr(2, { state: 'TESTS_PASSED', runId: 'r2', testedBase: [], targets: ['//b'] }),
    ];
    expect(plan(input(passed, { mode: 'parallel' })).decisions).toEqual([{ kind: 'merge', pr: 2 }]);
  });
});

describe('speculation by likelihood', () => {
  const mode = { optimizationMode: 'speculate_by_likelihood' as const, concurrency: 4 };
  const speculation = { allowance: 1, failureShare: 0.05 };
  const lineup = () => [
    pr(1, { likelihood: 0.02 }),
    pr(2, { likelihood: 0.4 }),
    pr(3, { likelihood: 0.02 }),
    pr(4, { likelihood: 0.3 }),
  ];

  test('a PR likely to fail with PRs behind it in the window is isolated first', () => {
    expect(plan(input(lineup(), mode, { speculation })).decisions).toEqual([
      { kind: 'isolate', pr: 2, likelihood: 0.4, behind: 2 },
    ]);
  });

  test('not when the saving is smaller than the cost, nor beyond the budget, nor twice, nor in another mode', () => {
    // 4 is last in the window: nothing behind it to save.
    expect(plan(input(lineup().slice(2), mode, { speculation })).decisions.some((d) => d.kind === 'isolate')).toBe(
      false,
    );
    expect(
      plan(input(lineup(), mode, { speculation: { ...speculation, allowance: 0 } })).decisions.some(
        (d) => d.kind === 'isolate',
      ),
    ).toBe(false);
    const once = lineup().map((p) => ({ ...p, speculated: true }));
    expect(plan(input(once, mode, { speculation })).decisions.some((d) => d.kind === 'isolate')).toBe(false);
    expect(plan(input(lineup(), { concurrency: 4 }, { speculation })).decisions.some((d) => d.kind === 'isolate')).toBe(
      false,
    );
  });

  test("a PR likelier to fail than the queue's average is isolated once the PRs behind it make it worth a run; a PR less likely is not", () => {
    const deep = (p: number) => [
      pr(1, { likelihood: p }),
      ...Array.from({ length: 19 }, (_, k) => pr(k + 2, { likelihood: 0.01 })),
    ];
    // p = 0.06 with 19 PRs behind: 0.06 · 19 > 0.94, and 0.06 is above the failure share of 0.05.
    expect(plan(input(deep(0.06), { ...mode, concurrency: 20 }, { speculation })).decisions).toEqual([
      { kind: 'isolate', pr: 1, likelihood: 0.06, behind: 19 },
    ]);
    expect(
      plan(input(deep(0.04), { ...mode, concurrency: 20 }, { speculation })).decisions.some(
        (d) => d.kind === 'isolate',
      ),
    ).toBe(false);
    // The same PR with 4 behind it: 0.06 · 4 < 0.94.
    expect(
      plan(input(deep(0.06).slice(0, 5), { ...mode, concurrency: 20 }, { speculation })).decisions.some(
        (d) => d.kind === 'isolate',
      ),
    ).toBe(false);
  });

  test('an isolated PR is left out of the bases of the PRs behind it, and tested alone on the target branch', () => {
    const isolated = [pr(1), pr(2, { group: 'g0', bisectionId: 's0', speculated: true }), pr(3)];
    expect(starts(plan(input(isolated, mode, { bisections: { s0: newBisection() } })).decisions)).toEqual([
      ['main', [1], []],
      ['main', [3], [1]],
      ['bisection', [2], []],
    ]);
    // Its run holds whatever happens ahead of it; a failure there is its own (nothing under it): it is kicked at once,
    // while the PRs ahead of it still test.
    const testing = [
      pr(1, { state: 'TESTING', runId: 'r1', testedBase: [] }),
      pr(2, { state: 'TESTING', runId: 's', testedBase: [], group: 'g0', bisectionId: 's0', speculated: true }),
    ];
    expect(plan(input(testing, mode, { bisections: { s0: newBisection() } })).decisions).toEqual([]);
    const failed = [
      pr(1, { state: 'TESTING', runId: 'r1', testedBase: [] }),
      pr(2, { state: 'PENDING_FAILURE', runId: 's', testedBase: [], group: 'g0', bisectionId: 's0', speculated: true }),
    ];
    expect(plan(input(failed, mode, { bisections: { s0: newBisection() } })).decisions).toEqual([
      { kind: 'kick', pr: 2 },
    ]);
    expect(
      plan(input(failed.slice(1), mode, { bisections: { s0: newBisection() }, merged: new Set([1]) })).decisions,
    ).toEqual([{ kind: 'kick', pr: 2 }]);
  });
});
