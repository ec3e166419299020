/**
 * Properties of parallel mode on random workloads (PRs with random impacted targets, CI outcomes, cancels, batching
 * and mode switches) on a virtual clock:
 * - a PR never waits on one whose targets do not overlap: every PR in a run's base reaches a tested PR through a
 *   chain of overlapping PRs of that run;
 * - for every target, each merge touching it was tested on top of every earlier merge touching it (so the merges
 *   that touch a target happen in an order each one was tested in); `ALL` touches every target, so it serialises;
 * - mode switches lose nothing: once CI passes everything, every PR that was not cancelled or failed has merged.
 */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { EngineError } from '../../engine/model/errors.js';
import { isEnqueued } from '../../machines/vocabulary.js';
import { KEY, QueueHarness } from './queueHarness.js';

type Targets = string[] | 'ALL';
type Action =
  | { kind: 'submit'; number: number }
  | { kind: 'cancel'; number: number }
  | { kind: 'report'; pick: number; success: boolean }
  | { kind: 'advance'; minutes: number }
  | { kind: 'mode'; mode: 'single' | 'parallel' };

const PRS = 8;
const number = fc.integer({ min: 1, max: PRS });
const targetsArb: fc.Arbitrary<Targets> = fc.oneof(
  { weight: 8, arbitrary: fc.subarray(['a', 'b', 'c', 'd', 'e'], { minLength: 1, maxLength: 2 }) },
  { weight: 1, arbitrary: fc.constant('ALL' as const) },
  { weight: 1, arbitrary: fc.constant([] as string[]) },
);
const actionArb = (switches: boolean): fc.Arbitrary<Action> =>
  fc.oneof(
    { weight: 5, arbitrary: fc.record({ kind: fc.constant('submit' as const), number }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('cancel' as const), number }) },
    {
      weight: 8,
      arbitrary: fc.record({ kind: fc.constant('report' as const), pick: fc.nat(5), success: fc.boolean() }),
    },
    {
      weight: 1,
      arbitrary: fc.record({ kind: fc.constant('advance' as const), minutes: fc.integer({ min: 1, max: 30 }) }),
    },
    {
      weight: switches ? 1 : 0,
      arbitrary: fc.record({
        kind: fc.constant('mode' as const),
        mode: fc.constantFrom('single' as const, 'parallel' as const),
      }),
    },
  );
const settingsArb = fc.record({
  concurrency: fc.integer({ min: 1, max: 4 }),
  batch: fc.boolean(),
  batchingMinSize: fc.integer({ min: 2, max: 3 }),
  batchingMaxWaitTimeMinutes: fc.integer({ min: 1, max: 20 }),
  parallelBases: fc.constantFrom('transitive' as const, 'direct' as const),
});

function overlaps(a: Targets, b: Targets): boolean {
  if (a !== 'ALL' && a.length === 0) return false;
  if (b !== 'ALL' && b.length === 0) return false;
  if (a === 'ALL' || b === 'ALL') return true;
  return a.some((target) => b.includes(target));
}

async function report(h: QueueHarness, pick: number, success: boolean): Promise<void> {
  const active = h.activeRuns().filter((run) => run.testBranchSha !== '');
  const run = active[pick % Math.max(1, active.length)];
  if (run !== undefined) await h.report(run, success ? 'success' : 'failure');
}

async function play(initial: Record<string, unknown>, targets: Targets[], actions: Action[]): Promise<QueueHarness> {
  const h = new QueueHarness();
  await h.create({ mode: 'parallel', ...initial });
  for (let n = 1; n <= PRS; n++) await h.targets(n, targets[n - 1] as Targets);
  for (const step of actions) {
    try {
      if (step.kind === 'submit') h.engine.submitPullRequest(KEY, step.number);
      else if (step.kind === 'cancel') h.engine.cancelPullRequest(KEY, step.number);
      else if (step.kind === 'report') await report(h, step.pick, step.success);
      else if (step.kind === 'advance') h.scheduler.advanceBy(step.minutes * 60_000);
      else h.engine.updateQueue(KEY, { mode: step.mode });
    } catch (error) {
      if (!(error instanceof EngineError)) throw error;
    }
    await h.engine.settle();
  }
  return h;
}

/**
 * Every PR in each run's base is linked to a PR the run tests by a chain of overlapping PRs of the run; with direct
 * bases, a main-line run's base PR overlaps one of the PRs it tests (a bisection group's base is its first member's).
 */
function checkBases(h: QueueHarness, targets: Targets[], direct = false): number {
  let checked = 0;
  for (const run of h.runs()) {
    if (run.mode !== 'parallel') continue;
    if (direct && run.kind === 'main') {
      for (const base of run.basePrs) {
        const overlapsOne = run.prs.some((tested) =>
          overlaps(targets[base - 1] as Targets, targets[tested - 1] as Targets),
        );
        expect(overlapsOne, `direct: run ${run.id} tests ${run.prs} on ${run.basePrs}`).toBe(true);
      }
    }
    const members = [...run.basePrs, ...run.prs];
    const reached = new Set(run.prs);
    for (let grew = true; grew; ) {
      grew = false;
      for (const candidate of members) {
        if (reached.has(candidate)) continue;
        if ([...reached].some((other) => overlaps(targets[candidate - 1] as Targets, targets[other - 1] as Targets))) {
          reached.add(candidate);
          grew = true;
        }
      }
    }
    for (const base of run.basePrs)
      expect(reached.has(base), `run ${run.id} tests ${run.prs} on ${run.basePrs}`).toBe(true);
    checked += run.basePrs.length;
  }
  return checked;
}

