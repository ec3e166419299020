/**
 * One effect of the outbox done at the edge: the git host or the CI is called, and what it answers comes back as the
 * queue's next input, committed with the removal of the outbox entry (`dispatch` with its key). An effect without a
 * result is removed once done (`done`).
 */
import type { Effect } from '../model/effects.js';
import type { QueueInput } from '../model/events.js';
import type { CI, CiRun, GitHost } from '../providers/types.js';
import type { Key } from '../store/store.js';
import type { NotifyEffect } from '../notifications/events.js';

export interface EffectEdge {
  gitHost: GitHost;
  ci: CI;
  /**
   * Commits an input for the queue, removing the outbox entry `key` in the same transaction; a promise when it runs in
   * the store's batch (then awaited: the outbox reads its next entry only once this one's removal is committed).
   */
  dispatch: (queueId: string, input: QueueInput, key: Key) => void | Promise<void>;
  /** Removes the outbox entry `key` (as the queue's driver); a promise when in the store's batch, as `dispatch`. */
  done: (queueId: string, key: Key) => void | Promise<void>;
  startCi: (run: CiRun) => void;
  /** Outgoing webhooks: writes the effect's messages in the write that removes the outbox entry `key`. */
  notify: (queueId: string, key: Key, effect: NotifyEffect) => void;
}

export async function performEffect(edge: EffectEdge, queueId: string, key: Key, effect: Effect): Promise<void> {
  const { gitHost, ci, dispatch } = edge;
  const done = () => edge.done(queueId, key);
  switch (effect.kind) {
    case 'fetchTargetHead': {
      const sha = await gitHost.targetHead(effect.repo, effect.branch);
      return dispatch(queueId, { type: 'targetHead', sha }, key);
    }
    case 'checkPullRequest': {
      const facts = (await gitHost.pullRequest(effect.repo, effect.number, effect.branch)) ?? null;
      return dispatch(queueId, { type: 'prChecked', number: effect.number, entryId: effect.entryId, facts }, key);
    }
    case 'buildTestBranch': {
      const result = await gitHost.buildTestBranch(effect.request);
      return dispatch(queueId, { type: 'branchBuilt', runId: effect.request.runId, result }, key);
    }
    case 'startCi':
      await done();
      return edge.startCi(effect.run);
    case 'endRun':
      ci.stop(effect.runId);
      await gitHost.deleteTestBranch(effect.repo, effect.branch);
      return done();
    case 'merge': {
      const result = await gitHost.merge(effect.request);
      return dispatch(queueId, { type: 'merged', number: effect.number, entryId: effect.entryId, result }, key);
    }
    case 'comment': {
      const note = await gitHost.comment(effect.repo, effect.number, effect.body);
      if (note === undefined) return done();
      return dispatch(queueId, { type: 'prNoted', number: effect.number, kind: 'comment', message: note.message }, key);
    }
    case 'notify':
      return edge.notify(queueId, key, effect);
    case 'stateLabel':
      await gitHost.setStateLabel?.(effect.repo, effect.number, effect.state);
      return done();
    case 'checkRun':
      await gitHost.setCheckRun?.(effect.repo, effect.sha, effect.externalId, effect.check);
      return done();
    case 'statusCheck': {
      const note = await gitHost.setStatusCheck(
        effect.repo,
        effect.sha,
        effect.state,
        effect.description,
        effect.number,
      );
      if (note === undefined || effect.number === undefined) return done();
      return dispatch(
        queueId,
        { type: 'prNoted', number: effect.number, kind: 'status_check', message: note.message },
        key,
      );
    }
  }
}
