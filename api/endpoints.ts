/** The merge-queue endpoints of the REST facade (mounted under /v1/), then the flaky-test ones. */
import { empty, type Endpoint } from './endpoint.js';
import { FLAKY_ENDPOINTS } from './flakyEndpoints.js';
import * as out from './responseSchemas.js';
import * as schemas from './schemas.js';
import { getQueueView, pullRequestListView, queueView, settingsHistoryView, submittedPullRequestView, testRunView } from './views.js';

const MERGE_QUEUE_ENDPOINTS: Endpoint[] = [
  {
    path: 'submitPullRequest',
    scope: 'write',
    summary: 'Submit a pull request to a queue (again: update its priority and batching)',
    input: schemas.SubmitPullRequestInput,
    output: out.EmptyBody,
    call: (c, b) => c.submitPullRequest(b as never).then(empty),
  },
  {
    path: 'cancelPullRequest',
    scope: 'write',
    summary: 'Remove a pull request from its queue',
    input: schemas.PullRequestInput,
    output: out.EmptyBody,
    call: (c, b) => c.cancelPullRequest(b as never).then(empty),
  },
  {
    path: 'restartTestsOnPullRequest',
    scope: 'write',
    summary: 'Re-run the tests of a pull request in its place',
    input: schemas.PullRequestInput,
    output: out.EmptyBody,
    call: (c, b) => c.restartTestsOnPullRequest(b as never).then(empty),
  },
  {
    path: 'getSubmittedPullRequest',
    scope: 'read',
    summary: 'A submitted pull request: state, readiness, priority, test run, timeline',
    input: schemas.GetSubmittedPullRequestInput,
    output: out.SubmittedPullRequestBody,
    call: (c, b) => c.getSubmittedPullRequest(b as never).then(submittedPullRequestView),
  },
  {
    path: 'listPullRequests',
    scope: 'read',
    summary: "A queue's pull requests, newest submission first, by state and time, a page at a time",
    input: schemas.ListPullRequestsInput,
    output: out.PullRequestListBody,
    call: (c, b) => c.listPullRequests(b as never).then(pullRequestListView),
  },
  {
    path: 'setImpactedTargets',
    scope: 'write',
    summary: "Set a pull request's impacted targets for its head SHA (parallel queues)",
    input: schemas.SetImpactedTargetsInput,
    output: out.EmptyBody,
    call: (c, b) => c.setImpactedTargets(b as never).then(empty),
  },
  {
    path: 'getMergeQueueTestingDetails',
    scope: 'read',
    summary: 'A test run: test branch, statuses, tested pull requests',
    input: schemas.TestingDetailsInput,
    output: out.TestRunBody,
    call: (c, b) => c.getMergeQueueTestingDetails(b as never).then(testRunView),
  },
  {
    path: 'setCommitStatus',
    scope: 'write',
    summary: "Report a CI status on a test branch's SHA",
    ours: true,
    input: schemas.SetCommitStatusInput,
    output: out.EmptyBody,
    call: (c, b) => c.setCommitStatus(b as never).then(empty),
  },
  {
    path: 'createQueue',
    scope: 'admin',
    summary: 'Create a queue for a branch (409 when it exists)',
    input: schemas.CreateQueueInput,
    output: out.EmptyBody,
    call: (c, b) => c.createQueue(b as never).then(empty),
  },
  {
    path: 'deleteQueue',
    scope: 'admin',
    summary: 'Delete an empty queue (400 while pull requests are enqueued)',
    input: schemas.QueueIdentityInput,
    output: out.EmptyBody,
    call: (c, b) => c.deleteQueue(b as never).then(empty),
  },
  {
    path: 'getQueue',
    scope: 'read',
    summary: "A queue's state, settings and enqueued pull requests",
    input: schemas.QueueIdentityInput,
    output: out.GetQueueBody,
    call: (c, b) => c.getQueue(b as never).then(getQueueView),
  },
  {
    path: 'updateQueue',
    scope: 'admin',
    summary: "Change the settings sent; answers the queue without its pull requests",
    input: schemas.UpdateQueueInput,
    output: out.QueueBody,
    call: (c, b) => c.updateQueue(b as never).then(queueView),
  },
  {
    path: 'getQueueSettingsHistory',
    scope: 'read',
    summary: "Every change of a queue's settings, oldest first, with the id of the token that made it",
    ours: true,
    input: schemas.QueueIdentityInput,
    output: out.SettingsHistoryBody,
    call: (c, b) => c.getQueueSettingsHistory(b as never).then(settingsHistoryView),
  },
];

export const POST_ENDPOINTS: Endpoint[] = [...MERGE_QUEUE_ENDPOINTS, ...FLAKY_ENDPOINTS];
export const METRICS_PATH = 'getMergeQueueMetrics';
export const OPENAPI_PATH = 'openapi.json';
