/**
 * The bisection machines of one queue transaction (machines/bisection.ts), driven by the moves of the PRs in a
 * bisection: a PR joining a group forms it, its run tests it, its pass rescues it, its failure fails it (alone, it is
 * the culprit; without a run, known to fail), a cancelled run sends it back to waiting, and a PR leaving its group
 * drops out of it. A bisection's machine is stored beside the PRs' (`actors`, [queue, 'bisection', id]) while it has
 * a group, and removed once it ended. Its progress is what the dashboard and the charts show; the decisions rest on
 * the PR machines and the queue's bisection memory (event-log digests leave it out: eventLogDigests.ts).
 */
import type { BisectionContext, BisectionEvent, PullRequestContext, PullRequestEvent } from '../../machines/index.js';
import { initial, fromStored, step, toStored, type Snapshot } from '../model/machineSnapshots.js';
import type { WriteTx } from '../store/store.js';

export class BisectionActors {
  /** Per bisection: its snapshot as this transaction left it (null: none, or it ended). */
  private readonly snapshots = new Map<string, Snapshot | null>();
  private readonly changed = new Set<string>();

  constructor(
    private readonly tx: WriteTx,
    private readonly queueId: string,
  ) {}

  /** The bisection's machine, if it runs. */
  snapshot(id: string): Snapshot | undefined {
    if (!this.snapshots.has(id)) {
      const stored = this.tx.get('actors', [this.queueId, 'bisection', id]);
      this.snapshots.set(id, stored === undefined ? null : fromStored('bisection', stored));
    }
    const snapshot = this.snapshots.get(id);
    return snapshot === null || snapshot === undefined || snapshot.status !== 'active' ? undefined : snapshot;
  }

  /** Sends the event to the bisection's machine (a new one when none runs), if it takes it now. */
  send(id: string, event: BisectionEvent): void {
    const snapshot = this.snapshot(id) ?? initial('bisection', { id });
    if (!snapshot.can(event)) return;
    this.snapshots.set(id, step('bisection', snapshot, event));
    this.changed.add(id);
  }

  /** What the PR `number`'s move (`event`, from context `before` to `after`) does to its bisection. */
  followPr(number: number, event: PullRequestEvent, before: PullRequestContext, after: PullRequestContext): void {
    const was = before.bisection;
    const is = after.bisection;
    // Into a group of a new split first: its old group is left after, so that the bisection does not end between.
    if (event.type === 'JOIN_GROUP')
      this.send(event.bisectionId, { type: 'SPLIT', group: event.group, prs: event.part });
    if (was !== undefined && (is === undefined || is.id !== was.id || is.group !== was.group))
      this.send(was.id, { type: 'LEFT', group: was.group, pr: number });
    if (is === undefined || event.type === 'JOIN_GROUP') return;
    const group = is.group;
    if (event.type === 'START_TEST') this.send(is.id, { type: 'GROUP_TESTING', group, pr: number, runId: event.runId });
    else if (event.type === 'PASS') this.send(is.id, { type: 'GROUP_RESCUED', group });
    else if (event.type === 'REQUEUE') this.send(is.id, { type: 'GROUP_UNTESTED', group });
    else if (event.type === 'FAIL' && event.runId === null)
      this.send(is.id, { type: 'KNOWN_TO_FAIL', group, pr: number });
    else if (event.type === 'FAIL') {
      const alone = (this.snapshot(is.id)?.context as BisectionContext | undefined)?.groups[group]?.prs.length === 1;
      this.send(is.id, alone ? { type: 'CULPRIT_FOUND', group, pr: number } : { type: 'GROUP_FAILED', group });
    }
  }

  /** Puts every machine this transaction moved; one that ended is removed. */
  write(): void {
    for (const id of this.changed) {
      const snapshot = this.snapshots.get(id);
      const key = [this.queueId, 'bisection', id];
      if (snapshot === null || snapshot === undefined || snapshot.status !== 'active') this.tx.remove('actors', key);
      else this.tx.put('actors', key, toStored('bisection', snapshot));
    }
  }
}
