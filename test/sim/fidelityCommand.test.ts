/**
 * The fidelity run's scripted command meets the simulator's luck: the tree it reads from a checkout (one file per PR,
 * `good` or `broken`), whatever split of it the run had (merged at its base, ahead, under test), gives the verdicts
 * the scenario CI gives that run, verdict after verdict; and verdicts are counted once each, however many commands
 * take one at once.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { expect, test } from 'vitest';
import { VirtualScheduler } from '../../engine/runtime/scheduler.js';
import { ScenarioCi, treePasses } from '../../sim/ci.js';
import { PR_FILES_DIR, takeVerdict, treeOfWorktree } from '../../sim/fidelityTree.js';
import { treeDigest } from '../../sim/trees.js';

const UNIVERSE = Array.from({ length: 12 }, (_, index) => index + 1);

test('the command reads the tree from the checkout and draws the verdicts the scenario CI draws for that run', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'greenline-fidelity-tree-'));
  try {
    let case_ = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.subarray(UNIVERSE, { minLength: 1 }),
        fc.subarray(UNIVERSE, { maxLength: 2 }),
        fc.infiniteStream(fc.constantFrom('merged' as const, 'ahead' as const, 'tested' as const)),
        fc.double({ min: 0.05, max: 0.9, noNaN: true }),
        async (tree, brokenList, parts, flakeRate) => {
          const broken = new Set(brokenList);
          const isBroken = (number: number) => broken.has(number);
          const split = new Map(tree.map((number) => [number, parts.next().value as 'merged' | 'ahead' | 'tested']));
          const of = (part: string) => tree.filter((number) => split.get(number) === part);
          // The simulator: the run's base tree is the good PRs merged (a broken one would have been reverted).
          const merged = of('merged').filter((number) => !isBroken(number));
          const contents = { prs: of('tested'), basePrs: of('ahead'), baseTree: treeDigest(0n, merged, isBroken) };
          const ci = new ScenarioCi(new VirtualScheduler(0), {
            seed: 7,
            medianMinutes: 1,
            p90Minutes: 2,
            flakeRate,
            isBroken,
          });
          // The real run: the checkout holds a file for each PR of the tree.
          const worktree = join(dir, `case${case_++}`);
          await mkdir(join(worktree, PR_FILES_DIR), { recursive: true });
          for (const number of [...merged, ...contents.basePrs, ...contents.prs]) {
            await writeFile(join(worktree, PR_FILES_DIR, String(number)), isBroken(number) ? 'broken\n' : 'good\n');
          }
          const read = treeOfWorktree(worktree);
          const digest = treeDigest(0n, [...read.keys()], (number) => read.get(number) === true);
          expect(digest).toBe(ci.treeOf(contents));
          const holdsBroken = [...read.values()].some(Boolean);
          for (let verdict = 0; verdict < 4; verdict++) {
            expect(treePasses({ seed: 7, flakeRate }, digest, holdsBroken, verdict)).toBe(
              ci.plan(contents, verdict).passes,
            );
          }
        },
      ),
      { numRuns: 60 },
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('verdicts on a tree are counted once each, in turn', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'greenline-fidelity-verdicts-'));
  try {
    const taken = Array.from({ length: 20 }, () => takeVerdict(dir, 'abc'));
    expect(taken).toEqual(Array.from({ length: 20 }, (_, index) => index));
    expect(takeVerdict(dir, 'def')).toBe(0);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
