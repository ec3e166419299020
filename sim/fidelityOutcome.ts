/**
 * What became of a scenario's PRs in a queue, read from its store the same way for the simulator's in-memory store and
 * for the data folder of a real `greenline serve` (fidelity.ts compares the two): each PR's fate, every run, and the
 * order of the merges (the `merged` inputs of the queue's event log, in sequence — a batch merges PR by PR, so two
 * merges at the same virtual time still have an order).
 */
import type { QueueKey } from '../engine/engine.js';
import type { Store } from '../engine/store/store.js';
import { isEnqueued } from '../machines/vocabulary.js';
import type { Arrival } from './arrivals.js';
import type { PrOutcome, QueueOutcome, RunOutcome } from './queueRun.js';

export interface FidelityOutcome extends QueueOutcome {
  /** The PRs merged, in the order they reached the target branch. */
  mergeOrder: number[];
}

function queueIdOf(store: Store, key: QueueKey): string {
  const indexKey = [
    key.org,
    key.repo.host.toLowerCase(),
    key.repo.owner.toLowerCase(),
    key.repo.name.toLowerCase(),
    key.branch,
  ];
  const queueId = store.read((tx) => tx.get('queueIndex', indexKey));
  if (queueId === undefined)
    throw new Error(`no queue for ${key.repo.host}/${key.repo.owner}/${key.repo.name}@${key.branch} in ${key.org}`);
  return queueId;
}

/**
 * The outcome of the queue `key` in `store`: times are ms since `startMs` (the simulation's start, or the wall-clock
 * instant the real run's arrivals count from); `arrivals` are the scenario's, each PR's arrival at its planned time.
 */
export function outcomeOf(
  store: Store,
  key: QueueKey,
  startMs: number,
  arrivals: readonly Arrival[],
  endAt: number,
): FidelityOutcome {
  const queueId = queueIdOf(store, key);
  return store.read((tx) => {
    const prs = arrivals.map((arrival): PrOutcome => {
      const record = tx.get('pullRequests', [queueId, arrival.number]);
      const state = record?.state ?? 'NOT_READY';
      return {
        number: arrival.number,
        arrivedAt: arrival.at,
        broken: arrival.broken,
        state,
        leftAt: !isEnqueued(state) && record !== undefined ? Date.parse(record.stateChangedAt) - startMs : null,
      };
    });
    const runs = [...tx.scan('testRuns', { prefix: [queueId] })].map(
      ({ value: run }): RunOutcome => ({
        id: run.id,
        kind: run.kind,
        status: run.status,
        startedAt: Date.parse(run.createdAt) - startMs,
        endedAt: run.endedAt === null ? endAt : Date.parse(run.endedAt) - startMs,
        prs: run.prs,
        basePrs: run.basePrs,
      }),
    );
    const mergeOrder: number[] = [];
    let events = 0;
    for (const { value: event } of tx.scan('events', { prefix: [queueId] })) {
      events++;
      if (event.input.type === 'merged' && event.input.result.ok) mergeOrder.push(event.input.number);
    }
    return { prs, runs, endAt, events, saturated: false, mergeOrder };
  });
}