/** For overlapping PRs m1 merged before m2, m2's passing run had m1 in its tree (on the target, or in its base). */
function checkMergeOrder(h: QueueHarness, targets: Targets[]): number {
  const order = h.mergeOrder();
  const runs = new Map(h.runs().map((run) => [run.id, run]));
  const headAfter = new Map(order.map((number) => [h.pr(number).mergedSha, number]));
  let pairs = 0;
  order.forEach((later, index) => {
    const pr = h.pr(later);
    expect(pr.mergedBy, `PR ${later}`).toBeNull();
    const run = runs.get(pr.runId ?? '');
    expect(run?.status).toBe('succeeded');
    // The merged PRs on the target when the run started: the merge order up to the one that made its base head.
    const lastOnTarget = headAfter.get(run!.baseSha);
    const onTarget = lastOnTarget === undefined ? [] : order.slice(0, order.indexOf(lastOnTarget) + 1);
    const tree = new Set([...onTarget, ...run!.basePrs, ...run!.prs.slice(0, run!.prs.indexOf(later))]);
    for (const earlier of order.slice(0, index)) {
      if (!overlaps(targets[earlier - 1] as Targets, targets[later - 1] as Targets)) continue;
      expect(tree.has(earlier), `#${later} merged after #${earlier} without being tested on it`).toBe(true);
      pairs++;
    }
  });
  return pairs;
}

describe('parallel mode properties', () => {
  test('bases hold only overlapping PRs, and every merge was tested on the earlier merges it overlaps', async () => {
    let bases = 0;
    let pairs = 0;
    let merges = 0;
    await fc.assert(
      fc.asyncProperty(
        settingsArb,
        fc.array(targetsArb, { minLength: PRS, maxLength: PRS }),
        fc.array(actionArb(false), { minLength: 10, maxLength: 50 }),
        async (initial, targets, actions) => {
          const h = await play(initial, targets, actions);
          bases += checkBases(h, targets, initial.parallelBases === 'direct');
          pairs += checkMergeOrder(h, targets);
          merges += h.mergeOrder().length;
        },
      ),
      { numRuns: 250 },
    );
    // The workloads exercise what the properties speak of (with direct bases, a PR resting on one whose outcome is
    // open is tested alone first, on no base: fewer runs have one).
    expect(merges).toBeGreaterThan(100);
    expect(bases).toBeGreaterThan(30);
    expect(pairs).toBeGreaterThan(50);
    // Under a load of 13–30 on two cores this took 26–52 s: a budget, not the default 30 s.
  });

  test('a PR never waits on a PR it does not overlap: with everything passing, lanes merge in any order', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(targetsArb, { minLength: PRS, maxLength: PRS }), async (targets) => {
        const h = new QueueHarness();
        await h.create({ mode: 'parallel', concurrency: PRS });
        for (let n = 1; n <= PRS; n++) await h.targets(n, targets[n - 1] as Targets);
        await h.submit(...Array.from({ length: PRS }, (_, i) => i + 1));
        // Every PR is testing at once, each on exactly the PRs ahead it overlaps transitively.
        expect(h.activeRuns()).toHaveLength(PRS);
        checkBases(h, targets);
        // Pass them from the back: a PR merges as soon as nothing it overlaps is left ahead of it.
        for (let n = PRS; n >= 1; n--) {
          const run = h.activeRuns().find((candidate) => candidate.prs.includes(n));
          if (run !== undefined) await h.report(run, 'success');
          const ahead = Array.from({ length: n - 1 }, (_, i) => i + 1);
          const blocked = ahead.some((m) => overlaps(targets[m - 1] as Targets, targets[n - 1] as Targets));
          expect(h.pr(n).state, `#${n} with ${JSON.stringify(targets)}`).toBe(blocked ? 'TESTS_PASSED' : 'MERGED');
        }
        expect(h.mergeOrder()).toHaveLength(PRS);
        checkMergeOrder(h, targets);
      }),
      { numRuns: 100 },
    );
    // Under a load of 13–30 on two cores this took 26–52 s: a budget, not the default 30 s.
  });

  test('mode switches lose nothing: once CI passes everything, every PR still queued merges', async () => {
    await fc.assert(
      fc.asyncProperty(
        settingsArb,
        fc.array(targetsArb, { minLength: PRS, maxLength: PRS }),
        fc.array(actionArb(true), { minLength: 10, maxLength: 40 }),
        async (initial, targets, actions) => {
          const h = await play(initial, targets, actions);
          checkBases(h, targets);
          for (let round = 0; round < 100; round++) {
            const active = h.activeRuns().filter((run) => run.testBranchSha !== '');
            if (active.length > 0) await h.report(active[0]!, 'success');
            else await h.advanceMinutes(30);
            const queued = h.store
              .read((tx) => [...tx.scan('pullRequests', { prefix: [h.queueId] })])
              .filter((entry) => isEnqueued(entry.value.state));
            if (queued.length === 0) break;
          }
          const states = h.store.read((tx) =>
            [...tx.scan('pullRequests', { prefix: [h.queueId] })].map((entry) => entry.value.state),
          );
          expect(states.filter((state) => isEnqueued(state))).toEqual([]);
          expect(h.engine.getQueue(KEY).queue.state).toBe('running');
          checkMergeOrder(h, targets);
        },
      ),
      { numRuns: 100 },
    );
  });
});
