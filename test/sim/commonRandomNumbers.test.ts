/**
 * Common random numbers (issue 35): two configurations that test the same tree the same number of times meet the same
 * outcomes and durations, however they reach that tree (which of its PRs had merged, which were ahead in the test
 * branch, which under test), in whatever order, and however many of their runs were cancelled before a verdict.
 */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { SimGitHost } from '../../engine/providers/sim/simGitHost.js';
import { VirtualScheduler } from '../../engine/runtime/scheduler.js';
import { runDurationMs, ScenarioCi, type RunContents } from '../../sim/ci.js';
import { EMPTY_TREE, TreeGitHost, treeDigest } from '../../sim/trees.js';

const UNIVERSE = [1, 2, 3, 4, 5, 6, 7, 8];
const MINUTE_MS = 60_000;

/** A tree (a set of PRs), split into the PRs merged at its base, the PRs ahead and the PRs under test (at least one). */
const split = (tree: readonly number[]) =>
  fc
    .array(fc.constantFrom('merged' as const, 'ahead' as const, 'tested' as const), {
      minLength: tree.length,
      maxLength: tree.length,
    })
    .map((parts) => {
      // With nothing under test, the tree's first PR is.
      if (!parts.includes('tested')) parts[0] = 'tested';
      const of = (part: string) => tree.filter((_, index) => parts[index] === part);
      return { merged: of('merged'), ahead: of('ahead'), tested: of('tested') };
    });

/** One run of a configuration: its tree, how it reaches it, and whether it is cancelled before its verdict. */
const runOf = (tree: readonly number[]) => fc.record({ split: split(tree), cancelled: fc.boolean() });
const treeArb = fc.subarray(UNIVERSE, { minLength: 1 });

interface Verdicts {
  /** Per tree (its PRs, sorted), the outcomes in verdict order. */
  byTree: Map<string, boolean[]>;
  durations: { prs: number[]; ms: number }[];
}

/** Plays runs on a scenario CI, one started per minute; returns each tree's verdicts in order. */
function play(
  runs: {
    tree: readonly number[];
    split: { merged: number[]; ahead: number[]; tested: number[] };
    cancelled: boolean;
  }[],
  broken: ReadonlySet<number>,
): Verdicts {
  const scheduler = new VirtualScheduler(0);
  const isBroken = (number: number) => broken.has(number);
  const ci = new ScenarioCi(scheduler, { seed: 9, medianMinutes: 10, p90Minutes: 30, flakeRate: 0.4, isBroken });
  const contents = new Map<string, RunContents>();
  ci.attach((runId) => contents.get(runId) as RunContents);
  const byTree = new Map<string, boolean[]>();
  const durations: Verdicts['durations'] = [];
  const base = { org: 'o', repo: { host: 'h', owner: 'o', name: 'n' }, branch: 'b', sha: 'abc' };
  runs.forEach((run, index) => {
    const runId = `r${index}`;
    const startedAt = index * MINUTE_MS;
    scheduler.advanceTo(startedAt);
    // A broken PR on the target branch would have been reverted (TreeGitHost): in a tree, it is ahead.
    const merged = run.split.merged.filter((number) => !isBroken(number));
    const ahead = [...run.split.ahead, ...run.split.merged.filter(isBroken)];
    contents.set(runId, { prs: run.split.tested, basePrs: ahead, baseTree: treeDigest(EMPTY_TREE, merged, isBroken) });
    const key = [...run.tree].sort((a, b) => a - b).join(',');
    ci.start({ ...base, runId, startedAt }, (status) => {
      durations.push({ prs: run.split.tested, ms: scheduler.now() - startedAt });
      byTree.set(key, [...(byTree.get(key) ?? []), status.state === 'success']);
    });
    if (run.cancelled) ci.stop(runId);
  });
  scheduler.advanceTo(Number.MAX_SAFE_INTEGER);
  return { byTree, durations };
}

