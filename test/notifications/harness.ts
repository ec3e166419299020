/** An engine with outgoing webhooks on a virtual clock, over a real LMDB or PostgreSQL store, and CI played by the test. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Engine, type QueueKey } from '../../engine/engine.js';
import type { QueuePatch } from '../../engine/model/queues.js';
import { VirtualScheduler } from '../../engine/runtime/scheduler.js';
import { openLmdbStore } from '../../engine/store/index.js';
import type { Store } from '../../engine/store/store.js';
import type { OpenedStore } from '../postgres/testStore.js';

export const KEY: QueueKey = {
  org: 'acme',
  repo: { host: 'github.com', owner: 'acme', name: 'widgets' },
  branch: 'main',
};

export { postgresStore, type OpenedStore } from '../postgres/testStore.js';

export function lmdbStore(): OpenedStore {
  const dir = mkdtempSync(join(tmpdir(), 'greenline-webhooks-'));
  const store = openLmdbStore({ dir });
  return {
    store,
    cleanup: async () => {
      await store.close().catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export class WebhookHarness {
  readonly scheduler = new VirtualScheduler(Date.now());
  readonly engine: Engine;
  readonly errors: string[] = [];

  constructor(
    readonly store: Store,
    pollMs?: number,
  ) {
    this.engine = new Engine(store, {
      scheduler: this.scheduler,
      webhooks: { allowPrivate: true, ...(pollMs === undefined ? {} : { pollMs }) },
      onError: (message) => void this.errors.push(message),
    });
    this.engine.start();
  }

  async create(patch: QueuePatch = {}): Promise<void> {
    this.engine.createQueue(KEY, { requiredStatuses: ['ci'], ...patch });
    await this.engine.settle();
  }

  async submit(number: number): Promise<void> {
    this.engine.submitPullRequest(KEY, number);
    await this.engine.settle();
  }

  /** Reports CI on the run testing `number`. */
  async report(number: number, state: 'success' | 'failure'): Promise<void> {
    const { pr } = this.engine.getSubmittedPullRequest(KEY, number);
    const run = this.engine.getTestRun(KEY, pr.runId ?? '').run;
    this.engine.setCommitStatus(KEY.org, { repo: KEY.repo, sha: run.testBranchSha, context: 'ci', state });
    await this.engine.settle();
  }

  pending(): number {
    return this.store.read((tx) => tx.count('webhookPending'));
  }

  /** Moves the virtual clock by `ms` in steps of `step`, letting every delivery due finish at each. */
  async advance(ms: number, step = 10_000): Promise<void> {
    const end = this.scheduler.now() + ms;
    while (this.scheduler.now() < end) {
      this.scheduler.advanceTo(Math.min(end, this.scheduler.now() + step));
      await this.engine.settle();
    }
  }

  /** Moves the clock from due time to due time until nothing is pending (at most `rounds` moves). */
  async deliverAll(rounds = 100): Promise<void> {
    for (let round = 0; round < rounds && this.pending() > 0; round++) {
      const next = this.scheduler.nextDueAt();
      if (next === undefined) break;
      this.scheduler.advanceTo(next);
      await this.engine.settle();
    }
  }

  async close(): Promise<void> {
    this.engine.stop();
    await this.engine.settle();
  }
}
