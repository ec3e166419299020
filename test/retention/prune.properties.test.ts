/**
 * Pruning on random workloads (engine/retention): after every step, and after prunes at any moment, the engine's
 * working set equals the one rebuilt from the store, nothing enqueued or under test is deleted, the queue goes on,
 * and a log from which PRs and runs were pruned replays without divergence.
 */
import fc from 'fast-check';
import { expect, test } from 'vitest';
import { isEnqueued } from '../../machines/vocabulary.js';
import { EngineError } from '../../engine/model/errors.js';
import { pruneQueue } from '../../engine/retention/queues.js';
import { exportEventLog, replayEventLog } from '../../engine/runtime/eventLog.js';
import { KEY, QueueHarness } from '../engine/queueHarness.js';

type Action =
  | { kind: 'submit'; number: number }
  | { kind: 'cancel'; number: number }
  | { kind: 'report'; pick: number; success: boolean }
  | { kind: 'advance'; minutes: number }
  | { kind: 'prune'; minutes: number; events: boolean; batch: number };

const number = fc.integer({ min: 1, max: 8 });
const action: fc.Arbitrary<Action> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('submit' as const), number }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('cancel' as const), number }) },
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('report' as const), pick: fc.nat(5), success: fc.boolean() }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('advance' as const), minutes: fc.integer({ min: 1, max: 60 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('prune' as const), minutes: fc.integer({ min: 0, max: 20 }), events: fc.boolean(), batch: fc.integer({ min: 1, max: 4 }) }) },
);

function checkWorkingSet(h: QueueHarness): void {
  const { live, rebuilt } = h.engine.workingSetsOf(h.queueId);
  const view = (set: typeof live) => ({
    version: set?.version,
    queue: set?.queueSnapshot === undefined ? undefined : [set.queueSnapshot.value, set.queueSnapshot.context],
    prs: [...(set?.prs ?? new Map()).entries()].sort(([a], [b]) => a - b).map(([n, actor]) => [n, actor.record, actor.snapshot.value, actor.snapshot.context]),
    runs: [...(set?.runs ?? new Map()).entries()].sort(([a], [b]) => a.localeCompare(b)).map(([id, actor]) => [id, actor.record, actor.snapshot.value, actor.snapshot.context]),
  });
  expect(view(live)).toEqual(view(rebuilt));
}

function checkKept(h: QueueHarness): void {
  const queue = h.engine.getQueue(KEY).queue;
  for (const n of [...queue.runtime.lineup, ...queue.runtime.waiting]) expect(isEnqueued(h.pr(n).state)).toBe(true);
  const runs = new Set(h.runs().map((run) => run.id));
  for (const id of queue.runtime.activeRuns) expect(runs.has(id)).toBe(true);
}

test('pruning at any moment keeps the working set equal to the store and the queue consistent', async () => {
  let pruned = 0;
  let replayed = 0;
  await fc.assert(
    fc.asyncProperty(fc.integer({ min: 1, max: 3 }), fc.array(action, { minLength: 5, maxLength: 40 }), async (concurrency, actions) => {
      const h = new QueueHarness();
      await h.create({ concurrency });
      let eventsCut = false;
      for (const step of actions) {
        try {
          switch (step.kind) {
            case 'submit':
              h.engine.submitPullRequest(KEY, step.number);
              break;
            case 'cancel':
              h.engine.cancelPullRequest(KEY, step.number);
              break;
            case 'report': {
              const active = h.activeRuns().filter((run) => run.testBranchSha !== '');
              const run = active[step.pick % Math.max(1, active.length)];
              if (run !== undefined) h.engine.setCommitStatus(KEY.org, { repo: KEY.repo, sha: run.testBranchSha, context: 'ci', state: step.success ? 'success' : 'failure' });
              break;
            }
            case 'advance':
              h.scheduler.advanceBy(step.minutes * 60_000);
              break;
            case 'prune': {
              const before = new Date(h.scheduler.now() - step.minutes * 60_000).toISOString();
              const counts = await pruneQueue(h.engine, h.store, h.queueId, { prs: before, ...(step.events ? { events: before } : {}) }, step.batch);
              pruned += counts.prs + counts.runs;
              eventsCut ||= counts.events > 0;
              break;
            }
          }
        } catch (error) {
          if (!(error instanceof EngineError)) throw error;
        }
        await h.engine.settle();
        checkWorkingSet(h);
        checkKept(h);
      }
      if (!eventsCut) {
        expect(replayEventLog(exportEventLog(h.store, KEY, 'property')).divergence).toBeNull();
        replayed++;
      } else {
        expect(exportEventLog(h.store, KEY, 'property').header.startsAt).toBeDefined();
      }
    }),
    { numRuns: 120 },
  );
  console.log(`pruned ${pruned} PRs and runs; ${replayed} logs replayed`);
  expect(pruned).toBeGreaterThan(25);
  expect(replayed).toBeGreaterThan(20);
});
