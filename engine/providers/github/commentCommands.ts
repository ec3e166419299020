/**
 * The commands in a pull request's comments, acted on (GitHub's `issue_comment` created): `/greenline merge` submits
 * the PR and `/greenline cancel` takes it out, in every queue of its base branch with `commandsEnabled`, for users
 * with write access to the repository; the answer goes in Greenline's comment on the PR. Parsing is commands.ts's.
 */
import type { EmitterWebhookEvent } from '@octokit/webhooks';
import type { QueueKey } from '../../engine.js';
import { EngineError } from '../../model/errors.js';
import { commandAnswerText, type CommandAnswerText } from '../../model/texts.js';
import { parseCommand } from './commands.js';
import type { ReceiverParts } from './pullRequestEvents.js';

const WRITE_PERMISSIONS = new Set(['admin', 'maintain', 'write']);

export async function actOnComment(
  event: EmitterWebhookEvent<'issue_comment.created'>,
  receiver: ReceiverParts,
): Promise<void> {
  const { engine, github, host } = receiver;
  const { payload } = event;
  if (payload.issue.pull_request === undefined || payload.comment.user?.type === 'Bot') return;
  const command = parseCommand(payload.comment.body);
  if (command === undefined) return;
  const repo = receiver.repoOf(payload.repository);
  const number = payload.issue.number;
  const answer = (text: CommandAnswerText) => host.comment(repo, number, commandAnswerText(text));
  if (command.kind === 'invalid') return answer({ kind: 'invalid', message: command.message });
  const octokit = await github.forRepo(repo);
  const where = { owner: repo.owner, repo: repo.name };
  const login = payload.comment.user?.login ?? '';
  const { data: permission } = await octokit.rest.repos.getCollaboratorPermissionLevel({ ...where, username: login });
  if (!WRITE_PERMISSIONS.has(permission.permission)) {
    return answer({ kind: 'notAllowed', login, repo });
  }
  const { data: pr } = await octokit.rest.pulls.get({ ...where, pull_number: number });
  const queues = receiver.queuesFor(payload.repository, pr.base.ref).filter((queue) => queue.settings.commandsEnabled);
  if (queues.length === 0) return answer({ kind: 'noQueue', branch: pr.base.ref });
  for (const queue of queues) {
    const key: QueueKey = { org: queue.org, repo: queue.repo, branch: queue.branch };
    if (command.kind === 'merge') {
      const options = {
        noBatch: command.noBatch,
        by: `@${login} with /greenline`,
        ...(command.priority === undefined ? {} : { priority: command.priority }),
      };
      engine.submitPullRequest(key, number, options);
      await answer({ kind: 'submitted', number, branch: queue.branch, login });
    } else if (receiver.enqueued(key, number) === undefined) {
      await answer({ kind: 'notQueued', number, branch: queue.branch });
    } else {
      try {
        engine.cancelPullRequest(key, number, `@${login} with /greenline`);
      } catch (error) {
        if (!(error instanceof EngineError && error.kind === 'conflict')) throw error;
        await answer({ kind: 'beingMerged', number });
        continue;
      }
      await answer({ kind: 'cancelled', number, login });
    }
  }
}
