/**
 * The error catalogue (as Fastify's lib/errors.js): one stable code per condition the service refuses, with the
 * status it answers. Engine errors (EngineError) and the API's own refusals (api/errors.ts) both take their code from
 * here, and every error body carries it as `reason` beside the older, coarser `code` (`not_found`, `conflict`, …),
 * which clients already read and which stays as it was. The README's table of errors is generated from this one.
 */

import { HTTP_ERRORS } from './httpErrors.js';

/** How the engine classes a refusal (callers test it: a conflict of a command, a queue deleted meanwhile). */
export type EngineErrorKind = 'not_found' | 'conflict' | 'invalid' | 'unavailable';

export interface ErrorSpec {
  status: number;
  /** The body's `code`, as the API answered it before the catalogue: by status, `insufficient_scope` apart. */
  category: string;
  /** Set on the conditions an EngineError may carry (the engine's, and the dashboard's checks of its inputs); the others are the HTTP layer's. */
  kind?: EngineErrorKind;
  /** When it is answered, for the README. */
  when: string;
  /** Its message from the raise site's values (the conditions an EngineError carries). */
  message?: Template;
}

/**
 * A condition's message for people, made of the values its raise site passes (`engineError(code, values)`): the
 * wording lives here, beside the code and its status, as in Fastify's lib/errors.js.
 */
export type Template = (...values: never[]) => string;

const notFound = <M extends Template>(when: string, message: M) =>
  ({ status: 404, category: 'not_found', kind: 'not_found', when, message }) as const;
const conflict = <M extends Template>(when: string, message: M) =>
  ({ status: 409, category: 'conflict', kind: 'conflict', when, message }) as const;
const invalid = <M extends Template>(when: string, message: M) =>
  ({ status: 400, category: 'bad_request', kind: 'invalid', when, message }) as const;
/** A problem a check describes (a validator's message, a page token's): the template passes it on. */
const described = ({ problem }: { problem: string }) => problem;
const http = (status: number, category: string, when: string) => ({ status, category, when }) as const;

