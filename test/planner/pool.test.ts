/** One pool of CI slots for the main line and bisections, and batches that grow with the backlog (issue 28). */
import { describe, expect, test } from 'vitest';
import { largestBatch } from '../../engine/planner/batches.js';
import { newBisection, type BisectionMemory } from '../../engine/planner/bisectionMemory.js';
import { plan, type Decision } from '../../engine/planner/planner.js';
import { input, pr } from './inputs.js';

const starts = (decisions: Decision[]) =>
  decisions.flatMap((d) => (d.kind === 'startRun' ? [[d.runKind, d.prs, d.basePrs]] : []));
/** A group of its own bisection (`b` + name), split from a set that failed on the target. */
const group = (n: number, name: string, fields = {}) => pr(n, { group: name, bisectionId: `b${name}`, ...fields });
const failedOn = (...sets: number[][]): BisectionMemory => ({
  ...newBisection(),
  failed: sets.map((prs) => ({ prs, base: [] })),
});
const bisections = { bg0: failedOn([1, 9]), bg1: failedOn([2, 9]), bg2: failedOn([3, 9]) };

describe('one pool of CI slots', () => {
  test("a failed batch's bisection takes a free slot before new main-line work", () => {
    // Pool of concurrency 1 + bisectionConcurrency 1: one bisection run holds a slot, one group and one PR wait.
    const lineup = [group(1, 'g0', { state: 'TESTING', runId: 'r1', testedBase: [] }), group(2, 'g1'), pr(3)];
    const decisions = plan(input(lineup, { concurrency: 1 }, { bisectionConcurrency: 1, bisections })).decisions;
    expect(starts(decisions)).toEqual([['bisection', [2], []]]);
  });

  test('bisections may take every slot the main line leaves free, and the main line never more than concurrency', () => {
    const lineup = [group(1, 'g0'), group(2, 'g1'), group(3, 'g2'), pr(4), pr(5)];
    // Pool of 2 + 1: three groups take the three slots; nothing is left for the main line.
    expect(starts(plan(input(lineup, { concurrency: 2 }, { bisectionConcurrency: 1, bisections })).decisions)).toEqual([
      ['bisection', [1], []],
      ['bisection', [2], []],
      ['bisection', [3], []],
    ]);
    // Pool of 2 + 4: the groups take three, the main line its two.
    expect(starts(plan(input(lineup, { concurrency: 2 }, { bisectionConcurrency: 4, bisections })).decisions)).toEqual([
      ['main', [4], []],
      ['main', [5], [4]],
      ['bisection', [1], []],
      ['bisection', [2], []],
      ['bisection', [3], []],
    ]);
  });

  test('the main line keeps its slots: a bisection takes none held by a main-line run', () => {
    const testing = (n: number, base: number[]) => pr(n, { state: 'TESTING', runId: `r${n}`, testedBase: base });
    const lineup = [
      testing(1, []),
      testing(2, [1]),
      group(3, 'g0', { state: 'TESTING', runId: 'r3', testedBase: [1, 2] }),
      group(4, 'g1'),
    ];
    expect(starts(plan(input(lineup, { concurrency: 2 }, { bisectionConcurrency: 1, bisections })).decisions)).toEqual(
      [],
    );
  });

  test('halves of a failed set are tested at once; a group that could pass along with one being tested waits for it', () => {
    // Bisection b0 of [1, 2, 3, 4]: [1, 2] failed and was split; [3, 4] is still being tested. [1] and [3, 4] could
    // both pass: the first to merge would move the base the other was tested on. [1] and [2] cannot (their set failed).
    const member = (n: number, name: string, fields = {}) => pr(n, { group: name, bisectionId: 'b0', ...fields });
    const memory = { b0: failedOn([1, 2, 3, 4], [1, 2]) };
    const lineup = [
      member(1, 'g2'),
      member(2, 'g3'),
      member(3, 'g1', { state: 'TESTING', runId: 'r3', testedBase: [] }),
      member(4, 'g1', { state: 'TESTING', runId: 'r3', testedBase: [3] }),
    ];
    expect(
      starts(plan(input(lineup, { concurrency: 2 }, { bisectionConcurrency: 2, bisections: memory })).decisions),
    ).toEqual([]);
    const after = [member(1, 'g2'), member(2, 'g3')];
    expect(
      starts(plan(input(after, { concurrency: 2 }, { bisectionConcurrency: 2, bisections: memory })).decisions),
    ).toEqual([
      ['bisection', [1], []],
      ['bisection', [2], []],
    ]);
  });

  test('queue policy 1 (queues created before it): the bisections keep a pool of their own', () => {
    const lineup = [group(1, 'g0', { state: 'TESTING', runId: 'r1', testedBase: [] }), group(2, 'g1'), pr(3)];
    const decisions = plan(
      input(lineup, { concurrency: 1 }, { bisectionConcurrency: 1, bisections, policy: 1 }),
    ).decisions;
    expect(starts(decisions)).toEqual([['main', [3], []]]);
  });
});

describe('batches grow with the backlog', () => {
  const batching = { batch: true, batchingMinSize: 2, batchingMaxWaitTimeMinutes: 60, concurrency: 1 };

  test('a batch takes every ready PR of its chain up to batchingMaxSize', () => {
    const lineup = [1, 2, 3, 4, 5, 6].map((n) => pr(n));
    expect(starts(plan(input(lineup, { ...batching, batchingMaxSize: 5 })).decisions)).toEqual([
      ['main', [1, 2, 3, 4, 5], []],
    ]);
  });

  test('absent, the largest batch is batchingMinSize (batches grow only where batchingMaxSize is set); never below it', () => {
    const lineup = [1, 2, 3, 4, 5, 6].map((n) => pr(n));
    expect(starts(plan(input(lineup, batching)).decisions)).toEqual([['main', [1, 2], []]]);
    expect(starts(plan(input(lineup, { ...batching, batchingMaxSize: 1 })).decisions)).toEqual([['main', [1, 2], []]]);
    expect(largestBatch({ batchingMinSize: 8 })).toBe(8);
    expect(largestBatch({ batchingMinSize: 8, batchingMaxSize: 16 })).toBe(16);
    expect(largestBatch({ batchingMinSize: 8, batchingMaxSize: 3 })).toBe(8);
    // Queue policy 1 likewise.
    expect(starts(plan(input(lineup, batching, { policy: 1 })).decisions)).toEqual([['main', [1, 2], []]]);
  });

  test('without a backlog a batch still waits for batchingMinSize (or the longest wait)', () => {
    const { decisions, wakeAt } = plan(input([pr(1)], { ...batching, batchingMaxSize: 8 }));
    expect(starts(decisions)).toEqual([]);
    expect(wakeAt).toBe(60 * 60_000);
  });
});
