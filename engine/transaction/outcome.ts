/**
 * What one queue transaction decided besides its machines' moves: the effects for the outbox, the timer changes for
 * the scheduler, the PRs' timeline lines and the webhook notices (notifications/queueNotices.ts). A field of QueueTx
 * (queueTx.ts); the transaction's writes (writes.ts) land here, and its commit puts the effects in the outbox.
 */
import type { Effect } from '../model/effects.js';
import type { TimelineEntry } from '../model/pullRequests.js';
import type { QueueRecord } from '../model/queues.js';
import { timelineLine, type TimelineText } from '../model/texts.js';
import { QueueNotices } from '../notifications/queueNotices.js';
import type { WriteTx } from '../store/store.js';
import type { PrsView } from './prsView.js';

/** Timer changes to apply to the scheduler after commit. */
export interface TimerChange {
  name: string;
  dueAt: number | null;
}

export class Outcome {
  readonly effects: Effect[] = [];
  readonly timerChanges: TimerChange[] = [];
  /** Webhook events of this transaction, written at commit as one `notify` effect. */
  readonly notices = new QueueNotices();

  constructor(
    private readonly tx: WriteTx,
    private readonly queue: QueueRecord,
    private readonly isoNow: string,
    private readonly prs: PrsView,
  ) {}

  effect(effect: Effect): void {
    this.effects.push(effect);
  }

  /** A line of the PR's timeline: its text is one of model/texts.ts. */
  timeline(number: number, text: TimelineText, extra: { runId?: string; sha?: string } = {}): void {
    const pr = this.prs.require(number);
    const entry: TimelineEntry = { at: this.isoNow, entryId: pr.id, ...timelineLine(text), ...extra };
    this.tx.put('timeline', [this.queue.id, number, this.queue.runtime.counters.timeline++], entry);
  }

  setTimer(name: string, dueAt: number): void {
    this.tx.put('timers', [this.queue.id, name], dueAt);
    this.timerChanges.push({ name, dueAt });
  }

  clearTimer(name: string): void {
    if (this.tx.remove('timers', [this.queue.id, name])) this.timerChanges.push({ name, dueAt: null });
  }
}
