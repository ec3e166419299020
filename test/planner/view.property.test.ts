/**
 * The planner's view (engine/planner/view.ts) against a reference written the slow, obvious way: for random
 * line-ups (states, tested bases, bisection groups, failed sets, impacted targets), every PR's expected base, whether
 * its result holds, whether its base is settled, whether it is doomed, what it depends on and (direct bases) the
 * chance its base holds, agree, with transitive and direct bases.
 */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import type { PlanInput, PlanPullRequest, Targets } from '../../engine/planner/planner.js';
import { failedSetOf, LineupView } from '../../engine/planner/view.js';
import { DEFAULT_SETTINGS } from '../../engine/model/queues.js';
import { PULL_REQUEST_STATES } from '../../machines/vocabulary.js';

const overlaps = (a: Targets, b: Targets): boolean => {
  if (Array.isArray(a) && a.length === 0) return false;
  if (Array.isArray(b) && b.length === 0) return false;
  if (a === null || a === 'ALL' || b === null || b === 'ALL') return true;
  return a.some((target) => b.includes(target));
};

/** The reference: the same rules, with every list built in full. */
function reference(input: PlanInput) {
  const { lineup, settings } = input;
  const parallel = settings.mode === 'parallel';
  const direct = parallel && settings.parallelBases === 'direct';
  const depth = settings.pendingFailureDepth;
  const sets = new Map<string, number>();
  for (const pr of lineup)
    if (pr.state === 'PENDING_FAILURE') sets.set(failedSetOf(pr), (sets.get(failedSetOf(pr)) ?? 0) + 1);
  const circle = (pr: PlanPullRequest) =>
    pr.group !== null ? `g${pr.group}` : pr.state === 'PENDING_FAILURE' ? `f${failedSetOf(pr)}` : null;
  const vouchable = new Set(lineup.flatMap((pr) => (pr.state === 'TESTS_PASSED' ? (pr.testedBase ?? []) : [])));
  const silent: boolean[] = [];
  const deps: number[][] = [];
  const expected: number[][] = [];
  const holds: boolean[] = [];
  const settled: boolean[] = [];
  const doomed: boolean[] = [];
  const hold: number[] = [];
  const unmerged = (list: readonly number[]) => list.filter((number) => !input.merged.has(number));
  lineup.forEach((pr, at) => {
    // What it depends on among the heard PRs ahead, closed over what those depend on.
    const own = new Set<number>();
    for (let k = at - 1; k >= 0; k--) {
      if (silent[k]) continue;
      if (!parallel || overlaps(pr.targets, (lineup[k] as PlanPullRequest).targets)) own.add(k);
    }
    // Closure (transitive bases): anything a dependency depends on.
    let grew = !direct;
    while (grew) {
      grew = false;
      for (const k of [...own])
        for (const j of deps[k] ?? [])
          if (!own.has(j)) {
            own.add(j);
            grew = true;
          }
    }
    deps[at] = [...own].sort((a, b) => a - b);
    const base = new Set(deps[at]);
    const mine = circle(pr);
    if (mine !== null) {
      for (let k = 0; k < at; k++) {
        if (circle(lineup[k] as PlanPullRequest) !== mine) continue;
        base.add(k);
        for (const j of deps[k] ?? []) base.add(j);
      }
    }
    expected[at] = [...base].sort((a, b) => a - b).map((k) => (lineup[k] as PlanPullRequest).number);
    const tested = pr.testedBase === null ? null : unmerged(pr.testedBase);
    holds[at] = tested !== null && tested.join() === expected[at]!.join();
    settled[at] = deps[at]!.every((k) => {
      const ahead = lineup[k] as PlanPullRequest;
      return (ahead.state === 'TESTS_PASSED' && holds[k]) || ahead.mergeRequested;
    });
    const failed = pr.state === 'PENDING_FAILURE' && pr.group === null && holds[at]!;
    const alone = sets.get(failedSetOf(pr)) === 1;
    const canVouch = settings.canOptimisticallyMerge && vouchable.has(pr.number);
    // Direct bases: doomed only if likelier its own failure than that of the unsettled PRs under it.
    const unsettledDeps = deps[at]!.filter(
      (k) => !((lineup[k]!.state === 'TESTS_PASSED' && holds[k]) || lineup[k]!.mergeRequested),
    ).map((k) => lineup[k]!);
    const basePasses = unsettledDeps.reduce(
      (chance, dep) => chance * (dep.state === 'PENDING_FAILURE' ? 0 : 1 - (dep.likelihood ?? 0.05)),
      1,
    );
    const itsOwn = 1 - basePasses <= (pr.likelihood ?? 0.05);
    doomed[at] =
      failed &&
      (!alone || depth === 0 || (pr.runsBehindEnded >= depth && !canVouch)) &&
      (!direct || settled[at]! || itsOwn);
    hold[at] = unsettledDeps.reduce(
      (chance, dep) => chance * (dep.state === 'PENDING_FAILURE' ? 1 : 1 - (dep.likelihood ?? 0.05)),
      1,
    );
    silent[at] = pr.group !== null || doomed[at]!;
  });
  // What a PR depends on for merging: the same rule with only bisections silent.
  const ahead: number[][] = [];
  lineup.forEach((pr, at) => {
    const own = new Set<number>();
    for (let k = at - 1; k >= 0; k--) {
      if ((lineup[k] as PlanPullRequest).group !== null) continue;
      if (!parallel || overlaps(pr.targets, (lineup[k] as PlanPullRequest).targets)) {
        own.add(k);
        if (!direct) for (const j of ahead[k] ?? []) own.add(j);
      }
    }
    ahead[at] = [...own].sort((a, b) => a - b);
  });
  return { expected, holds, settled, doomed, deps, ahead, hold };
}

