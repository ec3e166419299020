/**
 * Timers behind one interface: the wall clock in the server, a virtual clock in tests and the simulator. A timer
 * has a key; scheduling a key again replaces it. The engine keeps its deadlines in the store and re-arms them here
 * on start, so a timer lost with the process is never lost from the queue.
 */
import type { Clock } from './clock.js';

export interface Scheduler extends Clock {
  /** Calls `fire` once the clock reaches `dueAt` (at once, asynchronously, when it already has). */
  schedule(key: string, dueAt: number, fire: () => void): void;
  cancel(key: string): void;
  /** Cancels every timer; nothing scheduled fires afterwards. */
  clear(): void;
}

interface VirtualTimer {
  key: string;
  dueAt: number;
  fire: () => void;
}

const KEYS = new Intl.Collator('en', { numeric: true });

/**
 * The order timers due at once fire in: by due time, then by key (numbers in it by value: `run:tr_…_9` before
 * `run:tr_…_10`), not by when they were scheduled. A restart re-schedules every timer of the store and every CI run
 * in progress in another order than they were first made, so an order that depended on it made a run with a restart
 * differ from the same run without one (a batch timer and a run's deadline due at the same minute fired the other
 * way round: test/engine/engine.properties).
 */
export function timerOrder(a: { key: string; dueAt: number }, b: { key: string; dueAt: number }): number {
  return a.dueAt - b.dueAt || KEYS.compare(a.key, b.key);
}

/**
 * A clock that moves only when told to. `advanceTo` fires due timers in `timerOrder` and sets the
 * clock to each timer's due time as it fires, so a run is deterministic. Timers a firing timer schedules at or
 * before the target fire in the same call.
 */
export class VirtualScheduler implements Scheduler {
  private time: number;
  private readonly timers = new Map<string, VirtualTimer>();

  constructor(start = Date.parse('2026-01-01T00:00:00.000Z')) {
    this.time = start;
  }

  now(): number {
    return this.time;
  }

  schedule(key: string, dueAt: number, fire: () => void): void {
    this.timers.set(key, { key, dueAt, fire });
  }

  cancel(key: string): void {
    this.timers.delete(key);
  }

  clear(): void {
    this.timers.clear();
  }

  /** The earliest due time, if any timer is set. */
  nextDueAt(): number | undefined {
    return this.earliest()?.dueAt;
  }

  /** Fires every timer due at or before `time`, in order, then leaves the clock at `time`. */
  advanceTo(time: number): void {
    for (let timer = this.earliest(); timer !== undefined && timer.dueAt <= time; timer = this.earliest()) {
      this.timers.delete(timer.key);
      this.time = Math.max(this.time, timer.dueAt);
      timer.fire();
    }
    this.time = Math.max(this.time, time);
  }

  advanceBy(ms: number): void {
    this.advanceTo(this.time + ms);
  }

  private earliest(): VirtualTimer | undefined {
    let best: VirtualTimer | undefined;
    for (const timer of this.timers.values()) {
      if (best === undefined || timerOrder(timer, best) < 0) best = timer;
    }
    return best;
  }
}

/** setTimeout's longest delay; later timers wake early and re-arm. */
const MAX_DELAY_MS = 2_147_483_647;

export class WallScheduler implements Scheduler {
  private readonly timers = new Map<string, NodeJS.Timeout>();

  now(): number {
    return Date.now();
  }

  schedule(key: string, dueAt: number, fire: () => void): void {
    this.cancel(key);
    const delay = Math.max(0, dueAt - Date.now());
    const handle = setTimeout(
      () => {
        this.timers.delete(key);
        if (Date.now() < dueAt) this.schedule(key, dueAt, fire);
        else fire();
      },
      Math.min(delay, MAX_DELAY_MS),
    );
    handle.unref();
    this.timers.set(key, handle);
  }

  cancel(key: string): void {
    const handle = this.timers.get(key);
    if (handle !== undefined) clearTimeout(handle);
    this.timers.delete(key);
  }

  clear(): void {
    for (const handle of this.timers.values()) clearTimeout(handle);
    this.timers.clear();
  }
}

/**
 * A clock a replay sets to each logged event's time. It arms nothing: every timer that fired is in the log (event-log
 * replay, and the simulator's fit of a queue's history).
 */
export class ReplayClock implements Scheduler {
  constructor(private time: number) {}

  set(time: number): void {
    this.time = time;
  }

  now(): number {
    return this.time;
  }

  schedule(): void {}

  cancel(): void {}

  clear(): void {}
}
