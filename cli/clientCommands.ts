/**
 * `greenline pr …` and `greenline queue …`: the merge-queue API with its own words. Each subcommand is one API call
 * (submitPullRequest, cancelPullRequest, restartTestsOnPullRequest, getSubmittedPullRequest, getQueue, updateQueue,
 * createQueue, deleteQueue) on the queue of --repo and --branch, and prints its answer.
 */
import { execFileSync } from 'node:child_process';
import { callAndReport, target } from './apiClient.js';
import type { CommandContext } from './commands.js';
import { UsageError } from './usage.js';

interface Repo {
  host: string;
  owner: string;
  name: string;
}

/** The git remote `origin` of the current folder, when there is one. */
function originUrl(): string | undefined {
  try {
    return (
      execFileSync('git', ['remote', 'get-url', 'origin'], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
      }).trim() || undefined
    );
  } catch {
    return undefined;
  }
}

async function queueOf({ values, env }: CommandContext): Promise<{ repo: Repo; targetBranch: string }> {
  const text = values.repo || env.GREENLINE_REPO || originUrl();
  if (text === undefined) throw new UsageError('which repository? pass --repo host/owner/name (or set GREENLINE_REPO)');
  const { parseRepoArgument, UploadUsageError } = await import('./upload.js');
  try {
    return { repo: parseRepoArgument(text), targetBranch: values.branch || env.GREENLINE_BRANCH || 'main' };
  } catch (error) {
    if (error instanceof UploadUsageError) throw new UsageError(error.message);
    throw error;
  }
}

function prNumberOf(text: string | undefined): number {
  if (text === undefined || !/^[1-9][0-9]{0,9}$/.test(text))
    throw new UsageError(`a pull request number, not "${text ?? ''}"`);
  return Number(text);
}

const PR_CALLS = {
  submit: 'submitPullRequest',
  cancel: 'cancelPullRequest',
  restart: 'restartTestsOnPullRequest',
  show: 'getSubmittedPullRequest',
} as const;

export async function prCommand(context: CommandContext): Promise<number> {
  const [action, number, ...extra] = context.rest;
  if (action === undefined || !Object.hasOwn(PR_CALLS, action) || extra.length > 0) {
    throw new UsageError('pr takes one of submit, cancel, restart, show and a PR number: greenline pr submit 42');
  }
  const body: Record<string, unknown> = { ...(await queueOf(context)), pr: { number: prNumberOf(number) } };
  const { values } = context;
  if (action === 'submit') {
    if (values.priority !== undefined)
      body.priority = /^\d+$/.test(values.priority) ? Number(values.priority) : values.priority;
    if (values['no-batch'] === true) body.noBatch = true;
  } else if (values.priority !== undefined || values['no-batch'] !== undefined) {
    throw new UsageError('--priority and --no-batch go with pr submit');
  }
  if (action === 'show' && values.timeline === true) body.includeTimeline = true;
  return callAndReport(target(values, context.env), 'POST', `/v1/${PR_CALLS[action as keyof typeof PR_CALLS]}`, body);
}

const QUEUE_STATES = { pause: 'paused', resume: 'running', drain: 'draining' } as const;

export async function queueCommand(context: CommandContext): Promise<number> {
  const [action, ...extra] = context.rest;
  if (action === undefined || extra.length > 0)
    throw new UsageError('queue takes one of show, pause, resume, drain, create, delete: greenline queue show');
  const queue = await queueOf(context);
  const to = target(context.values, context.env);
  if (action === 'show') return callAndReport(to, 'POST', '/v1/getQueue', queue);
  if (action === 'create') return callAndReport(to, 'POST', '/v1/createQueue', queue);
  if (action === 'delete') return callAndReport(to, 'POST', '/v1/deleteQueue', queue);
  if (Object.hasOwn(QUEUE_STATES, action)) {
    return callAndReport(to, 'POST', '/v1/updateQueue', {
      ...queue,
      state: QUEUE_STATES[action as keyof typeof QUEUE_STATES],
    });
  }
  throw new UsageError(`unknown queue action "${action}": use show, pause, resume, drain, create or delete`);
}