describe('common random numbers', () => {
  test('two configurations that test the same trees the same number of times meet the same outcomes and durations', () => {
    const workload = fc
      .record({
        trees: fc.array(treeArb, { minLength: 1, maxLength: 12 }),
        broken: fc.subarray(UNIVERSE, { maxLength: 2 }),
      })
      .chain(({ trees, broken }) =>
        fc.record({
          broken: fc.constant(new Set(broken)),
          // Each configuration tests every tree (some twice), each time by a split of its own, in an order of its own,
          // with cancelled runs of its own besides.
          a: fc.tuple(...trees.map((tree) => runOf(tree).map((run) => ({ ...run, tree, cancelled: false })))),
          b: fc.tuple(...trees.map((tree) => runOf(tree).map((run) => ({ ...run, tree, cancelled: false })))),
          extraB: fc.array(
            treeArb.chain((tree) => runOf(tree).map((run) => ({ ...run, tree, cancelled: true }))),
            { maxLength: 6 },
          ),
          order: fc.shuffledSubarray(
            trees.map((_, index) => index),
            { minLength: trees.length },
          ),
        }),
      );
    fc.assert(
      fc.property(workload, ({ broken, a, b, extraB, order }) => {
        const first = play(a, broken);
        const second = play([...order.map((index) => b[index] as (typeof b)[number]), ...extraB], broken);
        // Every tree has as many verdicts in both (the cancelled runs gave none), and the same ones, in order.
        expect(new Map([...second.byTree].sort())).toEqual(new Map([...first.byTree].sort()));
        for (const { prs, ms } of [...first.durations, ...second.durations])
          expect(ms).toBe(runDurationMs({ seed: 9, medianMinutes: 10, p90Minutes: 30 }, prs));
      }),
      { numRuns: 300 },
    );
  });

  test('a retest of the same tree draws anew, and trees that differ by one PR draw apart', () => {
    const outcomes = (times: number, tree: number[]) =>
      play(
        Array.from({ length: times }, () => ({
          tree,
          split: { merged: [], ahead: tree.slice(1), tested: tree.slice(0, 1) },
          cancelled: false,
        })),
        new Set(),
      ).byTree.get(tree.join(',')) ?? [];
    const many = outcomes(200, [1, 2, 3]);
    expect(many.filter((passed) => !passed).length).toBeGreaterThan(50);
    expect(many.filter((passed) => passed).length).toBeGreaterThan(50);
    const pairs = Array.from({ length: 60 }, (_, i) => [outcomes(1, [i + 10])[0], outcomes(1, [i + 10, i + 200])[0]]);
    expect(pairs.some(([one, other]) => one !== other)).toBe(true);
  });

  test("a set of PRs lasts the scenario's log-normal, related to its PRs' own durations", () => {
    const options = { seed: 2, medianMinutes: 30, p90Minutes: 50 };
    const batches = Array.from({ length: 4000 }, (_, i) => [4 * i + 1, 4 * i + 2, 4 * i + 3, 4 * i + 4]);
    const minutes = batches.map((prs) => runDurationMs(options, prs) / MINUTE_MS).sort((a, b) => a - b);
    expect(minutes[2000] as number).toBeGreaterThan(28.5);
    expect(minutes[2000] as number).toBeLessThan(31.5);
    expect(minutes[3600] as number).toBeGreaterThan(47);
    expect(minutes[3600] as number).toBeLessThan(53);
    // A batch of 2 and the batch of 4 that holds it: correlated (√(2/4) on the log scale), not unrelated draws.
    const logs = batches.map(
      (prs) => [Math.log(runDurationMs(options, prs.slice(0, 2))), Math.log(runDurationMs(options, prs))] as const,
    );
    const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
    const [mx, my] = [mean(logs.map(([x]) => x)), mean(logs.map(([, y]) => y))];
    const cov = mean(logs.map(([x, y]) => (x - mx) * (y - my)));
    const sd = (pick: (pair: readonly [number, number]) => number, m: number) =>
      Math.sqrt(mean(logs.map((pair) => (pick(pair) - m) ** 2)));
    const correlation = cov / (sd(([x]) => x, mx) * sd(([, y]) => y, my));
    expect(correlation).toBeGreaterThan(0.6);
    expect(correlation).toBeLessThan(0.8);
  });

  test("the simulated host's tree: the PRs merged up to a head, in any order, without the broken ones (reverted)", async () => {
    const repo = { host: 'h', owner: 'o', name: 'n' };
    const host = new TreeGitHost((number) => number === 3);
    const head = await host.targetHead(repo, 'main');
    expect(host.treeOf(head)).toBe(EMPTY_TREE);
    const mergeAll = async (numbers: number[]) => {
      let at = head;
      for (const number of numbers) {
        const result = await host.merge({
          repo,
          targetBranch: 'main',
          expectedHead: at,
          pullRequest: { number, sha: `s${number}`, title: '' },
          testBranchSha: null,
          mergeMethod: 'merge_commit',
        });
        if (!result.ok) throw new Error('the simulated host refused a merge');
        at = result.head;
      }
      return at;
    };
    const one = await mergeAll([1, 2, 3]);
    const other = await mergeAll([2, 1]);
    expect(one).not.toBe(other);
    expect(host.treeOf(one)).toBe(host.treeOf(other));
    expect(host.treeOf(one)).toBe(treeDigest(EMPTY_TREE, [1, 2], () => false));
    expect(() => host.treeOf(new SimGitHost().name)).toThrow(/never answered/);
  });
});
