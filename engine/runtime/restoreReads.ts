/**
 * What a runtime restores of the queues it takes (a start, or queues taken over), read in one transaction: their
 * deadlines in the order they were made, the queues with effects left in the outbox, and the CI runs in progress.
 */
import type { CiRun } from '../providers/types.js';
import type { ReadTx } from '../store/store.js';

/** Timer names compare with their numbers as numbers, so that run ids sort in the order the runs were made. */
const NAMES = new Intl.Collator('en', { numeric: true });

/** Timers in due order, and those due at the same instant in the order they were made. */
export function madeFirst(a: { name: string; dueAt: number }, b: { name: string; dueAt: number }): number {
  return a.dueAt - b.dueAt || NAMES.compare(a.name, b.name);
}

export interface Restored {
  timers: { queueId: string; name: string; dueAt: number }[];
  outboxQueues: Set<string>;
  /** The CI runs to resume: those whose test branch was pushed. */
  runs: CiRun[];
}

/**
 * The timers (sorted: madeFirst), outbox queues and active runs of the queues `only` picks. Armed in the order they
 * were made, not the store's byte order (`run:tr_…_10` before `run:tr_…_9`): timers due at the same instant then fire
 * in the order they would have without the restart (test/engine/engine.properties).
 */
export function readRestored(tx: ReadTx, only: (queueId: string) => boolean): Restored {
  const timers = [...tx.scan('timers')]
    .map(({ key, value }) => ({ queueId: String(key[0]), name: String(key[1]), dueAt: value }))
    .filter((timer) => only(timer.queueId));
  timers.sort(madeFirst);
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
