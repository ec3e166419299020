/**
 * The mutation table of the conformance suite (issue 29): each row is a bug planted as textual patches of named
 * files (each `from` must occur exactly once in its file, or the row fails loudly), and what must catch it: the
 * generated suite (`greenline conformance`, seed 1) against a served copy, or a named vitest file run in the copy.
 * test/conformance/mutations.ts carries the table out; test/conformance/mutants.test.ts checks every patch still
 * applies to the sources as they are, and as Biome lays them out at a line width of 120 (test/conformance/plant.ts).
 */
import type { Patch } from './plant.js';

/** The generated suite against a served copy, or a vitest file (deterministic: scenarios or a fixed seed). */
export type Catcher = 'conformance' | `test/${string}.test.ts`;

export type Area = 'machines' | 'planner' | 'engine' | 'api' | 'flaky';

export interface Mutant {
  id: string;
  area: Area;
  bug: string;
  /** Whose bug: one of the planted bugs, or one added to the table. */
  origin: 'issue' | 'added';
  patches: Patch[];
  /** Tried in order; the row is caught by the first that fails on the mutant (each passes on the unmutated copy). */
  by: Catcher[];
  /** Why the generated suite is not among its catchers, or why it cannot be caught at all. */
  note?: string;
  /** An equivalent mutant: no client or test can tell it from the right code (reported, not counted). */
  equivalent?: true;
}

const CANCEL_MOVE: Patch = {
  file: 'engine/transaction/prMoves.ts',
  from: "return runId !== null && q.runs.inProgress(runId) ? cancelRun(q, runId, why, 'requeue') : NONE;",
  to: 'void cancelRun;\n    return NONE;',
};
const ORPHAN_RULE: Patch = {
  file: 'engine/planner/failures.ts',
  from: "if (orphaned) cancel(run.id, 'a pull request it tested left the queue');",
  to: 'void orphaned;',
};

