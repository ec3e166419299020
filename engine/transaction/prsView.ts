/**
 * The pull requests of one queue transaction, as it reads them: their records and machines (owned through txActors.ts
 * once changed), the impacted targets of their head SHAs, and the planner's views of them kept in the working set.
 * A field of QueueTx (queueTx.ts), which alone moves a PR's machine (`sendPr`); `mark` owns a record to change it.
 */
import type { PullRequestContext, PullRequestMerge } from '../../machines/index.js';
import type { PullRequestEvent } from '../../machines/index.js';
import type { PullRequestState } from '../../machines/vocabulary.js';
import { getTargets, type ImpactedTargetsRecord } from '../model/impactedTargets.js';
import type { PullRequestRecord } from '../model/pullRequests.js';
import type { QueueRecord } from '../model/queues.js';
import type { PlanPullRequest } from '../planner/planner.js';
import type { WriteTx } from '../store/store.js';
import type { Actor, CachedTargets, QueueCache } from './queueCache.js';
import type { TxActors } from './txActors.js';

export class PrsView {
  /** The impacted targets this transaction read (or forgot: undefined) per PR, kept in the working set after. */
  readonly targets = new Map<number, CachedTargets | undefined>();

  constructor(
    private readonly tx: WriteTx,
    private readonly queue: QueueRecord,
    private readonly actors: TxActors,
    /** The queue's working set, when it is the state of the queue this transaction starts from. */
    private readonly cache: QueueCache | undefined,
  ) {}

  /** The impacted targets uploaded for the PR's current head SHA (read once, then kept in the working set). */
  targetsOf(number: number): ImpactedTargetsRecord | undefined {
    const sha = this.get(number)?.sha ?? '';
    const owned = this.targets.get(number);
    const known = this.targets.has(number)
      ? owned?.sha === sha
        ? owned
        : undefined
      : this.cache?.targetsAt(number, sha);
    if (known !== undefined) return known.record;
    const record = getTargets(this.tx, this.queue.id, number, sha);
    this.targets.set(number, { sha, record });
    return record;
  }

  /** Forgets what targetsOf read for the PR (its targets were just uploaded). */
  forgetTargets(number: number): void {
    this.targets.set(number, undefined);
  }

  get(number: number): PullRequestRecord | undefined {
    return this.actors.pr(number)?.record;
  }

  /**
   * The PR if it is enqueued (in the line-up or waiting), without reading the store: the working set holds every
   * enqueued PR, so a PR it does not hold has left the queue.
   */
  enqueued(number: number): PullRequestRecord | undefined {
    return this.actors.enqueuedPr(number)?.record;
  }

  state(number: number): PullRequestState | undefined {
    return this.actors.pr(number)?.record.state;
  }

  require(number: number): PullRequestRecord {
    const record = this.get(number);
    if (record === undefined) throw new Error(`PR ${number} of queue ${this.queue.id} has no record`);
    return record;
  }

  /** Whether the PR's machine takes `event` now, its guards asked (false once it left the queue). */
  can(number: number, event: PullRequestEvent): boolean {
    const snapshot = this.actors.pr(number)?.snapshot;
    return snapshot !== undefined && snapshot.status === 'active' && snapshot.can(event);
  }

  /** The merge under way (or, once merged, done) for the PR, as its machine holds it. */
  merge(number: number): PullRequestMerge | undefined {
    return (this.actors.pr(number)?.snapshot.context as PullRequestContext | undefined)?.merge;
  }

  /** The PR's machine and record, as this transaction reads them (its own once changed, else the working set's). */
  actor(number: number): Actor<PullRequestRecord> {
    const actor = this.actors.pr(number);
    if (actor === undefined) throw new Error(`PR ${number} of queue ${this.queue.id} has no record`);
    return actor;
  }

  /** The PR's record, owned by this transaction (copied from the working set the first time) and to be written. */
  mark(number: number): PullRequestRecord {
    const actor = this.actors.ownPr(number);
    if (actor === undefined) throw new Error(`PR ${number} of queue ${this.queue.id} has no record`);
    this.actors.changedPr(number);
    return actor.record;
  }

  /**
   * The planner's view of the PR that the working set kept, when it still holds: this transaction has neither changed
   * the PR nor read its targets, and the record is the one the view was made of. Else reconcile.ts makes the view.
   */
  keptPlanView(number: number): PlanPullRequest | undefined {
    const actor = this.keepable(number);
    const kept = actor === undefined ? undefined : this.cache?.planViews.get(number);
    const parallel = this.queue.settings.mode === 'parallel';
    return kept !== undefined && kept.record === actor?.record && kept.parallel === parallel ? kept.view : undefined;
  }

  /**
   * Keeps a view made of the PR's `actor` in the working set for the transactions after this one, if it may: made of
   * the set's own actor, and reading its targets did not read the store (then it is made again next time).
   */
  keepPlanView(number: number, actor: Actor<PullRequestRecord>, view: PlanPullRequest): void {
    if (actor !== this.keepable(number)) return;
    this.cache?.planViews.set(number, {
      record: actor.record,
      parallel: this.queue.settings.mode === 'parallel',
      view,
    });
  }

  /** The working set's actor of a PR this transaction has neither changed nor read targets for. */
  private keepable(number: number): Actor<PullRequestRecord> | undefined {
    if (this.cache === undefined || this.actors.prs.has(number) || this.targets.has(number)) return undefined;
    return this.cache.prs.get(number);
  }
}
