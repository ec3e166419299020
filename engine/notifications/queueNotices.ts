/**
 * The webhook events of one queue transaction, noted as its machines move (QueueTx.enterPr, sendPr, sendQueue) and
 * written at commit as one `notify` effect in the queue's outbox, in the order they happened — only when the
 * organization has an endpoint (a read of `webhookOrgs`, which takes no lock). Each event's id is the queue's, the
 * transaction's event-log sequence number and its place in it: the same event always has the same id.
 */
import type { PullRequestState, QueueState } from '../../machines/vocabulary.js';
import type { PullRequestRecord } from '../model/pullRequests.js';
import type { QueueRecord } from '../model/queues.js';
import type { ReadTx } from '../store/store.js';
import { prEventType, type NotifyEffect, type WebhookEvent } from './events.js';
import { hasEndpoints } from './messages.js';

type Notice =
  | { kind: 'pr'; type: WebhookEvent['type']; pr: PullRequestRecord; previousState: PullRequestState | null }
  | { kind: 'queue'; state: QueueState; previousState: QueueState };

export class QueueNotices {
  private readonly notices: Notice[] = [];

  /** The PR entered the queue (`previousState` null) or moved from `previousState` to its record's state. */
  prMoved(pr: PullRequestRecord, previousState: PullRequestState | null): void {
    const type = previousState === null ? 'pull_request.submitted' : prEventType(pr.state);
    // A copy: the record changes further in the transaction, the event tells it as it was then.
    if (type !== undefined) this.notices.push({ kind: 'pr', type, pr: { ...pr }, previousState });
  }

  queueMoved(previousState: QueueState, state: QueueState): void {
    if (state !== previousState) this.notices.push({ kind: 'queue', state, previousState });
  }

  /** The effect to write at commit, if anything was noted and the organization has endpoints. */
  effect(tx: ReadTx, queue: QueueRecord, eventSeq: number, at: string): NotifyEffect | undefined {
    if (this.notices.length === 0 || !hasEndpoints(tx, queue.org)) return undefined;
    const ref = { repo: queue.repo, targetBranch: queue.branch };
    const events = this.notices.map((notice, index): WebhookEvent => {
      const id = `${queue.id}/${eventSeq}/${index}`;
      if (notice.kind === 'queue')
        return {
          id,
          type: 'queue.state_changed',
          timestamp: at,
          data: { queue: ref, state: notice.state, previousState: notice.previousState },
        };
      const { pr } = notice;
      return {
        id,
        type: notice.type,
        timestamp: at,
        data: {
          queue: ref,
          pr: {
            number: pr.number,
            title: pr.title,
            author: pr.author,
            sha: pr.sha,
            state: pr.state,
            previousState: notice.previousState,
            reason: pr.reason,
            testRunId: pr.runId,
          },
        },
      };
    });
    return { kind: 'notify', org: queue.org, events };
  }
}
