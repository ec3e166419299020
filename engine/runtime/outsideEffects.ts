/**
 * Effects decided outside a queue's transactions, from what the queue's state is at some moment rather than from one
 * input: the GitHub check runs, written at most once per throttle period (engine/providers/github/checkRuns.ts). Each
 * goes in the queue's outbox like the effects its transactions decide, so none is lost to a crash and the outbox
 * retries it with its kind's policy; it is done by the queue's driver.
 *
 * It is kept under `[queueId, slot]`, a string where the transactions' effects are numbered: numbers sort before
 * strings (keyCodec.ts), so it runs after every effect the queue decided, and one failing (GitHub refusing the
 * check run) never holds them up. A slot holds one effect: while it waits, another is not put there (`busy`), and
 * the caller puts it after, which keeps one write per slot in flight and the latest one last.
 */
import type { Effect } from '../model/effects.js';
import type { Store } from '../store/store.js';
import type { QueueOwnership } from './ownership.js';

/** What is decided outside a queue's transactions: its check runs. */
export type OutsideEffect = Extract<Effect, { kind: 'checkRun' }>;

/** `stopped`: the engine is stopped, or the queue is gone. */
export type PutOutcome = 'put' | 'busy' | 'stopped';

export interface OutsideEffectDeps {
  store: Store;
  ownership: QueueOwnership;
  /** The queue runtime: whether it still runs, and its outbox run for a queue. */
  runtime: { readonly alive: boolean; runOutbox(queueId: string): void };
  now: number;
}

/**
 * Puts the effect in the queue's outbox at `slot` and has the outbox run, unless the slot is busy. Any process may put
 * it, as any may commit an input: the queue's driver runs its outbox at once, another process tells the driver
 * (`ownership.changed`), as it does for the effects of the inputs it commits.
 */
export function putOutsideEffect(
  deps: OutsideEffectDeps,
  queueId: string,
  slot: string,
  effect: OutsideEffect,
): PutOutcome {
  const { store, ownership } = deps;
  if (!deps.runtime.alive) return 'stopped';
  const driving = ownership.owns(queueId);
  const put = () =>
    store.write((tx): PutOutcome => {
      if (tx.get('queues', [queueId]) === undefined) return 'stopped';
      if (tx.get('outbox', [queueId, slot]) !== undefined) return 'busy';
      tx.put('outbox', [queueId, slot], { effect, attempts: 0, decidedAt: deps.now });
      return 'put';
    });
  const outcome = driving ? ownership.asOwner(queueId, put) : put();
  if (outcome === 'put') {
    if (driving) deps.runtime.runOutbox(queueId);
    else ownership.changed(queueId);
  }
  return outcome;
}
