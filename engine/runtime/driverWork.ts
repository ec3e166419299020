/**
 * What the driver of a queue does about commits it did not make itself (PostgreSQL, several processes), without
 * reading the queue again at each of them:
 *
 * - A commit another process made is heard (its notice: store/postgres/commitNotices.ts): the timers it put are armed
 *   with the due times the notice carries, and the outbox runs when it put an entry there. A notice that cannot say
 *   (a due time missing, or `all`: too many changes to list) has the queue's timers read. Notices heard in one turn of
 *   the event loop are handled together, once per queue. A timer a notice removed stays armed: when it fires it finds
 *   itself gone and does nothing (queueRuntime.ts: fire), and a notice heard late never cancels what a later commit set.
 * - Every lease round asks for each held queue to be refreshed, which bounds the delay when a notice is lost. A queue
 *   is read again (its timers armed, its outbox run) only when it may need it: this process skipped work for it (it
 *   did not count as its driver for a moment, a refresh failed: `owe`), or the database holds a version of it that
 *   this process neither made nor heard of (one query for every queue of the round: postgresStore.ts `unheard`). A
 *   store without versions (one process) has every queue read, as before.
 */
import type { Store } from '../store/store.js';
import type { TimerChange } from '../transaction/queueTx.js';
import { firingOrder } from './restoreReads.js';
import type { HeardChanges } from './workingSet.js';

export interface DriverWorkDeps {
  store: Store;
  /** Whether the runtime still runs and drives the queue. */
  drives(queueId: string): boolean;
  arm(queueId: string, timer: TimerChange): void;
  /** Runs the queue's outbox. */
  kick(queueId: string): void;
  onError(message: string, error: unknown): void;
}

/** What the notices heard in one turn asked of a queue. */
interface Noticed {
  /** Timers put, with their due times. */
  timers: Map<string, number>;
  /** Timers changed whose due times the notice did not say: read them. */
  read: boolean;
  outbox: boolean;
}

export class DriverWork {
  private readonly noticed = new Map<string, Noticed>();
  /** Queues a lease round asked to refresh. */
  private readonly checks = new Set<string>();
  /** Queues whose work this process may have skipped: read again whole at their next refresh. */
  private readonly owed = new Set<string>();
  private scheduled = false;

  constructor(private readonly deps: DriverWorkDeps) {}

  /** Another process committed to the queue. */
  heard(queueId: string, changes: HeardChanges): void {
    // Not driven here (or not now: this process did not count as the driver for a moment): owed if it is later.
    if (!this.deps.drives(queueId)) return this.owe(queueId);
    let noticed = this.noticed.get(queueId);
    if (noticed === undefined) this.noticed.set(queueId, (noticed = { timers: new Map(), read: false, outbox: false }));
    if (changes === 'all') {
      noticed.read = true;
      noticed.outbox = true;
    } else {
      const due = new Map(changes.timers ?? []);
      for (const [coll, name] of changes.puts) {
        if (coll === 'outbox') noticed.outbox = true;
        if (coll !== 'timers') continue;
        const dueAt = due.get(String(name));
        if (dueAt === undefined) noticed.read = true;
        else noticed.timers.set(String(name), dueAt);
      }
    }
    this.schedule();
  }

  /**
   * A lease round (or an older process's notice) asks to refresh the queue. Right after a notice heard in the same
   * turn (engine/cluster/leases.ts asks for it then) there is nothing more to do: the notice's work is scheduled.
   */
  refresh(queueId: string): void {
    if (!this.deps.drives(queueId) || this.noticed.has(queueId)) return;
    this.checks.add(queueId);
    this.schedule();
  }

  /** Work for the queue was skipped (this process did not count as its driver then): its next refresh reads it. */
  owe(queueId: string): void {
    this.owed.add(queueId);
  }

  /** These queues were restored (read whole): nothing is owed for them. */
  restored(only: (queueId: string) => boolean): void {
    for (const queueId of this.owed) if (only(queueId)) this.owed.delete(queueId);
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.flush();
    });
  }

  private flush(): void {
    const { deps } = this;
    const drives = (queueId: string): boolean => {
      if (deps.drives(queueId)) return true;
      this.owe(queueId);
      return false;
    };
    const noticed = [...this.noticed].filter(([queueId]) => drives(queueId));
    const checks = [...this.checks].filter(drives);
    this.noticed.clear();
    this.checks.clear();
    const whole = new Set<string>();
    const owed = checks.filter((queueId) => this.owed.delete(queueId));
    for (const queueId of owed) whole.add(queueId);
    try {
      const rest = checks.filter((queueId) => !whole.has(queueId));
      for (const queueId of deps.store.unheard?.(rest) ?? rest) whole.add(queueId);
    } catch (error) {
      for (const queueId of checks) whole.add(queueId);
      deps.onError('checking the versions of the queues driven here failed; reading them', error);
    }
    for (const [queueId, { timers }] of noticed)
      for (const [name, dueAt] of [...timers].sort(([a, x], [b, y]) =>
        firingOrder({ name: a, dueAt: x }, { name: b, dueAt: y }),
      ))
        deps.arm(queueId, { name, dueAt });
    const reads = [...whole, ...noticed.filter(([, { read }]) => read).map(([queueId]) => queueId)];
    if (reads.length > 0) {
      try {
        const timers = deps.store.read((tx) =>
          reads.map((queueId) => ({
            queueId,
            timers: [...tx.scan('timers', { prefix: [queueId] })].map(({ key, value }) => ({
              name: String(key[1]),
              dueAt: value,
            })),
          })),
        );
        for (const { queueId, timers: armed } of timers)
          for (const timer of armed.sort(firingOrder)) deps.arm(queueId, timer);
      } catch (error) {
        for (const queueId of reads) this.owed.add(queueId);
        deps.onError('reading the timers of queues driven here failed; read again at the next round', error);
      }
    }
    for (const queueId of new Set([...whole, ...noticed.filter(([, { outbox }]) => outbox).map(([q]) => q)]))
      deps.kick(queueId);
  }
}