export const ERRORS = {
  // The queue and its pull requests.
  queue_not_found: notFound(
    'no queue for that repository and branch (or it is another organization’s)',
    (where: { queue: string } | { queueId: string; gone?: boolean }) =>
      'queue' in where
        ? `no queue for ${where.queue}`
        : where.gone === true
          ? `queue ${where.queueId} no longer exists`
          : `no queue ${where.queueId}`,
  ),
  queue_exists: conflict(
    'createQueue for a branch that has a queue already',
    ({ queue }: { queue: string }) => `a queue for ${queue} already exists`,
  ),
  repo_of_another_org: conflict(
    'createQueue for a repository another organization of this service queues',
    ({ repo }: { repo: string }) => `${repo} is a repository of another organization on this service`,
  ),
  queue_not_empty: {
    ...invalid(
      'deleteQueue while PRs are enqueued (400: the code the hosted service answers, which its Terraform provider reads)',
      ({ queue, enqueued }: { queue: string; enqueued: number }) =>
        `the queue for ${queue} still has ${enqueued} enqueued pull request(s): cancel or merge them first`,
    ),
    kind: 'conflict',
  },
  queue_draining: conflict(
    'submitPullRequest while the queue is draining',
    () => 'the queue is draining: it takes no new pull requests',
  ),
  pr_not_found: notFound(
    'getSubmittedPullRequest for a PR never submitted to that queue',
    ({ number, queue }: { number: number; queue: string }) =>
      `pull request #${number} was never submitted to the queue for ${queue}`,
  ),
  pr_not_queued: notFound(
    'cancelPullRequest or restartTestsOnPullRequest for a PR not in the queue',
    ({ number }: { number: number }) => `pull request #${number} is not in the queue`,
  ),
  pr_branch_not_found: notFound(
    'a PR named by `pr.branch` when no PR of that head branch was submitted to that queue',
    ({ branch }: { branch?: string }) =>
      branch === undefined
        ? 'name the pull request by number or branch'
        : `no pull request of branch ${branch} was submitted to this queue`,
  ),
  pr_branch_mismatch: invalid(
    '`pr.number` and `pr.branch` naming two different PRs (or `pr.branch` on submitPullRequest, which takes the number)',
    ({ number, named, branch }: { number: number; named: string; branch: string }) =>
      `pr.number ${number} is the pull request of branch ${named}, not ${branch}: send one of them, or both of the same PR`,
  ),
  pr_head_unknown: conflict(
    'setImpactedTargets without pr.sha for a PR whose head the git host has not reported yet',
    ({ number }: { number: number }) =>
      `the head of pull request #${number} is not known yet; send pr.sha with the targets, or try again once the PR is checked`,
  ),
  pr_already_merged: conflict(
    'submitPullRequest for a PR the queue merged already',
    ({ number }: { number: number }) => `pull request #${number} is already merged`,
  ),
  pr_being_merged: conflict(
    'submitting again, cancelling or restarting a PR whose merge is under way',
    ({ number }: { number: number }) => `pull request #${number} is being merged`,
  ),
  test_run_not_found: notFound(
    'getMergeQueueTestingDetails for an unknown test run',
    ({ runId, queue }: { runId: string; queue: string }) => `no test run ${runId} in the queue for ${queue}`,
  ),
  commit_not_tested: notFound(
    'setCommitStatus for a SHA that is no test run’s',
    ({ repo, sha }: { repo: string; sha: string }) => `no test run of ${repo} has the SHA ${sha}`,
  ),
  invalid_cursor: invalid(
    'listPullRequests with a cursor that is not one of that listing',
    ({ cursor }: { cursor: string | undefined }) => `cursor ${JSON.stringify(cursor)} is not a cursor of this listing`,
  ),
  event_not_replayable: invalid(
    'an event log that replays a queue’s creation into a queue',
    () => 'a queue is created with createQueue, not replayed into',
  ),
  engine_stopped: conflict('a request reaching an engine that has stopped', () => 'the engine is stopped'),
  // Flaky tests.
  org_not_found: notFound(
    'an org_url_slug other than the token’s organization',
    ({ slug }: { slug: string }) => `no organization ${JSON.stringify(slug)} for this token`,
  ),
  test_not_found: notFound(
    'a test id unknown in that repository',
    ({ testId, repo }: { testId: string; repo?: string }) =>
      `no test ${testId}${repo === undefined ? '' : ` in ${repo}`}`,
  ),
  repo_not_found: notFound(
    'a repository without flaky-test data (the dashboard’s listings)',
    ({ repo }: { repo: string }) => `no flaky-test data for repository ${repo}`,
  ),
  invalid_time_range: invalid(
    'start_time after end_time, or before 1970',
    () => 'start_time must be after 1970 and not after end_time',
  ),
  invalid_page_token: invalid('a page_token that is forged, damaged, or of another query', described),
  invalid_report: invalid(
    'an upload whose JUnit report cannot be read (nothing of it is stored)',
    ({ problem }: { problem: string }) => `${problem}; nothing of this upload was stored`,
  ),
  too_many_test_cases: invalid(
    'an upload of more test cases than one upload may hold',
    ({ limit, cases }: { limit: number; cases?: number }) =>
      `an upload holds at most ${limit} test cases; this one has ${cases ?? 'more'}`,
  ),
  upload_key_conflict: conflict(
    'an upload_key sent again with another upload (other reports or fields) than the one stored under it',
    (conflict: { key: string; upload: string } | { upload: string; begun: true }) =>
      'key' in conflict
        ? `upload_key ${JSON.stringify(conflict.key)} names upload ${conflict.upload}, whose reports or fields differ from these; send other content under another upload_key`
        : `upload ${conflict.upload} was begun with other tests than these; send this one under another upload_key`,
  ),
  upload_interrupted: {
    ...http(
      503,
      'unavailable',
      'an upload cut short by the service shutting down (with `retry-after`): what was stored of it is kept, and the same upload sent again stores the rest',
    ),
    kind: 'unavailable',
    message: ({ kept }: { kept: string }) => `the upload was interrupted: the service is shutting down; ${kept}`,
  },
  invalid_settings: invalid(
    'test monitor settings that contradict each other (a resolution threshold over its activation)',
    described,
  ),
  // Outgoing webhooks.
  webhook_endpoint_not_found: notFound(
    'a webhook endpoint id unknown in the organization',
    ({ id }: { id: unknown }) => `no webhook endpoint ${JSON.stringify(id)} in this organization`,
  ),
  webhook_delivery_not_found: notFound(
    'a webhook delivery id unknown in the organization (or pruned by retention)',
    ({ deliveryId, endpointId }: { deliveryId: unknown; endpointId?: string }) =>
      `no delivery ${JSON.stringify(deliveryId)} ${endpointId === undefined ? 'in this organization' : `of endpoint ${endpointId}`}`,
  ),
  invalid_webhook_url: invalid(
    'a webhook endpoint URL that is not http(s), holds credentials, or names a loopback, private, link-local or other non-public address (unless the service allows private addresses)',
    ({ refused }: { refused: string }) => `the endpoint URL is refused: ${refused}`,
  ),
  too_many_webhook_endpoints: conflict(
    'webhooks/create when the organization has 50 endpoints already',
    ({ max }: { max: number }) => `the organization has ${max} webhook endpoints already; delete one first`,
  ),
  ...HTTP_ERRORS,
} as const satisfies Record<string, ErrorSpec>;

export type ErrorCode = keyof typeof ERRORS;
/** The codes the engine raises (those with a kind). */
export type EngineErrorCode = {
  [C in ErrorCode]: (typeof ERRORS)[C] extends { kind: EngineErrorKind } ? C : never;
}[ErrorCode];

export const ERROR_CODES = Object.keys(ERRORS) as [ErrorCode, ...ErrorCode[]];

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.hasOwn(ERRORS, value);
}

/** The values a code's message template takes (none for a fixed message). */
export type MessageValues<C extends ErrorCode> = (typeof ERRORS)[C] extends { message: (...values: infer V) => string }
  ? V
  : [message: string];

/** The message of a condition, from the values its raise site passes. */
export function errorMessage<C extends ErrorCode>(code: C, ...values: MessageValues<C>): string {
  const template = (ERRORS[code] as ErrorSpec).message as ((...values: unknown[]) => string) | undefined;
  return template === undefined ? String(values[0]) : template(...values);
}

/** The engine's refusal of `code`, its message made by the catalogue from `values`: what raise sites throw. */
export function engineError<C extends EngineErrorCode>(code: C, ...values: MessageValues<C>): EngineError {
  return new EngineError(code, errorMessage(code, ...values));
}

/** A request the engine cannot honour: its catalogue code, its kind, and a message for people (`engineError` makes it from values). */
export class EngineError extends Error {
  readonly kind: EngineErrorKind;

  constructor(
    readonly code: EngineErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'EngineError';
    this.kind = ERRORS[code].kind;
  }
}
