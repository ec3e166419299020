/**
 * The retention sweep: every `sweepSeconds`, deletes what is older than the settings keep (settings.ts), queue by
 * queue in engine transactions (queues.ts) and the flaky-test results with plain writes (results.ts), in batches of
 * at most `batch` records, yielding between batches. LMDB reuses the pages freed (the file stops growing once the
 * sweep keeps up). One sweep runs at a time; `stop` waits for the one running to end.
 */
import type { Engine } from '../engine.js';
import type { Clock } from '../runtime/clock.js';
import type { Store } from '../store/store.js';
import { pruneQueue, type PruneCounts } from './queues.js';
import { pruneResults, type ResultCounts } from './results.js';
import { pruneWebhookMessages } from '../notifications/retention.js';
import { cutoff, DEFAULT_RETENTION, type RetentionSettings } from './settings.js';

export interface SweepReport {
  at: string;
  queues: PruneCounts;
  results: ResultCounts;
  /** Outgoing webhook messages delivered or given up before the deliveries' cutoff, deleted. */
  webhookMessages: number;
}

export interface SweepOptions {
  engine: Engine;
  store: Store;
  clock: Clock;
  settings?: Partial<RetentionSettings>;
  onError?: (error: unknown) => void;
  onSwept?: (report: SweepReport) => void;
}

const iso = (time: number | undefined) => (time === undefined ? undefined : new Date(time).toISOString());

export class RetentionSweep {
  readonly settings: RetentionSettings;
  private running: Promise<SweepReport> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(private readonly options: SweepOptions) {
    this.settings = { ...DEFAULT_RETENTION, ...options.settings };
  }

  /** One sweep now (or the one already running). */
  sweep(): Promise<SweepReport> {
    this.running ??= this.run().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  /** Sweeps every `sweepSeconds` on the wall clock, the first time soon after the start. */
  start(): void {
    if (this.settings.sweepSeconds <= 0 || this.stopped) return;
    const every = this.settings.sweepSeconds * 1000;
    const next = (delay: number) => {
      this.timer = setTimeout(() => {
        this.sweep()
          .then((report) => this.options.onSwept?.(report))
          .catch((error: unknown) => this.options.onError?.(error))
          .finally(() => {
            if (!this.stopped) next(every);
          });
      }, delay);
      this.timer.unref();
    };
    next(Math.min(every, 60_000));
  }

  /** No more sweeps; resolves when the one running (if any) has ended. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running?.catch(() => undefined);
  }

  private async run(): Promise<SweepReport> {
    const { engine, store, clock } = this.options;
    const { prsDays, eventsDays, testResultsDays, deliveriesDays, batch } = this.settings;
    const now = clock.now();
    const cutoffs = {
      ...(prsDays > 0 ? { prs: iso(cutoff(now, prsDays)) } : {}),
      ...(eventsDays > 0 ? { events: iso(cutoff(now, eventsDays)) } : {}),
    };
    const queues: PruneCounts = { prs: 0, runs: 0, events: 0, transactions: 0 };
    const ids = store.read((tx) => [...tx.scan('queues')].map(({ value }) => value.id));
    for (const id of ids) {
      if (this.stopped) break;
      const counts = await pruneQueue(engine, store, id, cutoffs, batch, () => !this.stopped);
      queues.prs += counts.prs;
      queues.runs += counts.runs;
      queues.events += counts.events;
      queues.transactions += counts.transactions;
    }
    const results = this.stopped
      ? { uploads: 0, failures: 0, commits: 0, shas: 0, deliveries: 0 }
      : await pruneResults(
          store,
          cutoff(now, testResultsDays),
          cutoff(now, deliveriesDays),
          batch,
          () => !this.stopped,
        );
    const webhookMessages =
      this.stopped || deliveriesDays <= 0
        ? 0
        : await pruneWebhookMessages(store, now - deliveriesDays * 86_400_000, batch, () => !this.stopped);
    return { at: new Date(now).toISOString(), queues, results, webhookMessages };
  }
}
