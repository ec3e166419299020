/**
 * What a runtime restores of the queues it takes (a start, or queues taken over), read in one transaction: their
 * deadlines in the order the scheduler fires them, the queues with effects left in the outbox, and the CI runs in progress.
 */
import type { CiRun } from '../providers/types.js';
import type { ReadTx } from '../store/store.js';
import { timerOrder } from './scheduler.js';

type Timer = { queueId?: string; name: string; dueAt: number };

/**
 * Timers in the order the scheduler fires them (scheduler.ts `timerOrder`: due time, then the key `queueId:name`), so
 * that those due at the same instant are armed, and fire when overdue, as they would have without a restart.
 */
export function firingOrder(a: Timer, b: Timer): number {
  const key = (timer: Timer) => `${timer.queueId ?? ''}:${timer.name}`;
  return timerOrder({ key: key(a), dueAt: a.dueAt }, { key: key(b), dueAt: b.dueAt });
}

export interface Restored {
  timers: { queueId: string; name: string; dueAt: number }[];
  outboxQueues: Set<string>;
  /** The CI runs to resume: those whose test branch was pushed. */
  runs: CiRun[];
}

/**
 * The timers (sorted: firingOrder, not the store's byte order, which puts `run:tr_…_10` before `run:tr_…_9`), outbox
 * queues and active runs of the queues `only` picks (test/engine/engine.properties: a restore ends as if it never
 * happened).
 */
export function readRestored(tx: ReadTx, only: (queueId: string) => boolean): Restored {
  const timers = [...tx.scan('timers')]
    .map(({ key, value }) => ({ queueId: String(key[0]), name: String(key[1]), dueAt: value }))
    .filter((timer) => only(timer.queueId));
  timers.sort(firingOrder);
  return {
    timers,
    outboxQueues: new Set([...tx.scan('outbox')].map(({ key }) => String(key[0])).filter(only)),
    runs: [...tx.scan('queues')]
      .filter(({ value: queue }) => only(queue.id))
      .flatMap(({ value: queue }) =>
        queue.runtime.activeRuns.flatMap((id) => {
          const run = tx.get('testRuns', [queue.id, id]);
          if (run === undefined || run.testBranchSha === '') return [];
          const deadlineAt = tx.get('timers', [queue.id, `run:${id}`]);
          return [
            {
              org: run.org,
              repo: queue.repo,
              runId: run.id,
              branch: run.testBranch,
              sha: run.testBranchSha,
              startedAt: Date.parse(run.createdAt),
              baseSha: run.baseSha,
              ...(deadlineAt === undefined ? {} : { deadlineAt }),
            },
          ];
        }),
      ),
  };
}

/** What a queue this process stops driving has under way here: its timers' names and its runs in progress. */
export function readReleased(tx: ReadTx, queueId: string): { timers: string[]; runs: readonly string[] } {
  return {
    timers: [...tx.scan('timers', { prefix: [queueId] })].map(({ key }) => String(key[1])),
    runs: tx.get('queues', [queueId])?.runtime.activeRuns ?? [],
  };
}