const TARGETS = ['//a', '//b', '//c', '//d'];
const targetsArb: fc.Arbitrary<Targets> = fc.oneof(
  { weight: 6, arbitrary: fc.subarray(TARGETS, { minLength: 1 }) },
  { weight: 1, arbitrary: fc.constant('ALL' as const) },
  { weight: 1, arbitrary: fc.constant([] as string[]) },
);

const lineupArb = fc.integer({ min: 0, max: 14 }).chain((size) =>
  fc.tuple(
    fc.array(
      fc.record({
        state: fc.constantFrom(
          ...PULL_REQUEST_STATES.filter((state) =>
            ['PENDING', 'TESTING', 'TESTS_PASSED', 'PENDING_FAILURE'].includes(state),
          ),
        ),
        group: fc.option(fc.constantFrom('g1', 'g2'), { freq: 3 }),
        runId: fc.option(fc.constantFrom('r1', 'r2', 'r3')),
        mergeRequested: fc.nat(7).map((n) => n === 0),
        runsBehindEnded: fc.integer({ min: 0, max: 2 }),
        targets: targetsArb,
        /** The tested base: the PRs ahead, or a random subset of them, or none. */
        baseKind: fc.constantFrom('none', 'ahead', 'some'),
        likelihood: fc.constantFrom(null, 0.02, 0.3),
        seed: fc.nat(),
      }),
      { minLength: size, maxLength: size },
    ),
    fc.record({
      parallel: fc.boolean(),
      direct: fc.boolean(),
      depth: fc.integer({ min: 0, max: 2 }),
      optimistic: fc.boolean(),
      merged: fc.subarray([101, 102]),
    }),
  ),
);

function inputOf([rows, options]: [
  Array<Record<string, unknown>>,
  { parallel: boolean; direct: boolean; depth: number; optimistic: boolean; merged: number[] },
]): PlanInput {
  const lineup: PlanPullRequest[] = rows.map((row, at) => {
    const ahead = Array.from({ length: at }, (_, k) => k + 1);
    const seed = row.seed as number;
    const base =
      row.baseKind === 'none'
        ? null
        : row.baseKind === 'ahead'
          ? [...options.merged, ...ahead]
          : [...options.merged, ...ahead.filter((_, k) => ((seed >> k) & 1) === 1)];
    return {
      number: at + 1,
      state: row.state as PlanPullRequest['state'],
      noBatch: false,
      readyAt: 0,
      testedBase: row.state === 'PENDING' ? null : base,
      runId: (row.runId as string | null) ?? null,
      bisectionId: row.group === null ? null : 'b1',
      group: (row.group as string | null) ?? null,
      mergeRequested: row.mergeRequested as boolean,
      runsBehindEnded: row.runsBehindEnded as number,
      runsBehindFailed: 0,
      failureRetests: 0,
      upToDate: false,
      targets: row.targets as Targets,
      likelihood: row.likelihood as number | null,
    };
  });
  return {
    state: 'running',
    settings: {
      ...DEFAULT_SETTINGS,
      mode: options.parallel ? 'parallel' : 'single',
      parallelBases: options.direct ? 'direct' : 'transitive',
      pendingFailureDepth: options.depth,
      canOptimisticallyMerge: options.optimistic,
    },
    bisectionConcurrency: 1,
    lineup,
    activeRuns: [],
    merged: new Set(options.merged),
    bisections: {},
    now: 0,
  };
}

describe('the planner view', () => {
  test('agrees with the reference on random line-ups', () => {
    fc.assert(
      fc.property(lineupArb, (generated) => {
        const input = inputOf(generated as never);
        const view = new LineupView(input);
        const ref = reference(input);
        input.lineup.forEach((pr, at) => {
          const label = `#${pr.number} in ${JSON.stringify(input.lineup.map((p) => [p.state, p.group, p.runId, p.targets]))}`;
          expect([...view.expected(at)], label).toEqual(ref.expected[at]);
          expect(view.holdsAt(at), label).toBe(ref.holds[at]);
          expect(view.settledAt(at), label).toBe(ref.settled[at]);
          expect(view.doomedAt(at), label).toBe(ref.doomed[at]);
          expect(view.holdChance(at), label).toBeCloseTo(ref.hold[at]!, 12);
        });
        // The view is computed lazily, as far as asked: asked from the back first, it answers the same.
        const backwards = new LineupView(input);
        for (let at = input.lineup.length - 1; at >= 0; at--) {
          expect([backwards.holdsAt(at), backwards.settledAt(at), backwards.doomedAt(at)]).toEqual([
            ref.holds[at],
            ref.settled[at],
            ref.doomed[at],
          ]);
          expect(backwards.aheadCount(at)).toBe(ref.ahead[at]!.length);
          expect(
            input.lineup.filter((pr) => backwards.dependsOn(at, pr.number)).map((pr) => input.lineup.indexOf(pr)),
          ).toEqual(ref.ahead[at]);
          expect([...backwards.expected(at)]).toEqual(ref.expected[at]);
        }
      }),
      { numRuns: 500 },
    );
  });
});
