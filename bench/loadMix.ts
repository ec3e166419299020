/**
 * bench:load's traffic: what each endpoint's connections send (submits of fresh PRs, cancels and targets of
 * acknowledged ones, getQueue on random queues, JUnit uploads each from a job of its own, metrics scrapes) and the share
 * of the connections each takes; acknowledged submits are noted for the check that each is stored once.
 */
const JUNIT = `<testsuite name="s">${Array.from({ length: 50 }, (_, i) => `<testcase classname="pkg.C" name="t${i}"${i % 10 === 0 ? '><failure message="boom"/></testcase>' : '/>'}`).join('')}</testsuite>`;

/** One connection's state: the PR its request submits (one request at a time per connection). */
export type Context = { pr?: { q: number; number: number } };
type Setup = (
  request: { method: string; path: string; body?: string; headers: Record<string, string> },
  context: Context,
) => unknown;

export interface Mix {
  endpoint: string;
  share: number;
  setup: Setup;
  onResponse?: (status: number, context: Context) => void;
}

/** The mixes over `queues` queues, the submits acknowledged so far, and a request body for a queue. */
export function loadMixes(queues: number, repoOf: (q: number) => { host: string; owner: string; name: string }) {
  const options = { queues };
  // Each submit takes a fresh (queue, number); acknowledged ones are noted for the check afterwards.
  let nextPr = 0;
  const acknowledged: { q: number; number: number }[] = [];
  const pick = () => {
    const n = nextPr++;
    return { q: n % options.queues, number: Math.floor(n / options.queues) + 1 };
  };
  const body = (q: number, extra: Record<string, unknown>) =>
    JSON.stringify({ repo: repoOf(q), targetBranch: 'main', ...extra });
  const randomQueue = () => Math.floor(Math.random() * options.queues);
  const randomAcked = () => acknowledged[Math.floor(Math.random() * acknowledged.length)] ?? { q: 0, number: 1 };

  let jobs = 0;
  const mixes: Mix[] = [
    {
      endpoint: 'submitPullRequest',
      share: 0.3,
      // One request at a time per connection: the connection's context holds the PR its request submits.
      onResponse: (status, context) => {
        if (status === 200 && context.pr !== undefined) acknowledged.push(context.pr);
      },
      setup: (request, context) => {
        const pr = pick();
        context.pr = pr;
        return {
          ...request,
          method: 'POST',
          path: '/v1/submitPullRequest',
          body: body(pr.q, { pr: { number: pr.number } }),
        };
      },
    },
    {
      endpoint: 'cancelPullRequest',
      share: 0.1,
      setup: (request) => {
        const pr = randomAcked();
        return {
          ...request,
          method: 'POST',
          path: '/v1/cancelPullRequest',
          body: body(pr.q, { pr: { number: pr.number } }),
        };
      },
    },
    {
      endpoint: 'getQueue',
      share: 0.25,
      setup: (request) => ({ ...request, method: 'POST', path: '/v1/getQueue', body: body(randomQueue(), {}) }),
    },
    {
      endpoint: 'setImpactedTargets',
      share: 0.15,
      setup: (request) => {
        const pr = randomAcked();
        const targets = Array.from({ length: 5 }, (_, i) => `//t${(pr.number + i) % 40}`);
        return {
          ...request,
          method: 'POST',
          path: '/v1/setImpactedTargets',
          body: body(pr.q, { pr: { number: pr.number, sha: 'abcdef1' }, impactedTargets: targets }),
        };
      },
    },
    {
      endpoint: 'flaky-tests/upload',
      share: 0.1,
      setup: (request) => ({
        ...request,
        method: 'POST',
        path: '/v1/flaky-tests/upload',
        // Each from a job of its own: the same body again would be the same upload, answered without being stored again.
        body: JSON.stringify({
          repo: repoOf(randomQueue()),
          commit_sha: 'abcdef1',
          branch: 'main',
          job_url: `https://ci.example.com/jobs/${++jobs}`,
          reports: [{ file: 'r.xml', xml: JUNIT }],
        }),
      }),
    },
    {
      endpoint: 'getMergeQueueMetrics',
      share: 0.1,
      setup: (request) => ({ ...request, method: 'GET', path: '/v1/getMergeQueueMetrics', body: undefined }),
    },
  ];
  return { mixes, acknowledged, body };
}
