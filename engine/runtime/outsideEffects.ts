/**
 * Effects decided outside a queue's transactions, from what the queue's state is at some moment rather than from one
 * input: the GitHub check runs, written at most once per throttle period (engine/providers/github/checkRuns.ts). Each
 * goes in the queue's outbox like the effects its transactions decide, so none is lost to a crash and the outbox
 * retries it with its kind's policy; it is done by the queue's driver only.
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

export type PutOutcome = 'put' | 'busy' | 'notDriven';

export interface OutsideEffectDeps {
  store: Store;
  ownership: QueueOwnership;
  /** The queue runtime: whether it still runs, and its outbox run for a queue (with the queue's timers armed again). */
  runtime: { readonly alive: boolean; refresh(queueId: string): void };
  now: number;
}

/** Puts the effect in the queue's outbox at `slot` and runs the outbox, unless the slot is busy or another process drives the queue. */
export function putOutsideEffect(deps: OutsideEffectDeps, queueId: string, slot: string, effect: OutsideEffect): PutOutcome {
  const { store, ownership } = deps;
  if (!deps.runtime.alive || !ownership.owns(queueId)) return 'notDriven';
  const outcome = ownership.asOwner(queueId, () =>
    store.write((tx): PutOutcome => {
      if (tx.get('queues', [queueId]) === undefined) return 'notDriven';
      if (tx.get('outbox', [queueId, slot]) !== undefined) return 'busy';
      tx.put('outbox', [queueId, slot], { effect, attempts: 0, decidedAt: deps.now });
      return 'put';
    }),
  );
  if (outcome === 'put') deps.runtime.refresh(queueId);
  return outcome;
}
