/**
 * What the `greenline` check run on a PR's head says (pure): its state, its place in the queue, what it is tested
 * with and on top of what, the test run's checks with their links, the merge estimate and the dashboard's page; and
 * once the PR left the queue, why, in words a developer acts on (the failing check and its link, the conflict, what
 * to do next). GitHub shows the title beside the check and the summary on its page.
 */
import type { PullRequestRecord } from '../../model/pullRequests.js';
import type { TestRunRecord } from '../../model/testRuns.js';
import type { MergeEstimate } from '../../estimate/index.js';

export const CHECK_RUN_NAME = 'greenline';

export interface CheckRunView {
  pr: PullRequestRecord;
  targetBranch: string;
  /** 1-based place among the ready PRs (undefined when not ready or gone). */
  position?: number;
  ready: number;
  /** The PRs ahead of it in the queue, nearest last. */
  ahead: number[];
  run?: TestRunRecord;
  estimate?: MergeEstimate;
  dashboardUrl?: string;
  now: number;
}

export interface CheckRunOutput {
  status: 'queued' | 'in_progress' | 'completed';
  conclusion?: 'success' | 'failure' | 'cancelled' | 'neutral';
  title: string;
  summary: string;
}

const time = (ms: number) => `${new Date(ms).toISOString().slice(11, 16)} UTC`;
const minutes = (ms: number) => {
  const total = Math.max(1, Math.round(ms / 60_000));
  return total < 60 ? `${total} min` : `${Math.floor(total / 60)} h ${total % 60} min`;
};
const prs = (numbers: readonly number[]) => numbers.map((number) => `#${number}`).join(', ');
const ordinal = (n: number) =>
  `${n}${n % 10 === 1 && n % 100 !== 11 ? 'st' : n % 10 === 2 && n % 100 !== 12 ? 'nd' : n % 10 === 3 && n % 100 !== 13 ? 'rd' : 'th'}`;

function checksOf(run: TestRunRecord): string[] {
  const lines = [
    `**Checks of run \`${run.id}\`** (required: ${run.requiredStatuses.length === 0 ? 'none yet' : run.requiredStatuses.map((name) => `\`${name}\``).join(', ')})`,
  ];
  if (run.statusChecks.length === 0) lines.push('- no results yet');
  for (const check of run.statusChecks) {
    const link = check.url === '' ? '' : ` — [details](${check.url})`;
    lines.push(
      `- \`${check.context}\`: ${check.state}${check.description === '' ? '' : ` (${check.description})`}${link}`,
    );
  }
  return lines;
}

function testedWith(view: CheckRunView, run: TestRunRecord): string {
  const others = run.prs.filter((number) => number !== view.pr.number);
  const base = [
    `\`${view.targetBranch}\` at \`${run.baseSha.slice(0, 12)}\``,
    ...run.basePrs.map((number) => `#${number}`),
  ].join(' + ');
  return `**Tested** ${others.length === 0 ? 'on its own' : `together with ${prs(others)}`}, on top of ${base}`;
}

function estimateLine(view: CheckRunView): string | undefined {
  const estimate = view.estimate;
  if (estimate === undefined) return undefined;
  return `**Estimated merge**: about ${time(estimate.at)} (in ${minutes(estimate.at - view.now)}); 9 times in 10 by ${time(estimate.p90)} — from this queue's own CI times and failure rate`;
}

/** What a developer does about a PR that left the queue without merging. */
function nextStep(pr: PullRequestRecord, failing: boolean, conflict: boolean): string {
  if (conflict)
    return `Rebase the PR on \`${pr.baseBranch}\` (or merge it in), resolve the conflicts, push, then press **Re-run** on this check (or comment \`/greenline merge\`).`;
  if (failing)
    return 'Fix what the failing check reports (or re-run it, if it is flaky), push, then press **Re-run** on this check (or comment `/greenline merge`).';
  return 'Press **Re-run** on this check (or comment `/greenline merge`) to queue it again.';
}

