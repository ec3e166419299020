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
import { applyStep, expectWorkingSetCurrent, type WorkloadStep } from '../engine/workload.js';

type Action =
  | Extract<WorkloadStep, { kind: 'submit' | 'cancel' | 'report' | 'advance' }>
  | { kind: 'prune'; minutes: number; events: boolean; batch: number };

const number = fc.integer({ min: 1, max: 8 });
const action: fc.Arbitrary<Action> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('submit' as const), number }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('cancel' as const), number }) },
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('report' as const), pick: fc.nat(5), success: fc.boolean() }) },
  {
    weight: 3,
    arbitrary: fc.record({ kind: fc.constant('advance' as const), minutes: fc.integer({ min: 1, max: 60 }) }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('prune' as const),
      minutes: fc.integer({ min: 0, max: 20 }),
      events: fc.boolean(),
      batch: fc.integer({ min: 1, max: 4 }),
    }),
  },
);

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
    fc.asyncProperty(
      fc.integer({ min: 1, max: 3 }),
      fc.array(action, { minLength: 5, maxLength: 40 }),
      async (concurrency, actions) => {
        const h = new QueueHarness();
        await h.create({ concurrency });
        let eventsCut = false;
        for (const step of actions) {
          try {
            if (step.kind === 'prune') {
              const before = new Date(h.scheduler.now() - step.minutes * 60_000).toISOString();
              const counts = await pruneQueue(
                h.engine,
                h.store,
                h.queueId,
                { prs: before, ...(step.events ? { events: before } : {}) },
                step.batch,
              );
              pruned += counts.prs + counts.runs;
              eventsCut ||= counts.events > 0;
            } else {
              applyStep(h, step);
            }
          } catch (error) {
            if (!(error instanceof EngineError)) throw error;
          }
          await h.engine.settle();
          expectWorkingSetCurrent(h);
          checkKept(h);
        }
        if (!eventsCut) {
          expect(replayEventLog(exportEventLog(h.store, KEY, 'property')).divergence).toBeNull();
          replayed++;
        } else {
          expect(exportEventLog(h.store, KEY, 'property').header.startsAt).toBeDefined();
        }
      },
    ),
    { numRuns: 120 },
  );
  console.log(`pruned ${pruned} PRs and runs; ${replayed} logs replayed`);
  expect(pruned).toBeGreaterThan(25);
  expect(replayed).toBeGreaterThan(20);
});
