/**
 * The queue page's "what if" comparisons (web/whatIfPanel.ts), run on demand: a person asks (a post from the panel),
 * the comparison waits its turn (one runs at a time, whatever the number of queues and people: each fits and
 * simulates for a while), runs through the runner the service was given (cli/whatIf.ts: `greenline sim --from-queue
 * --recommend` in a child process, so the service's own event loop never waits on it), and its result is kept for
 * the queue until asked again. Its end redraws the queue's open pages (`changed`). Nothing runs unless asked;
 * a stop of the service cancels what runs.
 */
import type { QueueKey } from '../engine/engine.js';
import type { QueueRecord } from '../engine/model/queues.js';
import type { WhatIfResult, WhatIfState } from '../web/whatIfPanel.js';

/** Fits the queue's workload and compares its settings with the recommender's pick; rejects with what went wrong. */
export type WhatIfRunner = (key: QueueKey, signal: AbortSignal) => Promise<WhatIfResult>;

export class WhatIfs {
  private readonly states = new Map<string, WhatIfState>();
  private readonly line: { queueId: string; key: QueueKey }[] = [];
  private running: AbortController | undefined;
  private closed = false;

  constructor(
    private readonly runner: WhatIfRunner,
    private readonly clock: () => number,
    /** Told when a queue's comparison moved on (started, ended), to redraw its pages. */
    private readonly changed: (queueId: string) => void,
  ) {}

  /** The queue's latest comparison, waiting, running or ended; undefined when none was asked for. */
  stateOf(queueId: string): WhatIfState | undefined {
    return this.states.get(queueId);
  }

  /** Asks for a comparison of the queue (nothing more when one waits or runs for it already). */
  ask(queue: QueueRecord): void {
    const state = this.states.get(queue.id);
    if (this.closed || state?.status === 'waiting' || state?.status === 'running') return;
    this.states.set(queue.id, { status: 'waiting', since: this.clock() });
    this.line.push({ queueId: queue.id, key: { org: queue.org, repo: queue.repo, branch: queue.branch } });
    this.next();
  }

  private next(): void {
    if (this.running !== undefined || this.closed) return;
    const job = this.line.shift();
    if (job === undefined) return;
    const controller = new AbortController();
    this.running = controller;
    this.states.set(job.queueId, { status: 'running', since: this.clock() });
    this.changed(job.queueId);
    this.runner(job.key, controller.signal)
      .then(
        (result) => this.states.set(job.queueId, { status: 'done', at: this.clock(), result }),
        (error: unknown) =>
          this.states.set(job.queueId, {
            status: 'failed',
            at: this.clock(),
            message: error instanceof Error ? error.message : String(error),
          }),
      )
      .finally(() => {
        this.running = undefined;
        if (this.closed) return;
        this.changed(job.queueId);
        this.next();
      });
  }

  /** The service stops: what runs is cancelled (its child process ended), what waits is dropped. */
  close(): void {
    this.closed = true;
    this.line.length = 0;
    this.running?.abort();
  }
}
