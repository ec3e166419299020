/**
 * Group commit: transactions commit without a sync of their own, and one sync, run off the event loop, makes every
 * transaction committed before it started durable at once. A caller that must not go on before its transaction is on
 * disk (an answer to a request, an effect at the edge) awaits `durable()`, which resolves once a sync that began after
 * the last commit so far has finished. While one sync runs, the commits that arrive meanwhile wait for the next, so
 * under load each sync covers many transactions and the loop never blocks on the disk.
 *
 * A sync that fails rejects the callers waiting on it (their answer is an error: nothing they were told is durable);
 * the transactions stay committed and the next sync, taken when asked for again, covers them.
 */
export class GroupCommit {
  /** Transactions committed, and how many of them the last finished sync covered. */
  private committed = 0;
  private synced = 0;
  private running = false;
  private scheduled = false;
  private waiters: { upTo: number; resolve: () => void; reject: (error: unknown) => void }[] = [];
  /** Syncs finished (the metric and the tests count them). */
  syncs = 0;

  /** `sync`: makes every transaction committed before it is called durable (LMDB: mdb_env_sync on a pool thread). */
  constructor(private readonly sync: () => Promise<void>) {}

  /** A transaction committed: a sync is scheduled, so that it becomes durable even when nobody waits for it. */
  committedOne(): void {
    this.committed += 1;
    this.schedule();
  }

  /** Transactions committed and not yet known to be durable. */
  get pending(): number {
    return this.committed - this.synced;
  }

  /** Resolves once every transaction committed before this call is durable. */
  durable(): Promise<void> {
    if (this.synced >= this.committed) return Promise.resolve();
    const upTo = this.committed;
    return new Promise<void>((resolve, reject) => {
      this.waiters.push({ upTo, resolve, reject });
      this.schedule();
    });
  }

  /**
   * The next sync starts after the callbacks of this turn of the loop (the requests read together commit together),
   * unless one is running: then right after it.
   */
  private schedule(): void {
    if (this.running || this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      void this.run();
    });
  }

  private async run(): Promise<void> {
    if (this.running || this.synced >= this.committed) return;
    this.running = true;
    const upTo = this.committed;
    let failed = false;
    try {
      await this.sync();
      this.syncs += 1;
      this.synced = upTo;
      this.settle(upTo, (waiter) => waiter.resolve());
    } catch (error) {
      failed = true;
      this.settle(upTo, (waiter) => waiter.reject(error));
    } finally {
      this.running = false;
      // After a failure only a caller asking again (or a new commit) tries again: a disk that keeps failing is not
      // synced in a loop.
      if (!failed && this.synced < this.committed) this.schedule();
      else if (failed && this.waiters.length > 0) this.schedule();
    }
  }

  private settle(upTo: number, fn: (waiter: GroupCommit['waiters'][number]) => void): void {
    const done = this.waiters.filter((waiter) => waiter.upTo <= upTo);
    this.waiters = this.waiters.filter((waiter) => waiter.upTo > upTo);
    for (const waiter of done) fn(waiter);
  }
}
