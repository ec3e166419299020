/** The merge-queue endpoints of the REST facade (mounted under /v1/), then the flaky-test ones. */
import { empty, endpoint, type Endpoint } from './endpoint.js';
import { FLAKY_ENDPOINTS } from './flakyEndpoints.js';
import { WEBHOOK_ENDPOINTS } from './webhookEndpoints.js';
import * as out from './responseSchemas.js';
import * as schemas from './schemas.js';
import {
  getQueueView,
  pullRequestListView,
  queueView,
  settingsHistoryView,
  submittedPullRequestView,
  testRunView,
} from './views.js';

const MERGE_QUEUE_ENDPOINTS: Endpoint[] = [
  endpoint({
    path: 'submitPullRequest',
    scope: 'write',
    summary: 'Submit a pull request to a queue (again: update its priority and batching)',
    input: schemas.SubmitPullRequestInput,
    output: out.EmptyBody,
    call: (c, b) => c.submitPullRequest(b).then(empty),
  }),
  endpoint({
    path: 'cancelPullRequest',
    scope: 'write',
    summary: 'Remove a pull request from its queue',
    input: schemas.PullRequestInput,
    output: out.EmptyBody,
    call: (c, b) => c.cancelPullRequest(b).then(empty),
  }),
  endpoint({
    path: 'restartTestsOnPullRequest',
    scope: 'write',
    summary: 'Re-run the tests of a pull request in its place',
    input: schemas.PullRequestInput,
    output: out.EmptyBody,
    call: (c, b) => c.restartTestsOnPullRequest(b).then(empty),
  }),
  endpoint({
    path: 'getSubmittedPullRequest',
    scope: 'read',
    summary: 'A submitted pull request: state, readiness, priority, test run, timeline',
    input: schemas.GetSubmittedPullRequestInput,
    output: out.SubmittedPullRequestBody,
    call: (c, b) => c.getSubmittedPullRequest(b).then(submittedPullRequestView),
  }),
  endpoint({
    path: 'listPullRequests',
    scope: 'read',
    summary: "A queue's pull requests, newest submission first, by state and time, a page at a time",
    input: schemas.ListPullRequestsInput,
    output: out.PullRequestListBody,
    call: (c, b) => c.listPullRequests(b).then(pullRequestListView),
  }),
  endpoint({
    path: 'setImpactedTargets',
    scope: 'write',
    summary: "Set a pull request's impacted targets for its head SHA (parallel queues)",
    input: schemas.SetImpactedTargetsInput,
    output: out.EmptyBody,
    call: (c, b) => c.setImpactedTargets(b).then(empty),
  }),
  endpoint({
    path: 'getMergeQueueTestingDetails',
    scope: 'read',
    summary: 'A test run: test branch, statuses, tested pull requests',
    input: schemas.TestingDetailsInput,
    output: out.TestRunBody,
    call: (c, b) => c.getMergeQueueTestingDetails(b).then(testRunView),
  }),
  endpoint({
    path: 'setCommitStatus',
    scope: 'write',
    summary: "Report a CI status on a test branch's SHA",
    ours: true,
    input: schemas.SetCommitStatusInput,
    output: out.EmptyBody,
    call: (c, b) => c.setCommitStatus(b).then(empty),
  }),
  endpoint({
    path: 'createQueue',
    scope: 'admin',
    summary: 'Create a queue for a branch (409 when it exists)',
    input: schemas.CreateQueueInput,
    output: out.EmptyBody,
    call: (c, b) => c.createQueue(b).then(empty),
  }),
  endpoint({
    path: 'deleteQueue',
    scope: 'admin',
    summary: 'Delete an empty queue (400 while pull requests are enqueued)',
    input: schemas.QueueIdentityInput,
    output: out.EmptyBody,
    call: (c, b) => c.deleteQueue(b).then(empty),
  }),
  endpoint({
    path: 'getQueue',
    scope: 'read',
    summary: "A queue's state, settings and enqueued pull requests",
    input: schemas.QueueIdentityInput,
    output: out.GetQueueBody,
    call: (c, b) => c.getQueue(b).then(getQueueView),
  }),
  endpoint({
    path: 'updateQueue',
    scope: 'admin',
    summary: 'Change the settings sent; answers the queue without its pull requests',
    input: schemas.UpdateQueueInput,
    output: out.QueueBody,
    call: (c, b) => c.updateQueue(b).then(queueView),
  }),
  endpoint({
    path: 'getQueueSettingsHistory',
    scope: 'read',
    summary: "Every change of a queue's settings, oldest first, with the id of the token that made it",
    ours: true,
    input: schemas.QueueIdentityInput,
    output: out.SettingsHistoryBody,
    call: (c, b) => c.getQueueSettingsHistory(b).then(settingsHistoryView),
  }),
];

export const POST_ENDPOINTS: Endpoint[] = [...MERGE_QUEUE_ENDPOINTS, ...FLAKY_ENDPOINTS, ...WEBHOOK_ENDPOINTS];
export const METRICS_PATH = 'getMergeQueueMetrics';
export const OPENAPI_PATH = 'openapi.json';
