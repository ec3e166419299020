/**
 * Takes the samples that calibrate the merge estimate's P90 (estimate/calibrationRecord.ts) outside the queue's
 * transactions: a forecast of the whole line-up costs 17–73 ms (median, up to 244 ms, docs/estimate-calibration.md),
 * too much to hold a queue transaction, the store's write lane and the event loop at every submit.
 *
 * A commit after which a PR of the line-up lacks a sample for its stage (ready, or at the head) marks its queue due
 * (QueueTx.estimatesDue). The sampler then takes ONE forecast of the line-up, in a read, and writes in one write of its
 * own a sample for every PR still lacking one, with the moment it was taken as its `t` (the score stays valid: it
 * measures from when the estimate was given). At most once per queue per SAMPLE_INTERVAL_MS of the queue's clock, and
 * only in the process that drives the queue. It runs as a timer of the engine's scheduler, so a simulation on the
 * virtual clock takes the same samples at the same moments every time. A sample lost with the process is harmless:
 * the next due mark takes it.
 */
import { forecastQueue, lackingSamples, writeSamples } from '../estimate/index.js';
import type { Store } from '../store/store.js';
import { guarded } from './guarded.js';
import type { QueueOwnership } from './ownership.js';
import type { Scheduler } from './scheduler.js';

/**
 * The least time between two forecasts of one queue's samples: 30 s of the queue's clock. One forecast per 30 s
 * costs a queue at most 0.25 % of a core at the forecast's median (73 ms on the bench's deepest line-ups) and 0.8 % at
 * its worst (244 ms); a sample is then at most 30 s late, against waits of hours at readiness and CI runs of minutes
 * at the head (a PR that leaves the head sooner keeps only its readiness sample).
 */
export const SAMPLE_INTERVAL_MS = 30_000;

export interface EstimateSamplerDeps {
  store: Store;
  scheduler: Scheduler;
  ownership: QueueOwnership;
  onError: (message: string, error: unknown) => void;
}

export class EstimateSampler {
  /** When each queue's last forecast was taken (the queue's clock). */
  private readonly lastAt = new Map<string, number>();
  /** Queues with a forecast scheduled. */
  private readonly pending = new Set<string>();

  /** `deps` is read when first needed (the runtime makes its sampler before it has its own deps). */
  constructor(private readonly depsOf: () => EstimateSamplerDeps) {}

  private get deps(): EstimateSamplerDeps {
    return this.depsOf();
  }

  /** A commit left a PR of the queue without its sample: one forecast is taken now, or once the interval has passed. */
  due(queueId: string): void {
    if (this.pending.has(queueId) || !this.deps.ownership.owns(queueId)) return;
    this.pending.add(queueId);
    const now = this.deps.scheduler.now();
    const last = this.lastAt.get(queueId);
    const at = last === undefined ? now : Math.max(now, last + SAMPLE_INTERVAL_MS);
    this.deps.scheduler.schedule(`${queueId}:estimateSamples`, at, () => this.take(queueId));
  }

  private take(queueId: string): void {
    this.pending.delete(queueId);
    if (!this.deps.ownership.owns(queueId)) return;
    const now = this.deps.scheduler.now();
    this.lastAt.set(queueId, now);
    guarded(this.deps, `estimate samples of ${queueId}`, () => {
      if (this.sample(queueId, now) === 'gone') this.lastAt.delete(queueId);
    });
  }

  /**
   * One forecast of the line-up in a read, then the samples it gives in a write of their own. The records are read
   * from the store, not the queue's working set: once per interval, and the sampler stays apart from the transactions.
   */
  private sample(queueId: string, now: number): 'gone' | number {
    const taken = this.deps.store.read((tx) => {
      const queue = tx.get('queues', [queueId]);
      if (queue === undefined) return 'gone';
      const prOf = (number: number) => tx.get('pullRequests', [queueId, number]);
      const lacking = lackingSamples(tx, queue, prOf);
      if (lacking.length === 0) return undefined;
      const enqueued = queue.runtime.lineup.flatMap((number) => prOf(number) ?? []);
      const runOf = (runId: string) => tx.get('testRuns', [queueId, runId]);
      return { lacking, estimates: forecastQueue(tx, queue, enqueued, runOf, now) };
    });
    if (taken === 'gone') return 'gone';
    if (taken === undefined || taken.estimates.size === 0) return 0;
    return this.deps.ownership.asOwner(queueId, () =>
      this.deps.store.write((tx) => writeSamples(tx, queueId, taken.lacking, taken.estimates, now)),
    );
  }
}