export const MUTANTS: Mutant[] = [
  {
    id: '1',
    area: 'machines',
    origin: 'issue',
    bug: 'PR machine: MERGE from PENDING_FAILURE without its guard (vouchedByRunBehind)',
    patches: [
      {
        file: 'machines/pullRequest.ts',
        from: "MERGE: { guard: 'vouchedByRunBehind', target: 'MERGED', actions: MERGED },\n      },\n    },\n    MERGED:",
        to: "MERGE: { target: 'MERGED', actions: MERGED },\n      },\n    },\n    MERGED:",
      },
    ],
    by: ['test/machines/pullRequest.test.ts'],
    note: 'the engine sends MERGE to a failing PR only with the run that vouches for it: no API call sends an unvouched one',
  },
  {
    id: '2',
    area: 'machines',
    origin: 'issue',
    bug: 'queue machine: draining settles to running',
    patches: [{ file: 'machines/queue.ts', from: "SETTLED: 'paused',", to: "SETTLED: 'running'," }],
    by: ['conformance'],
  },
  {
    id: '3',
    area: 'planner',
    origin: 'issue',
    bug: 'the run vouching for an optimistic merge need not have passed (any PR behind with a result, testing included)',
    patches: [
      {
        file: 'engine/planner/mergeDecisions.ts',
        from: 'if (view.passed(behind, behindAt) && view.unmerged(behind.testedBase ?? []).includes(number)) return behind;',
        to: 'if (PR_IS.hasResult(behind.state) && view.unmerged(behind.testedBase ?? []).includes(number)) return behind;',
      },
      {
        file: 'engine/planner/view.ts',
        from: '(PR_IS.passed(pr.state) ? (pr.testedBase ?? []) : [])',
        to: '(PR_IS.hasResult(pr.state) ? (pr.testedBase ?? []) : [])',
      },
    ],
    by: ['conformance'],
  },
  {
    id: '4',
    area: 'planner',
    origin: 'issue',
    bug: 'kick a failed PR before its base settles (its failure taken as its own while a PR under it still tests)',
    // The rule is kept twice: a failure waits for its base to settle, and a PR failing alone for the PRs ahead of it.
    patches: [
      { file: 'engine/planner/failures.ts', from: '    if (!view.settledAt(at)) return;\n', to: '' },
      { file: 'engine/planner/failures.ts', from: '  if (view.expected(at).length > 0) return undefined;\n', to: '' },
    ],
    by: ['conformance'],
  },
  {
    id: '5',
    area: 'engine',
    origin: 'issue',
    bug: 'deleteQueue ignores NOT_READY PRs',
    patches: [
      {
        file: 'engine/queueIndex.ts',
        from: 'const enqueued = queue.runtime.lineup.length + queue.runtime.waiting.length;',
        to: 'const enqueued = queue.runtime.lineup.length;',
      },
    ],
    by: ['conformance'],
  },
  {
    id: '6',
    area: 'engine',
    origin: 'issue',
    bug: 'run-deadline timers not persisted (armed in memory, never written to the store)',
    patches: [
      {
        file: 'engine/transaction/outcome.ts',
        from: "    this.tx.put('timers', [this.queue.id, name], dueAt);\n",
        to: "    if (!name.startsWith('run:')) this.tx.put('timers', [this.queue.id, name], dueAt);\n",
      },
    ],
    by: ['test/engine/engine.scenarios.test.ts'],
    note: 'a timer fires only while its stored copy is there, so no run ever times out; the suite waits for no deadline (testingTimeoutMinutes is at least a minute of real time) and never restarts its server',
  },
  {
    id: '7',
    area: 'planner',
    origin: 'added',
    bug: 'a passed PR merges with PRs ahead of it still unmerged (out of order)',
    patches: [
      {
        file: 'engine/planner/mergeDecisions.ts',
        from: 'if (pr.group !== null || !mayMerge(pr) || view.aheadCount(at) > 0) continue;',
        to: 'if (pr.group !== null || !mayMerge(pr)) continue;',
      },
    ],
    by: ['conformance'],
  },
  {
    id: '8',
    area: 'machines',
    origin: 'added',
    bug: 'test-run machine: a run succeeds once any deciding status passed (some, not every)',
    patches: [
      {
        file: 'machines/testRun.ts',
        from: "return states.length > 0 && states.every((state) => state === 'success');",
        to: "return states.length > 0 && states.some((state) => state === 'success');",
      },
    ],
    by: ['conformance'],
  },
  {
    id: '9',
    area: 'api',
    origin: 'added',
    bug: 'API: the integer settings and PR numbers accept 0 (min 0, not 1)',
    patches: [
      {
        file: 'api/schemas.ts',
        from: 'const uint32 = z.number().int().min(1).max(UINT32_MAX);',
        to: 'const uint32 = z.number().int().min(0).max(UINT32_MAX);',
      },
    ],
    by: ['conformance'],
  },
  {
    id: '10',
    area: 'engine',
    origin: 'issue',
    bug: 'cancel leaves its run running (both places: the PR move and the planner’s orphan rule)',
    patches: [CANCEL_MOVE, ORPHAN_RULE],
    by: ['conformance'],
  },
  {
    id: '10a',
    area: 'engine',
    origin: 'issue',
    bug: 'cancel leaves its run running: the PR move only',
    patches: [CANCEL_MOVE],
    by: ['conformance'],
    equivalent: true,
    note: 'the planner cancels a run whose PR left in the same transaction; only the run’s reason words differ',
  },
  {
    id: '10b',
    area: 'planner',
    origin: 'issue',
    bug: 'cancel leaves its run running: the planner’s orphan rule only',
    patches: [ORPHAN_RULE],
    by: ['conformance'],
    equivalent: true,
    note: 'the PR move cancels the run first; the orphan rule only acts when that one does not',
  },
  {
    id: '11',
    area: 'engine',
    origin: 'added',
    bug: 'a restart of a passed PR leaves it passed',
    patches: [
      {
        file: 'engine/transaction/handlers.ts',
        from: '  } else {\n    q.write([requeue(number, reason)]);\n  }\n}',
        to: '  } else {\n    void reason;\n  }\n}',
      },
    ],
    by: ['conformance'],
  },
  {
    id: '12',
    area: 'engine',
    origin: 'added',
    bug: 'listPullRequests paging skips a PR',
    patches: [
      {
        file: 'engine/pullRequestListing.ts',
        from: 'const next = matching[start + query.take];',
        to: 'const next = matching[start + query.take + 1];',
      },
    ],
    by: ['conformance'],
  },
  {
    id: '13',
    area: 'flaky',
    origin: 'added',
    bug: 'flaky detection: the failure-rate monitors activate without their minimum number of runs',
    patches: [
      {
        file: 'engine/flaky/monitors.ts',
        from: 'return runs >= limits.minRuns && share >= limits.activationRate;',
        to: 'return runs > 0 && share >= limits.activationRate;',
      },
    ],
    by: ['test/flaky/detection.test.ts'],
    note: 'flaky-test detection is not part of the merge-queue API the suite drives',
  },
  {
    id: '14',
    area: 'flaky',
    origin: 'added',
    bug: 'flaky detection: no hysteresis (an active monitor resolves below the activation rate, not at the resolution rate)',
    patches: [
      {
        file: 'engine/flaky/monitors.ts',
        from: 'if (wasActive) return !(runs === 0 || share <= limits.resolutionRate);',
        to: 'if (wasActive) return !(runs === 0 || share < limits.activationRate);',
      },
    ],
    by: ['test/flaky/detection.test.ts'],
    note: 'flaky-test detection is not part of the merge-queue API the suite drives',
  },
  {
    id: '15',
    area: 'planner',
    origin: 'added',
    bug: 'anti-flake: a PR failing alone is kicked one retest early (failures < depth, not < depth + 1)',
    patches: [
      {
        file: 'engine/planner/failurePolicy.ts',
        from: "return depth > 0 && failuresAgainst(pr) < depth + 1 ? 'retest' : 'kick';",
        to: "return depth > 0 && failuresAgainst(pr) < depth ? 'retest' : 'kick';",
      },
    ],
    by: ['conformance', 'test/engine/failures.scenarios.test.ts'],
  },
  {
    id: '16',
    area: 'api',
    origin: 'added',
    bug: 'API: getQueue leaves the first enqueued PR out of enqueuedPullRequests',
    patches: [
      {
        file: 'api/views.ts',
        from: 'enqueuedPullRequests: result.enqueued.map(enqueuedPullRequestView)',
        to: 'enqueuedPullRequests: result.enqueued.slice(1).map(enqueuedPullRequestView)',
      },
    ],
    by: ['conformance'],
  },
  {
    id: '17',
    area: 'engine',
    origin: 'added',
    bug: 'a run behind a failing PR never says the failure policy still awaits runs behind it (awaitsRunsBehind)',
    patches: [{ file: 'engine/transaction/runMoves.ts', from: ', ...(awaitsMore ? { awaitsMore } : {}) }', to: ' }' }],
    by: ['test/engine/failureWaits.scenarios.test.ts'],
    note: "the chart's branches take the same moves: a client sees no difference, the PR machine's events do",
  },
];