export function checkRunOutput(view: CheckRunView): CheckRunOutput {
  const { pr, run } = view;
  const lines: string[] = [];
  const dashboard =
    view.dashboardUrl === undefined
      ? undefined
      : `[Open #${pr.number} on the Greenline dashboard](${view.dashboardUrl})`;
  const place =
    view.position === undefined
      ? undefined
      : `**Position**: ${ordinal(view.position)} of ${view.ready} ready${view.ahead.length === 0 ? ' (the head of the queue)' : ` — ${view.ahead.length} ahead: ${prs(view.ahead)}`}`;
  const estimate = estimateLine(view);
  const finish = (output: Omit<CheckRunOutput, 'summary'>): CheckRunOutput => ({
    ...output,
    summary: [...lines, ...(dashboard === undefined ? [] : ['', dashboard])].join('\n'),
  });
  switch (pr.state) {
    case 'MERGED':
      lines.push(
        `**Merged** into \`${view.targetBranch}\`${pr.mergedSha === null ? '' : ` as \`${pr.mergedSha.slice(0, 12)}\``}.`,
      );
      if (run !== undefined) lines.push('', testedWith(view, run), ...checksOf(run));
      return finish({ status: 'completed', conclusion: 'success', title: `Merged into ${view.targetBranch}` });
    case 'FAILED':
    case 'CANCELLED': {
      const failingChecks =
        run?.statusChecks.filter((check) => check.state === 'failure' || check.state === 'error') ?? [];
      const conflict = /conflict/i.test(pr.reason ?? '');
      const why = pr.reason ?? (pr.state === 'FAILED' ? 'its tests failed' : 'it was cancelled');
      lines.push(`**Left the queue** (${pr.state.toLowerCase()}): ${why}`);
      for (const check of failingChecks)
        lines.push(
          `- failing check \`${check.context}\`${check.description === '' ? '' : `: ${check.description}`}${check.url === '' ? '' : ` — [details](${check.url})`}`,
        );
      if (run !== undefined) lines.push('', testedWith(view, run), ...checksOf(run));
      lines.push('', `**What to do**: ${nextStep(pr, failingChecks.length > 0, conflict)}`);
      const headline =
        failingChecks[0] !== undefined ? `check ${failingChecks[0].context} failed` : conflict ? 'it conflicts' : why;
      return finish({
        status: 'completed',
        conclusion: pr.state === 'FAILED' ? 'failure' : 'cancelled',
        title: `Removed from the queue: ${headline}`.slice(0, 255),
      });
    }
    case 'NOT_READY':
      lines.push(`**Not ready**: ${pr.reason ?? 'waiting for its checks before it can enter the queue'}`);
      return finish({ status: 'queued', title: `Not ready: ${pr.reason ?? 'waiting'}`.slice(0, 255) });
    default: {
      const testing = pr.state === 'TESTING' && run !== undefined;
      const stateText = testing
        ? 'testing'
        : pr.state === 'TESTS_PASSED'
          ? 'tests passed, merging once the PRs ahead merge'
          : pr.state === 'PENDING_FAILURE'
            ? 'its run failed; waiting to see whether a PR ahead caused it'
            : 'waiting to be tested';
      lines.push(`**State**: ${stateText}`);
      if (place !== undefined) lines.push(place);
      if (run !== undefined && (testing || pr.state === 'TESTS_PASSED' || pr.state === 'PENDING_FAILURE'))
        lines.push(testedWith(view, run), ...checksOf(run));
      if (estimate !== undefined) lines.push(estimate);
      const where = view.position === undefined ? '' : ` — ${ordinal(view.position)} in the queue`;
      const when = view.estimate === undefined ? '' : `, merge expected about ${time(view.estimate.at)}`;
      return finish({
        status: testing || pr.state === 'TESTS_PASSED' ? 'in_progress' : 'queued',
        title:
          `${testing ? 'Testing' : pr.state === 'TESTS_PASSED' ? 'Tests passed' : pr.state === 'PENDING_FAILURE' ? 'Run failed, deciding' : 'Waiting'}${where}${when}`.slice(
            0,
            255,
          ),
      });
    }
  }
}
