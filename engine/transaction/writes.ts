/**
 * What a move returns for the transaction to write (QueueTx.write, queueTx.ts, applies them in order): events to
 * other actors (a PR's machine, a run's), effects for the outbox, timeline lines, timer changes. An event's own moves
 * (prMoves.ts) return writes in turn; they are written before the writes that followed the event, so the order is the
 * one a call of each in place would give, without a move ever calling back into the transaction.
 *
 * A move reads what it needs through `MoveScope` (the views of PRs and runs, the queue and its runtime): it cannot
 * send an event or write an effect itself. What it changes in place is its own PR's record (`prs.mark`) and the
 * queue's line-up and bookkeeping (`runtime`, then `touchQueue`), which the commit writes.
 */
import type { PullRequestEvent, TestRunEvent } from '../../machines/index.js';
import type { Effect } from '../model/effects.js';
import type { TimelineText } from '../model/texts.js';
import type { QueueTx } from './queueTx.js';

export type Write =
  /** An event to the PR's machine: its record shows the new snapshot, and the moves its transition named follow. */
  | { to: 'pr'; number: number; event: PullRequestEvent }
  /** An event to the run's machine; if it ends the run with it, the run's bookkeeping follows (runMoves.ts runEnded). */
  | { to: 'run'; runId: string; event: TestRunEvent }
  /** A cancel decided when it is written: CANCEL if the PR's machine takes it then, else back to testing (cancelPr). */
  | { to: 'cancelPr'; number: number; reason: string }
  | { to: 'effect'; effect: Effect }
  | { to: 'timeline'; number: number; text: TimelineText; extra?: { runId?: string; sha?: string } }
  /** A timer set (`dueAt`), or cleared (null). */
  | { to: 'timer'; name: string; dueAt: number | null };

/** Nothing to write. */
export const NONE: readonly Write[] = Object.freeze([]);

/** What a move reads and changes in place: no event, no effect (those it returns). */
export type MoveScope = Pick<
  QueueTx,
  'tx' | 'queue' | 'runtime' | 'now' | 'isoNow' | 'prs' | 'runs' | 'predictor' | 'touchQueue'
>;
